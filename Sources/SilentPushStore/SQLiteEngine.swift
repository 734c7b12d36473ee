import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The records in SQLite through GRDB: a file (WAL, readers beside the writer) or memory.
/// Batches commit on GRDB's serial writer, the hot changes through `StoreStatements`' own
/// prepared statements. A file store also checkpoints the WAL on a second connection beside
/// the writer, so the writer never stops for it (nor for its fsync).
final class SQLiteEngine: StoreEngine {
    let database: any DatabaseWriter
    private let checkpointer: DatabaseQueue?
    private let statements = StoreStatements()
    private let checkpointing = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let abandoned = Atomic<Bool>(false)
    /// The WAL's length in frames at the last checkpoint. A WAL written while checkpoints
    /// run beside it may never start over; past `walLimit` the writer checkpoints itself
    /// between transactions, when nothing can append, so the file stays bounded.
    private let walFrames = Atomic<Int>(0)
    /// Commits between background checkpoints: a page rewritten by many commits (the
    /// table's last pages) is copied once per checkpoint, and each checkpoint ends in an fsync.
    private static let checkpointEvery = 128
    private static let walLimit = 16_000

    init(database: any DatabaseWriter, checkpointer: DatabaseQueue?) {
        self.database = database
        self.checkpointer = checkpointer
    }

    // MARK: Reads

    func rows(_ statement: StoreStatement, cached: Bool) async throws -> [StoreRow] {
        try checkOpen()
        return try await database.read { db in try Self.rows(statement, cached: cached, db) }
    }

    func snapshot(_ statements: [StoreStatement]) async throws -> [[StoreRow]] {
        try checkOpen()
        return try await database.read { db in try statements.map { try Self.rows($0, cached: true, db) } }
    }

    /// GRDB uses a closed connection's null handle (a crash): a read or write after `close()`
    /// is refused first.
    private func checkOpen() throws {
        if closed.load(ordering: .acquiring) { throw PushStoreError.closed }
    }

    private static func rows(_ statement: StoreStatement, cached: Bool, _ db: Database) throws -> [StoreRow] {
        let prepared = cached ? try db.cachedStatement(sql: statement.sql) : try db.makeStatement(sql: statement.sql)
        let columns = StoreColumns(prepared.columnNames)
        // Row by row off a cursor, so no array of GRDB's rows sits beside ours: a large read
        // (a restart reads every pending push) holds one copy at its peak.
        let cursor = try Row.fetchCursor(prepared, arguments: statement.databaseArguments)
        var rows: [StoreRow] = []
        while let row = try cursor.next() {
            rows.append(StoreRow(columns: columns, values: row.databaseValues.map(StoreValue.init)))
        }
        return rows
    }

    // MARK: Writes

    func startDrain(of writer: StoreWriter) {
        database.asyncWriteWithoutTransaction { db in self.drain(writer, db) }
    }

    private func drain(_ writer: StoreWriter, _ db: Database) {
        var started = false
        while let batch = writer.nextBatch(&started) {
            let result: Result<Void, any Error>
            do {
                try statements.inTransaction(db) { try statements.apply(batch, db) }
                result = .success(())
            } catch {
                result = .failure(error)
            }
            writer.finish(batch, result)
            guard case .success = result else { continue }
            if writer.commitCount % Self.checkpointEvery == 0 { checkpointInBackground() }
            if walFrames.load(ordering: .relaxed) > Self.walLimit { checkpointNow(db) }
        }
    }

    func execute(_ statements: [StoreStatement]) async throws -> [Int] {
        try checkOpen()
        return try await database.write { db in
            try statements.map { statement in
                try db.cachedStatement(sql: statement.sql).execute(arguments: statement.databaseArguments)
                return db.changesCount
            }
        }
    }

    /// The statements the writer's connection holds prepared: GRDB keeps every text it ran
    /// through `cachedStatement`, for the connection's life.
    func preparedStatementCount() async throws -> Int {
        try await database.writeWithoutTransaction { db in
            var count = 0
            var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
            while let current = statement {
                count += 1
                statement = sqlite3_next_stmt(db.sqliteConnection, current)
            }
            return count
        }
    }

    private func finalizeStatements() {
        database.writeWithoutTransaction { _ in statements.finalize() }
    }

    func close() async throws {
        // The writer runs one block at a time: this one runs after the last drain. Its
        // prepared statements go first: SQLite will not close a connection that has any.
        // Synchronous: a close from a cancelled task (a sibling service failed) still closes,
        // where GRDB's async form would throw CancellationError and leave the file open.
        closed.store(true, ordering: .releasing)
        finalizeStatements()
        try checkpointer?.close()
        try database.close()
    }

    /// Cuts nothing short: SQLite runs on this process's own threads, a statement at a time,
    /// and a file system that stops answering cannot be cut short from here. Only says so
    /// (`wasAbandoned`).
    func abandon() {
        abandoned.store(true, ordering: .releasing)
    }

    var wasAbandoned: Bool { abandoned.load(ordering: .acquiring) }

    // MARK: Space

    func size() async throws -> Int {
        try checkOpen()
        return try await database.read { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return pages * size
        }
    }

    /// Gives free pages back (incremental auto-vacuum), but only while more than an eighth
    /// of the file is free: SQLite reuses free pages for new rows, so a store pruned as fast
    /// as it grows needs no vacuum (moving pages costs as much as writing them); one that
    /// shrank, after a burst or a lower retention, gives the space back.
    func vacuumIncrementally(pages: Int) async throws -> Int {
        try checkOpen()
        return try await database.writeWithoutTransaction { db in
            func excess() throws -> Int {
                let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                let total = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                return free - total / 8
            }
            let before = try excess()
            guard before > 0 else { return 0 }
            try db.execute(sql: "PRAGMA incremental_vacuum(\(min(max(1, pages), before)))")
            let after = try excess()
            return after < before ? max(after, 0) : 0
        }
    }

    /// How long a connection that finds the file locked waits before it fails.
    static let busyTimeoutMilliseconds = 5000

    /// Copies the WAL into the database beside the writer, then cuts the file back to nothing
    /// between two commits on the writer itself (a TRUNCATE checkpoint on another connection
    /// would hold the write lock and fail the commits meanwhile): after a pruning pass whose
    /// large WAL no further commit may come to reset. The cut is tried once, with no wait: it
    /// needs every reader gone, and waiting for an export's reads held every commit behind it
    /// for seconds; a WAL not cut now is reused from its start all the same.
    func checkpoint() async {
        guard let checkpointer, !closed.load(ordering: .acquiring), !checkpointing.exchange(true, ordering: .acquiring) else { return }
        _ = try? await checkpointer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        checkpointing.store(false, ordering: .releasing)
        _ = try? await database.writeWithoutTransaction { db in
            try? db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)") }
            if (try? db.checkpoint(.truncate)) != nil { self.walFrames.store(0, ordering: .relaxed) }
        }
    }

    private func checkpointInBackground() {
        guard let checkpointer, !checkpointing.exchange(true, ordering: .acquiring) else { return }
        checkpointer.asyncWriteWithoutTransaction { db in
            if let frames = try? db.checkpoint(.passive) {
                self.walFrames.store(frames.walFrameCount, ordering: .relaxed)
            }
            self.checkpointing.store(false, ordering: .releasing)
        }
    }

    /// Between transactions: every frame is copied, and the next transaction starts the WAL over.
    private func checkpointNow(_ db: Database) {
        guard checkpointer != nil else { return }
        if (try? db.checkpoint(.passive)) != nil { walFrames.store(0, ordering: .relaxed) }
    }
}
