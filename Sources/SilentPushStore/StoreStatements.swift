import Foundation
import GRDB
import GRDBSQLite
import SilentPushCore

/// The writer's statements for the changes every push makes, prepared once and bound
/// through SQLite's own API: no argument arrays and no cache lookup keyed by SQL text per
/// change, which would cost more than the statements' own work. Rarer changes go through GRDB.
///
/// Used only inside the writer's transactions: one connection, one thread at a time.
final class StoreStatements: @unchecked Sendable {
    /// `insertPushes[k - 1]` inserts k rows: one statement per run of pushes, not per push.
    /// The rows are bound from the writer's batch where they are: no list of its own.
    private var insertPushes = [Statement?](repeating: nil, count: StoreStatements.rowsPerInsert)
    /// The most rows one insert takes. A statement's fixed part (cursors opened and closed,
    /// the program started and halted, the statement reset) is shared by them all; past 16
    /// rows the gain is within noise (docs/benchmarks.md).
    static let rowsPerInsert = 16
    private var setFate: Statement?
    /// A Live Activity's row, its update (the row exists) and its insert, and an update decision.
    var updateActivity: Statement?
    var insertActivity: Statement?
    var insertActivityUpdate: Statement?
    private var insertWake: Statement?
    private var finishWake: Statement?
    private var begin: Statement?
    private var commit: Statement?
    private var rollback: Statement?
    /// Where a statement's text and blob parameters are copied before its step, so SQLite
    /// can take them as SQLITE_STATIC instead of making its own copy of each (a malloc per
    /// text column per push). Parameters that do not fit are bound the copying way.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)

    deinit { scratch.deallocate() }

    /// Runs `body` in a transaction begun and committed by prepared statements: GRDB's own
    /// transactions parse `BEGIN` and `COMMIT` again each time, which at this writer's commit
    /// sizes costs more per push than a statement's work.
    func inTransaction(_ db: Database, _ body: () throws -> Void) throws {
        try run(&begin, db, "BEGIN IMMEDIATE") { _ in }
        do {
            try body()
            try run(&commit, db, "COMMIT") { _ in }
        } catch {
            if sqlite3_get_autocommit(db.sqliteConnection) == 0 { try? run(&rollback, db, "ROLLBACK") { _ in } }
            throw error
        }
    }

    /// Finalizes every prepared statement (before the connection closes); they are prepared
    /// again if used after.
    func finalize() {
        for index in insertPushes.indices { insertPushes[index] = nil }
        (setFate, insertWake, finishWake, begin, commit, rollback) = (nil, nil, nil, nil, nil, nil)
        (updateActivity, insertActivity, insertActivityUpdate) = (nil, nil, nil)
    }

    /// Applies a batch of the writer's entries, in order, in `db`'s open transaction: each
    /// run of inserted pushes (across entries) in statements of up to `rowsPerInsert` rows,
    /// every other change on its own.
    func apply(_ batch: [StoreWriter.Entry], _ db: Database) throws {
        var position = Position()
        while let change = position.change(in: batch) {
            guard case .insertPush = change else {
                try apply(change, db)
                position.index += 1
                continue
            }
            let first = position
            var count = 0
            while count < Self.rowsPerInsert, let next = position.change(in: batch), case .insertPush = next {
                count += 1
                position.index += 1
            }
            try insertPushes(count, from: first, in: batch, db)
        }
    }

    /// A change's place in a batch: its entry, and its index in the entry's changes.
    struct Position {
        var entry = 0
        var index = 0

        /// The change here, past the end of entries already done; nil at the batch's end.
        mutating func change(in batch: [StoreWriter.Entry]) -> StoreChange? {
            while entry < batch.count {
                if index < batch[entry].changes.count { return batch[entry].changes[index] }
                entry += 1
                index = 0
            }
            return nil
        }
    }

