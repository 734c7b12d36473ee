import GRDB
import GRDBSQLite

/// The writer's statements for the changes every push makes, prepared once and bound
/// through SQLite's own API: no argument arrays and no cache lookup keyed by SQL text per
/// change (together a third of the writer's time before). Rarer changes go through GRDB.
///
/// Used only inside the writer's transactions: one connection, one thread at a time.
final class StoreStatements: @unchecked Sendable {
    private var insertPush: Statement?
    private var setFate: Statement?
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
    /// transactions parse `BEGIN` and `COMMIT` again each time (about 0.4 µs per push, more
    /// than the statement's work, at the commit sizes this writer sees).
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

    /// Applies one change in `db`'s open transaction.
    func apply(_ change: StoreChange, _ db: Database) throws {
        switch change {
        case .insertPush(let push):
            let (fate, wake, reason) = PushStore.columns(push.fate)
            try run(&insertPush, db, """
                INSERT INTO pushes (id, apns_id, device_token, topic, push_type, priority, received_at, expires_at,
                                    collapse_id, payload, warnings, fate, wake_id, reason, generation, replaced, apns_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """) { bind in
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
                bind(fate)
                bind(wake)
                bind(reason)
                bind(push.generation.map { Int64($0) })
                bind(push.replaced.map { Int64(bitPattern: $0) })
                bind(PushStore.indexedAPNsKey(push.apnsID, pushID: push.id))
            }
        case .setFate(let push, let fate, let generation):
            let (name, wake, reason) = PushStore.columns(fate)
            try run(&setFate, db, "UPDATE pushes SET fate = ?, wake_id = ?, reason = ?, generation = COALESCE(?, generation) WHERE id = ?") { bind in
                bind(name)
                bind(wake)
                bind(reason)
                bind(generation.map { Int64($0) })
                bind(Int64(bitPattern: push))
            }
        case .insertWake(let wake):
            try run(&insertWake, db, """
                INSERT INTO wakes (id, device_token, topic, push_id, generation, started_at, deadline, finished_at, result, reason)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """) { bind in
                bind(Int64(bitPattern: wake.id))
                bind(wake.deviceToken)
                bind(wake.topic)
                bind(Int64(bitPattern: wake.pushID))
                bind(Int64(wake.generation))
                bind(wake.startedAt)
                bind(wake.deadline)
                bind(wake.finishedAt)
                bind(wake.result)
                bind(wake.reason)
            }
        case .finishWake(let id, let finishedAt, let result, let reason):
            try run(&finishWake, db, "UPDATE wakes SET finished_at = ?, result = ?, reason = ? WHERE id = ? AND result IS NULL") { bind in
                bind(finishedAt)
                bind(result)
                bind(reason)
                bind(Int64(bitPattern: id))
            }
        default:
            try PushStore.applyRare(change, db)
        }
    }

    private func run(_ slot: inout Statement?, _ db: Database, _ sql: String, bind: (inout Binder) -> Void) throws {
        let statement: Statement
        if let prepared = slot {
            statement = prepared
        } else {
            statement = try db.makeStatement(sql: sql)
            slot = statement
        }
        let raw = statement.sqliteStatement
        var binder = Binder(statement: raw, scratch: scratch)
        bind(&binder)
        let code = sqlite3_step(raw)
        if code != SQLITE_DONE {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(raw)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        sqlite3_reset(raw)
    }

    /// Binds a statement's parameters in order. Text and blobs are copied into `scratch`,
    /// which outlives the step, and bound without a copy of SQLite's own.
    struct Binder {
        let statement: OpaquePointer
        private let scratch: UnsafeMutableRawBufferPointer
        private var used = 0
        private var index: Int32 = 0

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
            if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
        }

        mutating func callAsFunction(_ value: String?) {
            index += 1
            guard var value else { sqlite3_bind_null(statement, index); return }
            value.withUTF8 { text in
                if let copy = stash(UnsafeRawBufferPointer(text)) {
                    _ = sqlite3_bind_text(statement, index, copy.assumingMemoryBound(to: CChar.self), Int32(text.count), Self.isStatic)
                    return
                }
                // A nil pointer would bind NULL: an empty string needs a real one.
                let base = text.baseAddress ?? UnsafePointer(Self.empty.utf8Start)
                base.withMemoryRebound(to: CChar.self, capacity: max(text.count, 1)) {
                    _ = sqlite3_bind_text(statement, index, $0, Int32(text.count), Self.transient)
                }
            }
        }

        mutating func callAsFunction(bytes: [UInt8]) {
            index += 1
            bytes.withUnsafeBytes { raw in
                if raw.count > 0, let copy = stash(raw) {
                    _ = sqlite3_bind_blob(statement, index, copy, Int32(raw.count), Self.isStatic)
                } else if let base = raw.baseAddress, raw.count > 0 {
                    _ = sqlite3_bind_blob(statement, index, base, Int32(raw.count), Self.transient)
                } else {
                    _ = sqlite3_bind_zeroblob(statement, index, 0)  // a nil pointer would bind NULL
                }
            }
        }
    }
}
