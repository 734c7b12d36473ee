import Foundation
import GRDB
import SilentPushCore
import Synchronization

/// The durable record of pushes, wakes and device state: SQLite through GRDB (a file in WAL
/// mode, or memory), or PostgreSQL through postgres-nio.
///
/// Writes are group-committed: callers hand over their changes and a completion; one
/// writer commits everything that gathered meanwhile in a single transaction and then calls
/// every completion. A push answered 200 after its completion is on disk, and durability
/// costs latency (one commit), not throughput (one commit per batch, not per push).
package final class PushStore: Sendable {
    /// Where the database lives.
    package enum Location: Sendable, Equatable {
        /// A SQLite file (created with its directory when missing).
        case file(String)
        /// In memory, gone with the process (`--store memory`, tests).
        case memory
        /// A PostgreSQL database (`--store postgres://…`), migrated when empty.
        case postgres(PostgresURL)
    }

    /// Called once a write is committed, or failed.
    package typealias Completion = @Sendable (Result<Void, any Error>) -> Void

    /// What holds the records.
    let engine: any StoreEngine
    /// What the reads run on: the engine.
    var reader: any StoreReader { engine }
    let writer: StoreWriter
    /// Where content bodies are kept: the file store's `-contents/` (`contentsDirectory(ofStore:)`);
    /// nil in memory and in PostgreSQL (a table there).
    private let contentsDirectory: String?
    private let memoryContents = Mutex<[String: (body: [UInt8], savedAt: Int64)]>([:])
    /// Bodies a content row stopped naming (its URL's body changed, or its device was
    /// forgotten): deleted by `dropSupersededContents` once no row names them.
    private let supersededContents = Mutex<Set<String>>([])
    /// The file store's owner lock, held while this store is open.
    private let lock: StoreLock?
    /// When the last probe started (`DispatchTime` nanoseconds), so pushes refused while
    /// the store cannot be written start at most one probe a second.
    let lastProbe = Atomic<UInt64>(0)

    /// Where `open(_:fresh:)` moved the previous store's database file; nil when it moved none.
    package let setAside: String?
    /// Where background transfers' files are kept: the file store's `-contents/transfers/`;
    /// for a memory store, a directory of its own under the system's temporary directory;
    /// for PostgreSQL, one under it named after the database (a transfer's bytes are the
    /// device's, local to the receiver that runs it).
    package let transfersDirectory: String
    private let removesTransfersDirectory: Bool

    private init(engine: any StoreEngine, contentsDirectory: String?, transfersDirectory: String?, lock: StoreLock?, setAside: String?) {
        self.setAside = setAside
        self.engine = engine
        writer = StoreWriter(engine: engine)
        self.contentsDirectory = contentsDirectory
        self.lock = lock
        removesTransfersDirectory = transfersDirectory == nil
        self.transfersDirectory =
            transfersDirectory
            ?? (FileManager.default.temporaryDirectory.path + "/silentpush-transfers-" + UUID().uuidString.lowercased())
    }

    deinit {
        removeOwnTransfersDirectory()  // also when it was never closed
    }

    /// A memory store's transfer files go with it: its directory is its own.
    private func removeOwnTransfersDirectory() {
        if removesTransfersDirectory { try? FileManager.default.removeItem(atPath: transfersDirectory) }
    }

    /// Opens (and migrates) the store; throws a message naming the path (a URL without its
    /// password) when it cannot, or when another process has it open as its store. `fresh`
    /// starts the store empty: a file store's previous one (database, WAL and contents) is
    /// renamed aside with a timestamp, once this process holds the store's lock; a PostgreSQL
    /// store's tables are emptied.
    package static func open(_ location: Location, fresh: Bool = false) async throws -> PushStore {
        try await open(location, fresh: fresh, clustered: false)
    }

    /// Opens the store as `open(_:fresh:)` does; `clustered` (PostgreSQL only): as one of a
    /// cluster's receivers, which share the database (`joinCluster` joins it).
    package static func open(_ location: Location, fresh: Bool = false, clustered: Bool) async throws -> PushStore {
        if case .postgres(let url) = location {
            let engine = try await PostgresEngine.open(url, clustered: clustered, fresh: fresh)
            let name = "\(url.host)-\(url.port)-\(url.database)".map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
            let transfers = FileManager.default.temporaryDirectory.path + "/silentpush-transfers-" + String(name)
            // Emptied, its transfer ids start again from 1: no file of the old ones may be
            // taken for a new one's part kept.
            if fresh { try? FileManager.default.removeItem(atPath: transfers) }
            return PushStore(engine: engine, contentsDirectory: nil, transfersDirectory: transfers, lock: nil, setAside: nil)
        }
        return try openSQLite(location, fresh: fresh)
    }

    /// Opens a SQLite store (a file, or memory) without waiting: for callers that cannot.
    package static func openSQLite(_ location: Location, fresh: Bool = false) throws -> PushStore {
        let database: any DatabaseWriter
        var checkpointer: DatabaseQueue?
        var lock: StoreLock?
        var setAside: String?
        var existed = false
        switch location {
        case .memory:
            database = try DatabaseQueue()
        case .file(let path):
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw PushStoreError.cannotOpen(
                    path: path, reason: "cannot create the directory '\(directory.path)' (\(Self.plainReason(error)))")
            }
            lock = try StoreLock.acquire(beside: path)
            if fresh {
                // The old store's own files go aside with it (a store of an earlier version
                // takes the shared ones first).
                try Self.makeContentsDirectory(ofStore: path, existed: FileManager.default.fileExists(atPath: path))
                setAside = try Self.setAside(path)
            }
            existed = FileManager.default.fileExists(atPath: path)
            do {
                var configuration = Configuration()
                // A connection that finds the file locked waits instead of failing at once. The
                // lock is ours: a store dropped just before (its last connection checkpoints and
                // removes the WAL under an exclusive lock as it closes), or a checkpoint.
                configuration.busyMode = .timeout(Double(SQLiteEngine.busyTimeoutMilliseconds) / 1000)
                // WAL with synchronous=NORMAL: a commit is in the log before it returns, so a
                // killed process loses nothing it answered (a power cut may lose the last ones).
                configuration.prepareDatabase { db in
                    // Checkpoints run on their own connection (below), not in a commit.
                    try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0")
                    // A WAL that grew during a burst (or a pruning pass) shrinks back to 64 MiB
                    // when it next starts over.
                    try db.execute(sql: "PRAGMA journal_size_limit = 67108864")
                    // The writer's page cache holds the indexes' hot pages, which the default
                    // 2 MB did not; readers keep the default.
                    if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -4000") }
                }
                database = try DatabasePool(path: path, configuration: configuration)
                checkpointer = try DatabaseQueue(path: path, configuration: configuration)
            } catch {
                throw PushStoreError.cannotOpen(path: path, reason: "\(error)")
            }
        case .postgres(let url):
            throw PushStoreError.cannotOpen(path: url.description, reason: "not a SQLite store")
        }
        // A store a newer version migrated further is refused, as on PostgreSQL; a damaged one
        // names its path.
        let path: String = if case .file(let path) = location { path } else { "memory" }
        do {
            let superseded = try database.read { db in
                try Self.migrator.hasBeenSuperseded(db) ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") ?? 0 : nil
            }
            // Versions count migrations, as PostgreSQL's `schema_version` does (v1… vN).
            if let found = superseded { throw PushStoreError.newerSchema(path: path, found: found, supported: Self.migrator.migrations.count) }
            if case .file = location { try Self.useIncrementalVacuum(database) }
            try Self.migrator.migrate(database)
        } catch let error as PushStoreError {
            throw error
        } catch {
            throw PushStoreError.cannotOpen(path: path, reason: "\(error)")
        }
        var contentsDirectory: String?
        if case .file(let path) = location {
            // Once the store is known to be one this version reads.
            try Self.makeContentsDirectory(ofStore: path, existed: existed)
            contentsDirectory = Self.contentsDirectory(ofStore: path)
        }
        return PushStore(
            engine: SQLiteEngine(database: database, checkpointer: checkpointer), contentsDirectory: contentsDirectory,
            transfersDirectory: contentsDirectory.map { $0 + "/transfers" }, lock: lock, setAside: setAside)
    }

    /// Where the file store at `path` keeps its content bodies and its transfers' files:
    /// `path-contents/`, its own, as its `-wal` is (two stores in one directory share nothing).
    package static func contentsDirectory(ofStore path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path + "-contents"
    }

    /// Where earlier versions kept them: `contents/` beside the store, one for every store in
    /// the directory.
    static func sharedContentsDirectory(ofStore path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("contents").path
    }

    /// Makes the store's own directory, made with it from this version on. A store of an
    /// earlier version (one that `existed` before this opening, with no directory of its
    /// own) takes the shared `contents/` of before: moved, when no other store (a lock file
    /// whose store file is there) is beside it; else shared as a copy of its own, so each
    /// store keeps what its rows name (its sweeps delete the rest of its copy) and the other
    /// store still finds them there. The copy is made aside and renamed into place whole: a
    /// failure halfway leaves no directory that a later opening would take as complete.
    private static func makeContentsDirectory(ofStore path: String, existed: Bool) throws {
        let manager = FileManager.default
        let own = contentsDirectory(ofStore: path), shared = sharedContentsDirectory(ofStore: path)
        guard !manager.fileExists(atPath: own) else { return }
        let partial = own + ".partial"
        do {
            if existed, manager.fileExists(atPath: shared) {
                let directory = URL(fileURLWithPath: shared).deletingLastPathComponent().path
                let lock = URL(fileURLWithPath: own.dropLast("-contents".count) + ".lock").lastPathComponent
                let others = try manager.contentsOfDirectory(atPath: directory).filter { name in
                    name.hasSuffix(".lock") && name != lock && manager.fileExists(atPath: directory + "/" + name.dropLast(".lock".count))
                }
                if others.isEmpty {
                    try manager.moveItem(atPath: shared, toPath: own)
                    return
                }
                try? manager.removeItem(atPath: partial)
                try share(shared, into: partial, copying: false)
                try manager.moveItem(atPath: partial, toPath: own)
            } else {
                try manager.createDirectory(atPath: own, withIntermediateDirectories: true)
            }
        } catch {
            try? manager.removeItem(atPath: partial)
            throw PushStoreError.cannotOpen(path: path, reason: "cannot make its contents directory '\(own)' (\(plainReason(error)))")
        }
    }

    /// Makes `destination` a directory holding each file under `source`: a hard link to a
    /// body (named by its content, never written again), a copy where the link cannot be
    /// made and under `transfers/` (a transfer's part grows in place: two stores' would be
    /// one file). A symbolic link is not followed, nor kept.
    private static func share(_ source: String, into destination: String, copying: Bool) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: source) {
            let from = source + "/" + name, to = destination + "/" + name
            switch try manager.attributesOfItem(atPath: from)[.type] as? FileAttributeType {
            case .typeDirectory?: try share(from, into: to, copying: copying || name == "transfers")
            case .typeRegular? where !copying && (try? manager.linkItem(atPath: from, toPath: to)) != nil: break
            case .typeRegular?: try manager.copyItem(atPath: from, toPath: to)
            default: break
            }
        }
    }

    /// Renames the store at `path` (with its `-wal`, `-shm` and `-contents/`) to
    /// `path.YYYYMMDD-HHMMSS` (and the same suffixes); returns the new database path, or nil
    /// when there was no store.
    private static func setAside(_ path: String) throws -> String? {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        var aside = path + "." + formatter.string(from: Date())
        var attempt = 1
        while manager.fileExists(atPath: aside) {
            attempt += 1
            aside = path + "." + formatter.string(from: Date()) + "-\(attempt)"
        }
        let moves = [
            (path, aside), (path + "-wal", aside + "-wal"), (path + "-shm", aside + "-shm"),
            (contentsDirectory(ofStore: path), contentsDirectory(ofStore: aside)),
        ]
        do {
            for (from, to) in moves where manager.fileExists(atPath: from) { try manager.moveItem(atPath: from, toPath: to) }
        } catch {
            throw PushStoreError.cannotOpen(path: path, reason: "cannot set the old store aside as '\(aside)' (\(plainReason(error)))")
        }
        return aside
    }

    /// Pruned pages go back to the file system (`PRAGMA incremental_vacuum`) only in a
    /// database made with incremental auto-vacuum: a store is rewritten once (VACUUM) to
    /// become so, when new or made by an earlier version.
    private static func useIncrementalVacuum(_ database: any DatabaseWriter) throws {
        try database.writeWithoutTransaction { db in
            guard try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 else { return }
            // In WAL mode the setting takes effect only through VACUUM, even in a new file.
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL; VACUUM")
        }
    }

    /// Transactions committed so far (each may carry many writes).
    package var commitCount: Int { writer.commitCount }

    /// Transactions the writer has ended (committed or failed): pass it to
    /// `waitForTransaction(after:)`.
    package var transactionsEnded: Int { writer.commitWatch.count }

    /// Returns once more than `count` transactions have ended (see `transactionsEnded`), or
    /// the task is cancelled: a reader waits for new records without polling.
    package func waitForTransaction(after count: Int) async {
        await writer.commitWatch.wait(after: count)
    }

    /// Writes queued from now until the matching `releaseCommits()` are committed together:
    /// an idle writer waits for the release, or for `heldCommitLimit` writes, to start their
    /// commit. Holds may overlap (one per thread queueing a batch); each release starts the
    /// commit of everything queued. Hold only while queueing a batch.
    package func holdCommits() { writer.hold() }

    /// Ends a `holdCommits()`, starting the commit of what waits.
    package func releaseCommits() { writer.release() }

    /// The most writes a hold keeps from an idle writer.
    package static var heldCommitLimit: Int { StoreWriter.heldBatch }

    /// Queues `changes`; `completion` runs on the writer once they are committed.
    package func write(_ changes: [StoreChange], completion: @escaping Completion) {
        writer.enqueue(changes, completion: completion)
    }

    /// What `queue(_:completion:)` leaves for `start(_:)`.
    package enum Queued {
        /// Joined a commit already under way or held: nothing to do.
        case joined
        /// The writer was idle: its drain starts.
        case startsDrain
        /// The store is closed: the completion is failed.
        case refused(Completion)
    }

    /// Queues `changes` under the caller's own lock, so writes reach the store in the order
    /// the caller decided them; the caller passes the answer to `start(_:)` once it has
    /// released that lock (which is where a drain is started or a refusal reported).
    package func queue(_ changes: [StoreChange], completion: @escaping Completion) -> Queued {
        writer.add(changes, completion: completion)
    }

    /// Carries out what `queue(_:completion:)` left.
    package func start(_ queued: Queued) {
        writer.start(queued)
    }

    /// Writes `changes` and returns once they are committed.
    package func write(_ changes: [StoreChange]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writer.enqueue(changes) { continuation.resume(with: $0) }
        }
    }

    /// Returns once every change queued before the call is committed (or has failed).
    package func flush() async throws {
        try await write([])
    }

    /// Commits what is queued and closes the database; later writes fail, and so do reads.
    /// A receiver closes its store when it stops, so the file can be opened again at once.
    package func close() async throws {
        removeOwnTransfersDirectory()
        defer { lock?.release() }
        try await writer.close()
    }

    /// Gives up on a store that no longer answers (a PostgreSQL server stopped, or behind a
    /// network gone silent): every call waiting on it fails now (a batch's commit, and so a
    /// flush; a read), and so does every later one, which leaves `close()` nothing to wait for.
    /// A SQLite store runs on this process's own threads: nothing there is cut short.
    package func abandon() {
        engine.abandon()
    }

    /// How long a PostgreSQL store's batch may go unanswered before the server is asked
    /// whether it is running it (and as long again for its answer), after which the batch is
    /// given up (`PushStoreError.unanswered`).
    package static var postgresBatchWatch: Duration { PostgresEngine.batchWatch }

    /// How long opening a PostgreSQL reader's session may take before its read is given up
    /// (`PushStoreError.readUnanswered`).
    package static var postgresReaderOpenWatch: Duration { PostgresEngine.readerOpenWatch }

    /// How many sessions a PostgreSQL store holds open with its server (0 for SQLite).
    package var openPostgresSessions: Int { (engine as? PostgresEngine)?.openSessionCount ?? 0 }

    /// Whether `abandon()` was called: what fails from then on failed because of it.
    package var wasAbandoned: Bool { engine.wasAbandoned }

    // MARK: Content files

    /// Keeps `body` under its SHA-256 (lower-case hex): a file in the store's `-contents/` beside the
    /// database, written whole then renamed; in memory for a memory store; a row for PostgreSQL.
    /// A body saved again (already there) is marked saved now, so it is not deleted as the
    /// fetch that saved it writes the row naming it.
    package func saveContent(_ body: [UInt8], sha256: String) async throws {
        let now = Self.realTimeMilliseconds()
        if engine is PostgresEngine {
            _ = try await engine.execute([
                StoreStatement(
                    "INSERT INTO content_bodies (sha256, body, saved_at) VALUES (?, ?, ?) ON CONFLICT(sha256) DO UPDATE SET saved_at = excluded.saved_at",
                    [sha256, body, now])
            ])
            return
        }
        guard let directory = contentsDirectory else {
            memoryContents.withLock { $0[sha256] = (body, now) }
            return
        }
        let path = directory + "/" + sha256
        if FileManager.default.fileExists(atPath: path) {  // content-addressed: already there
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
            return
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = path + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try Data(body).write(to: URL(fileURLWithPath: temporary))
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }

    /// A content row stopped naming the body saved under `sha256`: it goes once no row names
    /// it (`dropSupersededContents`).
    package func contentSuperseded(sha256: String) {
        supersededContents.withLock { _ = $0.insert(sha256) }
    }

    /// Deletes the superseded bodies no content row names and no fetch saved within `grace`
    /// (real time: the fetch that saved one writes the row naming it just after); one saved
    /// since stays a candidate. Returns how many went.
    package func dropSupersededContents(grace: Duration = .seconds(60)) async throws -> Int {
        let candidates = supersededContents.withLock { $0 }
        let cutoff = Self.realTimeMilliseconds() - grace.nanosecondCount / 1_000_000
        var dropped = 0
        for sha256 in candidates.sorted() {
            let looked = try await dropIfUnnamed(sha256, savedBefore: cutoff)
            if looked == .deleted { dropped += 1 }
            if looked != .savedRecently { supersededContents.withLock { _ = $0.remove(sha256) } }
        }
        return dropped
    }

    /// Deletes every body no content row names and no fetch saved within `grace`, not only
    /// the candidates this process saw superseded: what a restart or another receiver left.
    /// It reads every body's name, so it runs seldom. Returns how many went.
    package func dropUnnamedContents(grace: Duration = .seconds(60)) async throws -> Int {
        let cutoff = Self.realTimeMilliseconds() - grace.nanosecondCount / 1_000_000
        if engine is PostgresEngine {
            return try await engine.execute([
                StoreStatement(
                    """
                    DELETE FROM content_bodies
                    WHERE saved_at < ? AND NOT EXISTS (SELECT 1 FROM contents WHERE contents.sha256 = content_bodies.sha256)
                    """, [cutoff])
            ]).first ?? 0
        }
        let names =
            contentsDirectory.map { ((try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? []).filter(Self.isBodyName) }
            ?? memoryContents.withLock { Array($0.keys) }
        var dropped = 0
        for sha256 in names where try await dropIfUnnamed(sha256, savedBefore: cutoff) == .deleted { dropped += 1 }
        return dropped
    }

    /// What became of a body looked at for deletion.
    private enum BodyLook: Equatable {
        /// A content row names it: it stays.
        case named
        /// A fetch saved it at or after the cutoff: it stays, for that fetch's row.
        case savedRecently
        /// Deleted now.
        case deleted
        /// Not there.
        case gone
    }

    /// Deletes the body under `sha256` when no content row names it and no fetch saved it
    /// since `cutoff` (ms of real time), in whichever place the store keeps bodies. The row
    /// is looked for first, so a fetch saving it meanwhile makes it recent.
    private func dropIfUnnamed(_ sha256: String, savedBefore cutoff: Int64) async throws -> BodyLook {
        if try await !reader.rows("SELECT 1 AS named FROM contents WHERE sha256 = ? LIMIT 1", [sha256], cached: true).isEmpty {
            return .named
        }
        if engine is PostgresEngine {
            let changed = try await engine.execute([
                StoreStatement(
                    "DELETE FROM content_bodies WHERE sha256 = ? AND saved_at < ? AND NOT EXISTS (SELECT 1 FROM contents WHERE sha256 = ?)",
                    [sha256, cutoff, sha256])
            ])
            if changed.first == 1 { return .deleted }
            let kept = try await reader.rows("SELECT 1 AS kept FROM content_bodies WHERE sha256 = ?", [sha256], cached: true)
            return kept.isEmpty ? .gone : .savedRecently
        }
        guard let directory = contentsDirectory else {
            return memoryContents.withLock { contents in
                guard let saved = contents[sha256]?.savedAt else { return .gone }
                guard saved < cutoff else { return .savedRecently }
                contents[sha256] = nil
                return .deleted
            }
        }
        let path = directory + "/" + sha256
        guard let saved = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return .gone }
        // Compared as a Double: a file system may hold any date, past what Int64 ms can say.
        guard saved.timeIntervalSince1970 * 1000 < Double(cutoff) else { return .savedRecently }
        return (try? FileManager.default.removeItem(atPath: path)) != nil ? .deleted : .gone
    }

    /// Whether `name` is a body's file name: a SHA-256 in lower-case hex.
    private static func isBodyName(_ name: String) -> Bool {
        name.utf8.count == 64 && isLowerHex(name)
    }

    private static func isLowerHex(_ text: String) -> Bool {
        text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    private static func realTimeMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The body saved under `sha256`, if any.
    package func contentBody(sha256: String) async throws -> [UInt8]? {
        if engine is PostgresEngine {
            let rows = try await reader.rows("SELECT body FROM content_bodies WHERE sha256 = ?", [sha256])
            return rows.first.map { $0["body"] }
        }
        guard let directory = contentsDirectory else { return memoryContents.withLock { $0[sha256]?.body } }
        guard Self.isLowerHex(sha256) else { return nil }
        return FileManager.default.contents(atPath: directory + "/" + sha256).map(Array.init)
    }
}

extension PushStore {
    /// The ids a receiver gives out stay below this, so numbering on from any stored one
    /// cannot overflow (a cluster's blocks of 2^28 included).
    package static let idCeiling: Int64 = 1 << 62

    /// The largest id each of `tables` gave out (0 for none): the largest it holds, or
    /// the largest it held before deletes took its newest rows (`recordingIDFloor(of:)`),
    /// read in one snapshot, so a restarted receiver numbers on from there and gives no id
    /// twice. One outside the ids a receiver gives out throws `idOutOfRange`.
    func lastIDs(of tables: [String]) async throws -> [UInt64] {
        let read = try await reader.snapshot(
            tables.map { table in
                StoreStatement("SELECT MAX(id) AS id, (SELECT last_id FROM id_floors WHERE name = ?) AS floor FROM \(table)", [table])
            })
        return try zip(tables, read).map { table, rows in
            let ids: [Int64] = [rows.first?["id"] ?? 0, rows.first?["floor"] ?? 0]
            if let outside = ids.first(where: { $0 < 0 || $0 >= Self.idCeiling }) {
                throw PushStoreError.idOutOfRange(table: table, id: outside)
            }
            return UInt64(ids.max() ?? 0)
        }
    }

    /// The tables whose ids a receiver gives out and a restart numbers on from.
    static let numberedTables = ["pushes", "wakes", "task_requests", "task_runs", "transfers", "broadcasts"]

    /// Records `table`'s largest id in `id_floors` (when it holds a row, and when that is
    /// larger than the one recorded): run in the transaction that deletes from it, before
    /// the deletes, so ids number on past the rows deleted.
    static func recordingIDFloor(of table: String) -> StoreStatement {
        StoreStatement(
            """
            INSERT INTO id_floors (name, last_id) SELECT ?, (SELECT MAX(id) FROM \(table)) WHERE EXISTS (SELECT 1 FROM \(table))
            ON CONFLICT (name) DO UPDATE SET last_id = CASE WHEN excluded.last_id > id_floors.last_id THEN excluded.last_id ELSE id_floors.last_id END
            """, [table])
    }

    /// A store error in words for a log line: PostgreSQL's own message, or the system's,
    /// rather than postgres-nio's generic text (and never the password).
    package static func describe(_ error: any Error) -> String {
        PostgresEngine.reason(error)
    }

    /// A file error as the system says it ("No such file or directory"), not as Foundation
    /// wraps it (`NSCocoaErrorDomain Code=4 …`).
    package static func plainReason(_ error: any Error) -> String {
        let wrapped = error as NSError
        // On Linux the underlying error is a Swift error that `as? NSError` does not bridge.
        let posix = wrapped.domain == NSPOSIXErrorDomain ? wrapped : (wrapped.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        if let posix, posix.domain == NSPOSIXErrorDomain, let code = Int32(exactly: posix.code) { return String(cString: strerror(code)) }
        return wrapped.localizedDescription
    }
}
