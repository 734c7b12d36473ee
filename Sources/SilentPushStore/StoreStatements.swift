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
            try run(&setFate, db, StoreChange.setFateSQL) { bind in
                bind(stored.kind.rawValue)
                bind(stored.wakeID)
                bind(stored.reason)
                bind(generation.map { Int64($0) })
                bind(Int64(bitPattern: push))
            }
        case .insertWake(let wake):
            try run(&insertWake, db, StoreChange.insertWakeSQL) { bind in
                bind(Int64(bitPattern: wake.id))
                bind(wake.deviceToken)
                bind(wake.topic)
                bind(Int64(bitPattern: wake.pushID))
                bind(Int64(wake.generation))
                bind(wake.startedAt.millisecondsSinceEpoch)
                bind(wake.deadline.millisecondsSinceEpoch)
                bind(wake.finishedAt?.millisecondsSinceEpoch)
                let stored = StoredResult.columns(wake.result)
                bind(stored.result)
                bind(stored.reason)
                bind(wake.kind.rawValue)
            }
        case .finishWake(let id, let finishedAt, let result):
            try run(&finishWake, db, StoreChange.finishWakeSQL) { bind in
                bind(finishedAt)
                let stored = StoredResult(result)
                bind(stored.result)
                bind(stored.reason)
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

    /// Inserts `count` pushes from `first` on in one statement.
    private func insertPushes(_ count: Int, from first: Position, in batch: [StoreWriter.Entry], _ db: Database) throws {
        guard count > 0 else { return }
        try run(&insertPushes[count - 1], db, StoreChange.insertPushesSQL(rows: count)) { bind in
            Self.forEachPush(count, from: first, in: batch) { push in Self.bind(push, &bind) }
        }
    }

    /// Binds one push's row, in `pushColumns` order: `StoreChange.pushValues` without an
    /// array per push.
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
        bind(StoredFate.apnsStorage(heldAtAPNs: push.heldAtAPNs))
    }

    /// Applies a change the writer's prepared statements leave to GRDB: none that every
    /// push makes.
    private static func applyRare(_ change: StoreChange, _ db: Database) throws {
        for statement in change.statements {
            try db.cachedStatement(sql: statement.sql).execute(arguments: statement.databaseArguments)
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