    /// Calls `body` with each of the `count` pushes from `first` on.
    private static func forEachPush(_ count: Int, from first: Position, in batch: [StoreWriter.Entry], _ body: (PushRecord) -> Void) {
        var position = first
        for _ in 0..<count {
            guard case .insertPush(let push) = position.change(in: batch) else { return }
            body(push)
            position.index += 1
        }
    }

    /// Applies one change other than a push's insert in `db`'s open transaction.
    private func apply(_ change: StoreChange, _ db: Database) throws {
        switch change {
        case .setFate(let push, let fate, let generation):
            let stored = StoredFate(fate)
            try run(&setFate, db, "UPDATE pushes SET fate = ?, wake_id = ?, reason = ?, generation = COALESCE(?, generation) WHERE id = ?") { bind in
                bind(stored.kind.rawValue)
                bind(stored.wakeID)
                bind(stored.reason)
                bind(generation.map { Int64($0) })
                bind(Int64(bitPattern: push))
            }
        case .insertWake(let wake):
            try run(
                &insertWake, db,
                """
                INSERT INTO wakes (id, device_token, topic, push_id, generation, started_at, deadline, finished_at, result, reason, kind)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ) { bind in
                bind(Int64(bitPattern: wake.id))
                bind(wake.deviceToken)
                bind(wake.topic)
                bind(Int64(bitPattern: wake.pushID))
                bind(Int64(wake.generation))
                bind(wake.startedAt.millisecondsSinceEpoch)
                bind(wake.deadline.millisecondsSinceEpoch)
                bind(wake.finishedAt?.millisecondsSinceEpoch)
                bind(wake.result?.name)
                bind(wake.reason)
                bind(wake.kind.rawValue)
            }
        case .finishWake(let id, let finishedAt, let result):
            try run(&finishWake, db, "UPDATE wakes SET finished_at = ?, result = ?, reason = ? WHERE id = ? AND result IS NULL") { bind in
                bind(finishedAt)
                bind(result.name)
                bind(result.reason)
                bind(Int64(bitPattern: id))
            }
        case .recordActivity(let activity):
            try record(activity, db)
        case .insertActivityUpdate(let update):
            try insert(update, db)
        default:
            try Self.applyRare(change, db)
        }
    }

    /// Inserts `count` pushes from `first` on in one statement. A push that replaced another
    /// in its app's slot names it in `replaced`; that row is left as it is, and the
    /// `push_fates` view reads it coalesced.
    private func insertPushes(_ count: Int, from first: Position, in batch: [StoreWriter.Entry], _ db: Database) throws {
        guard count > 0 else { return }
        try run(&insertPushes[count - 1], db, Self.insertPushesSQL(rows: count)) { bind in
            Self.forEachPush(count, from: first, in: batch) { push in Self.bind(push, &bind) }
        }
    }

    private static let pushColumns = [
        "id", "apns_id", "device_token", "topic", "push_type", "priority", "received_at", "expires_at", "collapse_id", "payload",
        "warnings", "fate", "wake_id", "reason", "generation", "replaced", "apns_key",
    ]

    private static func insertPushesSQL(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: pushColumns.count).joined(separator: ", ") + ")"
        return "INSERT INTO pushes (\(pushColumns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Binds one push's row, in `pushColumns` order.
    private static func bind(_ push: PushRecord, _ bind: inout Binder) {
        let fate = StoredFate(push.fate)
        bind(Int64(bitPattern: push.id))
        bind(push.apnsID)
        bind(push.deviceToken)
        bind(push.topic)
        bind(push.pushType)
        bind(Int64(push.priority))
        bind(push.receivedAt)
        bind(push.expiresAt)
        bind(push.collapseID)
        bind(bytes: push.payload)
        bind(push.warnings.isEmpty ? nil : push.warnings.joined(separator: "\n"))
        bind(fate.kind.rawValue)
        bind(fate.wakeID)
        bind(fate.reason)
        bind(push.generation.map { Int64($0) })
        bind(push.replaced.map { Int64(bitPattern: $0) })
        bind(PushStore.indexedAPNsKey(push.apnsID, pushID: push.id))
    }

    /// Applies a change the writer's prepared statements leave to GRDB: none that every
    /// push makes.
    private static func applyRare(_ change: StoreChange, _ db: Database) throws {
        switch change {
        case .insertPush, .setFate, .insertWake, .finishWake, .recordActivity, .insertActivityUpdate:
            preconditionFailure("applied by a prepared statement: \(change)")
        case .closeGeneration(let head, let fate):
            // Walks the slot's chain by primary key: no index on device and topic to keep up
            // on every push. Its pushes wait for a wake: rows left pending as they were
            // replaced (or written coalesced, waiting, when no arriving push replaced them);
            // a push of a closed generation ends it. The pushes before a delivered head are
            // coalesced into its wake; before any other head, they share its fate.
            var stored = StoredFate(fate)
            if stored.kind == .delivered { stored.kind = .coalesced }
            try db.cachedStatement(
                sql: """
                    WITH RECURSIVE chain(id) AS (
                        SELECT replaced FROM pushes WHERE id = ?4 AND replaced IS NOT NULL
                        UNION ALL
                        SELECT pushes.replaced FROM pushes JOIN chain ON pushes.id = chain.id
                        WHERE pushes.replaced IS NOT NULL AND pushes.fate IN (?5, ?6) AND pushes.wake_id IS NULL)
                    UPDATE pushes SET fate = ?1, wake_id = ?2, reason = ?3
                    WHERE id IN (SELECT id FROM chain) AND fate IN (?5, ?6) AND wake_id IS NULL
                    """
            ).execute(arguments: [
                stored.kind.rawValue, stored.wakeID, stored.reason, Int64(bitPattern: head), PushFate.Kind.coalesced.rawValue,
                PushFate.Kind.pending.rawValue,
            ])
        case .setDevice(let token, let state):
            try db.cachedStatement(
                sql: """
                    INSERT INTO devices (device_token, force_quit, background_refresh, low_power_mode, daily_budget,
                                         battery_level, charging, thermal_state, debugger_attached, network, idle, network_type)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(device_token) DO UPDATE SET force_quit = excluded.force_quit,
                        background_refresh = excluded.background_refresh, low_power_mode = excluded.low_power_mode,
                        daily_budget = excluded.daily_budget, battery_level = excluded.battery_level,
                        charging = excluded.charging, thermal_state = excluded.thermal_state,
                        debugger_attached = excluded.debugger_attached, network = excluded.network, idle = excluded.idle,
                        network_type = excluded.network_type
                    """
            ).execute(arguments: [
                token, state.forceQuit, state.backgroundRefresh, state.lowPowerMode, state.dailyBudget, state.batteryLevel, state.charging,
                state.thermalState.rawValue, state.debuggerAttached, state.network.rawValue, state.idle,
                state.networkType.rawValue,
            ])
        case .insertTransfer(let t):
            try db.cachedStatement(
                sql: """
                    INSERT INTO transfers (id, device_token, topic, session, url, method, discretionary, allows_cellular,
                        launch_events, wake_id, task_run_id, handed_over_at, state, reason, attempts, bytes, finished_at, etag,
                        last_modified, relaunch_request, file_fate)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                Int64(bitPattern: t.id), t.deviceToken, t.topic, t.session, t.url, t.method.rawValue, t.discretionary, t.allowsCellular,
                t.sessionSendsLaunchEvents, t.wakeID.map(Int64.init(bitPattern:)), t.taskRunID.map(Int64.init(bitPattern:)),
                t.handedOverAt.millisecondsSinceEpoch, t.state.rawValue, t.why?.stored ?? t.reason, t.attempts, t.bytes,
                t.finishedAt?.millisecondsSinceEpoch, t.etag, t.lastModified, t.relaunchRequestID.map(Int64.init(bitPattern:)),
                t.fileFate?.rawValue,
            ])
        case .setTransferPhase(let id, let state, let why, let attempts):
            try db.cachedStatement(sql: "UPDATE transfers SET state = ?, reason = ?, attempts = ? WHERE id = ? AND finished_at IS NULL")
                .execute(arguments: [state.rawValue, why, attempts, Int64(bitPattern: id)])
        case .finishTransfer(let id, let state, let at, let bytes, let reason, let status, let etag, let lastModified):
            try db.cachedStatement(
                sql: """
                    UPDATE transfers SET state = ?, finished_at = ?, bytes = COALESCE(?, bytes), reason = ?, status = ?, etag = ?,
                        last_modified = ?
                    WHERE id = ? AND finished_at IS NULL
                    """
            ).execute(arguments: [state.rawValue, at, bytes, reason, status, etag, lastModified, Int64(bitPattern: id)])
        case .setTransferCutOff(let id, let error, let bytes):
            try db.cachedStatement(sql: "UPDATE transfers SET last_error = ?, bytes = ? WHERE id = ?")
                .execute(arguments: [error, bytes, Int64(bitPattern: id)])
        case .setTransferRelaunch(let ids, let request):
            for id in ids {
                try db.cachedStatement(sql: "UPDATE transfers SET relaunch_request = ? WHERE id = ?")
                    .execute(arguments: [Int64(bitPattern: request), Int64(bitPattern: id)])
            }
        case .setTransferFile(let id, let fate):
            try db.cachedStatement(sql: "UPDATE transfers SET file_fate = ? WHERE id = ?").execute(arguments: [fate.rawValue, Int64(bitPattern: id)])
        case .insertTaskRequest(let record):
            let request = record.request
            try db.cachedStatement(
                sql: """
                    INSERT INTO task_requests (id, device_token, topic, identifier, kind, earliest_begin, requires_network,
                        requires_power, strategy, submitted_at, state, reason, ended_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                Int64(bitPattern: record.id), record.deviceToken, record.topic, request.identifier, request.kind.rawValue,
                request.earliestBegin?.millisecondsSinceEpoch, request.requiresNetworkConnectivity, request.requiresExternalPower,
                request.strategy.rawValue, record.submittedAt.millisecondsSinceEpoch, record.state.rawValue, record.why?.stored,
                record.endedAt?.millisecondsSinceEpoch,
            ])
        case .setTaskRequest(let id, let state, let why, let at):
            try db.cachedStatement(sql: "UPDATE task_requests SET state = ?, reason = ?, ended_at = ? WHERE id = ?")
                .execute(arguments: [state.rawValue, why, at, Int64(bitPattern: id)])
        case .insertTaskRun(let run):
            try db.cachedStatement(
                sql: """
                    INSERT INTO task_runs (id, request_id, device_token, topic, identifier, kind, started_at, deadline, simulated,
                        expired_at, finished_at, outcome, progress_completed, progress_total)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                Int64(bitPattern: run.id), Int64(bitPattern: run.requestID), run.deviceToken, run.topic, run.identifier, run.kind.rawValue,
                run.startedAt.millisecondsSinceEpoch, run.deadline?.millisecondsSinceEpoch, run.simulated,
                run.expiredAt?.millisecondsSinceEpoch, run.finishedAt?.millisecondsSinceEpoch, run.outcome?.rawValue, run.progressCompleted,
                run.progressTotal,
            ])
        case .expireTaskRun(let id, let at):
            try db.cachedStatement(sql: "UPDATE task_runs SET expired_at = ? WHERE id = ? AND expired_at IS NULL")
                .execute(arguments: [at, Int64(bitPattern: id)])
        case .setWakeErrorOutput(let id, let text):
            try db.cachedStatement(sql: "UPDATE wakes SET stderr = ? WHERE id = ?").execute(arguments: [text, Int64(bitPattern: id)])
        case .finishTaskRun(let id, let at, let outcome):
            try db.cachedStatement(sql: "UPDATE task_runs SET finished_at = ?, outcome = ? WHERE id = ? AND outcome IS NULL")
                .execute(arguments: [at, outcome.rawValue, Int64(bitPattern: id)])
        case .forgetDevice(let token):
            try db.cachedStatement(sql: "DELETE FROM activity_updates WHERE activity_id IN (SELECT id FROM activities WHERE device_token = ?)")
                .execute(arguments: [token])
            for table in ["pushes", "wakes", "devices", "apps", "task_requests", "task_runs", "contents", "activities", "transfers"] {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE device_token = ?").execute(arguments: [token])
            }
        case .forgetEverything:
            for table in [
                "pushes", "wakes", "devices", "apps", "task_requests", "task_runs", "contents", "broadcasts", "activities", "activity_updates",
                "transfers",
            ] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        case .setTaskProgress(let id, let completed, let total):
            try db.cachedStatement(sql: "UPDATE task_runs SET progress_completed = ?, progress_total = ? WHERE id = ?")
                .execute(arguments: [completed, total, Int64(bitPattern: id)])
        case .setLastOpened(let token, let topic, let at):
            try db.cachedStatement(
                sql: """
                    INSERT INTO apps (device_token, topic, last_opened_at) VALUES (?, ?, ?)
                    ON CONFLICT(device_token, topic) DO UPDATE SET last_opened_at = excluded.last_opened_at
                    """
            ).execute(arguments: [token, topic, at])
        case .setCoalescedByAPNs(let push):
            try db.cachedStatement(sql: "UPDATE pushes SET apns_storage = 1 WHERE id = ?").execute(arguments: [Int64(bitPattern: push)])
        case .setContent(let content):
            try db.cachedStatement(
                sql: """
                    INSERT INTO contents (device_token, topic, url, etag, last_modified, content_type, sha256, size, fetched_at, changed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(device_token, topic, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                        content_type = excluded.content_type, sha256 = excluded.sha256, size = excluded.size,
                        fetched_at = excluded.fetched_at, changed_at = excluded.changed_at
                    """
            ).execute(arguments: [
                content.deviceToken, content.topic, content.url, content.etag, content.lastModified, content.contentType,
                content.sha256, content.size, content.fetchedAt, content.changedAt,
            ])
        case .probe(let at):
            try db.cachedStatement(
                sql: "INSERT INTO health (id, probed_at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET probed_at = excluded.probed_at"
            )
            .execute(arguments: [at])
        case .setManualClock(let at):
            try db.cachedStatement(
                sql:
                    "INSERT INTO clock (id, manual_now) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET manual_now = CASE WHEN clock.manual_now > excluded.manual_now THEN clock.manual_now ELSE excluded.manual_now END"
            )
            .execute(arguments: [at])
        case .setUnregistered(let token, let at):
            try db.cachedStatement(
                sql: """
                    INSERT INTO devices (device_token, force_quit, background_refresh, low_power_mode, hourly_budget, unregistered_at)
                    VALUES (?, 0, 1, 0, NULL, ?)
                    ON CONFLICT(device_token) DO UPDATE SET unregistered_at = excluded.unregistered_at
                    """
            ).execute(arguments: [token, at])
        case .insertChannel(let channel):
            try db.cachedStatement(
                sql: "INSERT INTO channels (environment, bundle_id, id, storage_policy, created_at) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [
                channel.environment.rawValue, channel.bundleID, channel.id.text, channel.configuration.storagePolicy.rawValue, channel.createdAt,
            ])
        case .deleteChannel(let id, let bundleID, let environment):
            try db.cachedStatement(sql: "DELETE FROM channels WHERE environment = ? AND bundle_id = ? AND id = ?")
                .execute(arguments: [environment.rawValue, bundleID, id.text])
        case .insertBroadcast(let broadcast):
            try db.cachedStatement(
                sql: """
                    INSERT INTO broadcasts (id, request_id, unique_id, environment, bundle_id, channel_id, priority, expiration, received_at, payload)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                Int64(bitPattern: broadcast.id), broadcast.requestID, broadcast.uniqueID, broadcast.environment.rawValue, broadcast.bundleID,
                broadcast.channelID.text, broadcast.priority.rawValue, broadcast.expiration, broadcast.receivedAt.millisecondsSinceEpoch,
                Data(broadcast.payload),
            ])

        }
    }

    func run(_ slot: inout Statement?, _ db: Database, _ sql: @autoclosure () -> String, bind: (inout Binder) -> Void) throws {
        let statement: Statement
        if let prepared = slot {
            statement = prepared
        } else {
            statement = try db.makeStatement(sql: sql())
            slot = statement
        }
        let raw = statement.sqliteStatement
        var binder = Binder(statement: raw, scratch: scratch)
        bind(&binder)
        if let failure = binder.failure {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            _ = sqlite3_reset(raw)  // repeats the step's code, checked above
            throw DatabaseError(resultCode: ResultCode(rawValue: failure), message: "binding a parameter: \(message)", sql: sql())
        }
        let code = sqlite3_step(raw)
        if code != SQLITE_DONE {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            _ = sqlite3_reset(raw)  // repeats the step's code, checked above
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql())
        }
        _ = sqlite3_reset(raw)  // repeats the step's code, checked above
    }

    /// Binds a statement's parameters in order. Text and blobs are copied into `scratch`,
    /// which outlives the step, and bound without a copy of SQLite's own.
    struct Binder {
        let statement: OpaquePointer
        private let scratch: UnsafeMutableRawBufferPointer
        private var used = 0
        private var index: Int32 = 0
        /// The first bind that failed (SQLite's result code): the statement is not run.
        private(set) var failure: Int32?

        private mutating func check(_ code: Int32) {
            if code != SQLITE_OK, failure == nil { failure = code }
        }

        init(statement: OpaquePointer, scratch: UnsafeMutableRawBufferPointer) {
            self.statement = statement
            self.scratch = scratch
        }

        private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        private static let isStatic = unsafeBitCast(OpaquePointer(bitPattern: 0), to: sqlite3_destructor_type.self)
        private static let empty: StaticString = ""

        /// `bytes` copied into the scratch space, if they fit: the copy's address.
        private mutating func stash(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
            guard let base = bytes.baseAddress, bytes.count <= scratch.count - used else { return nil }
            let copy = scratch.baseAddress! + used
            copy.copyMemory(from: base, byteCount: bytes.count)
            used += bytes.count
            return UnsafeRawPointer(copy)
        }

        mutating func callAsFunction(_ value: Int64?) {
            index += 1
            check(value.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index))
        }

        mutating func callAsFunction(_ value: String?) {
            index += 1
            guard var value else { return check(sqlite3_bind_null(statement, index)) }
            let code = value.withUTF8 { text -> Int32 in
                guard let length = Int32(exactly: text.count) else { return SQLITE_TOOBIG }
                if let copy = stash(UnsafeRawBufferPointer(text)) {
                    return sqlite3_bind_text(statement, index, copy.assumingMemoryBound(to: CChar.self), length, Self.isStatic)
                }
                // A nil pointer would bind NULL: an empty string needs a real one.
                let base = text.baseAddress ?? UnsafePointer(Self.empty.utf8Start)
                return base.withMemoryRebound(to: CChar.self, capacity: max(text.count, 1)) {
                    sqlite3_bind_text(statement, index, $0, length, Self.transient)
                }
            }
            check(code)
        }

        mutating func callAsFunction(_ value: Double?) {
            index += 1
            check(value.map { sqlite3_bind_double(statement, index, $0) } ?? sqlite3_bind_null(statement, index))
        }

        mutating func callAsFunction(bytes: [UInt8]) {
            index += 1
            let code = bytes.withUnsafeBytes { raw -> Int32 in
                guard let length = Int32(exactly: raw.count) else { return SQLITE_TOOBIG }
                if raw.count > 0, let copy = stash(raw) {
                    return sqlite3_bind_blob(statement, index, copy, length, Self.isStatic)
                } else if let base = raw.baseAddress, raw.count > 0 {
                    return sqlite3_bind_blob(statement, index, base, length, Self.transient)
                }
                return sqlite3_bind_zeroblob(statement, index, 0)  // a nil pointer would bind NULL
            }
            check(code)
        }
    }
}
