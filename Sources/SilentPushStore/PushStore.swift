import Foundation
import GRDB
import SilentPushCore
import Synchronization

/// The durable record of pushes, wakes and device state: SQLite through GRDB, a file (WAL)
/// or memory.
///
/// Writes are group-committed: callers hand over their changes and a completion; one
/// writer commits everything that gathered meanwhile in a single transaction and then calls
/// every completion. A push answered 200 after its completion is on disk, and durability
/// costs latency (one commit), not throughput (one commit per batch, not per push).
public final class PushStore: Sendable {
    /// Where the database lives.
    public enum Location: Sendable, Equatable {
        /// A SQLite file (created with its directory when missing).
        case file(String)
        /// In memory, gone with the process (`--store memory`, tests).
        case memory
    }

    /// Called once a write is committed, or failed.
    public typealias Completion = @Sendable (Result<Void, any Error>) -> Void

    private struct Queue: Sendable {
        var batch: [(changes: [StoreChange], completion: Completion)] = []
        var writing = false
    }

    private let database: any DatabaseWriter
    /// A second connection to a file store that copies the WAL into the database in the
    /// background, so the writer never stops for it (nor for its fsync).
    private let checkpointer: DatabaseQueue?
    private let checkpointQueue = DispatchQueue(label: "silentpush.store.checkpoint")
    private let checkpointing = Atomic<Bool>(false)
    /// The WAL's length in frames at the last checkpoint. A WAL written while checkpoints
    /// run beside it may never start over; past `walLimit` the writer checkpoints itself
    /// between transactions, which lets it (so the file stays bounded).
    private let walFrames = Atomic<Int>(0)
    /// Commits between background checkpoints. A page rewritten by many commits (the
    /// table's and indexes' last pages) is copied once per checkpoint, and each checkpoint
    /// ends in an fsync: every 128 commits wrote a fifth less than every 16 and cost about
    /// 10% less CPU per push.
    private static let checkpointEvery = 128
    private static let walLimit = 16_000
    private let queue = Mutex(Queue())
    private let writer = DispatchQueue(label: "silentpush.store.writer")
    private let commits = Atomic<Int>(0)
    private let statements = StoreStatements()
    /// Where content bodies are kept: `contents/` beside the database file; nil in memory.
    private let contentsDirectory: String?
    private let memoryContents = Mutex<[String: [UInt8]]>([:])
    /// The file store's owner lock, held while this store is open.
    private let lock: StoreLock?
    /// Whether the last commit succeeded (see `PushStore+Health.swift`).
    let writable = Atomic<Bool>(true)
    let writabilityObserver = Mutex<(@Sendable (_ writable: Bool, _ error: (any Error)?) -> Void)?>(nil)
    /// When the last probe started (`DispatchTime` nanoseconds), so pushes refused while
    /// the store cannot be written start at most one probe a second.
    let lastProbe = Atomic<UInt64>(0)

    private init(database: any DatabaseWriter, checkpointer: DatabaseQueue?, contentsDirectory: String?, lock: StoreLock?) {
        self.database = database
        self.checkpointer = checkpointer
        self.contentsDirectory = contentsDirectory
        self.lock = lock
    }

    /// Opens (and migrates) the store; throws a message naming the path when it cannot, or
    /// when another process has the file open as its store.
    public static func open(_ location: Location) throws -> PushStore {
        let database: any DatabaseWriter
        var checkpointer: DatabaseQueue?
        var lock: StoreLock?
        switch location {
        case .memory:
            database = try DatabaseQueue()
        case .file(let path):
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw PushStoreError(description: "cannot open the store '\(path)': \(error)")
            }
            lock = try StoreLock.acquire(beside: path)
            do {
                var configuration = Configuration()
                // WAL with synchronous=NORMAL: a commit is in the log before it returns, so a
                // killed process loses nothing it answered (a power cut may lose the last ones).
                configuration.prepareDatabase { db in
                    // Checkpoints run on their own connection (below), not in a commit.
                    try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0")
                    // The writer's page cache holds the indexes' hot pages (the default 2 MB
                    // made it re-read them); 4 MB kept the rate and resident memory; readers keep the default.
                    if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -4000") }
                }
                database = try DatabasePool(path: path, configuration: configuration)
                checkpointer = try DatabaseQueue(path: path, configuration: configuration)
            } catch {
                throw PushStoreError(description: "cannot open the store '\(path)': \(error)")
            }
        }
        try Self.migrator.migrate(database)
        var contentsDirectory: String?
        if case .file(let path) = location {
            contentsDirectory = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("contents").path
        }
        return PushStore(database: database, checkpointer: checkpointer, contentsDirectory: contentsDirectory, lock: lock)
    }

    /// Transactions committed so far (each may carry many writes).
    public var commitCount: Int { commits.load(ordering: .relaxed) }

    // MARK: Writes

    /// Queues `changes`; `completion` runs on the writer once they are committed.
    public func write(_ changes: [StoreChange], completion: @escaping Completion) {
        let start = queue.withLock { queue -> Bool in
            queue.batch.append((changes, completion))
            if queue.writing { return false }
            queue.writing = true
            return true
        }
        if start { writer.async { self.drain() } }
    }

    /// Writes `changes` and returns once they are committed.
    public func write(_ changes: [StoreChange]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            write(changes) { continuation.resume(with: $0) }
        }
    }

    /// Returns once every change queued before the call is committed (or has failed).
    public func flush() async throws {
        try await write([])
    }

    private func drain() {
        while true {
            let batch = queue.withLock { queue -> [(changes: [StoreChange], completion: Completion)] in
                let batch = queue.batch
                queue.batch = []
                if batch.isEmpty { queue.writing = false }
                return batch
            }
            if batch.isEmpty { return }
            if batch.allSatisfy({ $0.changes.isEmpty }) {
                // Only flushes: what they wait for is committed already.
                for entry in batch { entry.completion(.success(())) }
                continue
            }
            let result: Result<Void, any Error>
            do {
                try database.writeWithoutTransaction { db in
                    try statements.inTransaction(db) {
                        for entry in batch {
                            for change in entry.changes { try statements.apply(change, db) }
                        }
                    }
                }
                let count = commits.add(1, ordering: .relaxed).newValue
                result = .success(())
                if count % Self.checkpointEvery == 0 { checkpointInBackground() }
                if walFrames.load(ordering: .relaxed) > Self.walLimit { checkpointNow() }
            } catch {
                result = .failure(error)
            }
            noteCommit(result)
            for entry in batch { entry.completion(result) }
        }
    }

    private func checkpointInBackground() {
        guard let checkpointer, !checkpointing.exchange(true, ordering: .acquiring) else { return }
        checkpointQueue.async {
            if let frames = try? checkpointer.writeWithoutTransaction({ try $0.checkpoint(.passive) }) {
                self.walFrames.store(frames.walFrameCount, ordering: .relaxed)
            }
            self.checkpointing.store(false, ordering: .releasing)
        }
    }

    /// On the writer, between transactions: nothing can append meanwhile, so it copies every
    /// frame and the next transaction starts the WAL over.
    private func checkpointNow() {
        guard checkpointer != nil else { return }
        if (try? database.writeWithoutTransaction({ try $0.checkpoint(.passive) })) != nil {
            walFrames.store(0, ordering: .relaxed)  // the next transaction starts the WAL over
        }
    }

    /// Applies a change the writer's prepared statements leave to GRDB: none that every
    /// push makes.
    static func applyRare(_ change: StoreChange, _ db: Database) throws {
        switch change {
        case .insertPush, .setFate, .insertWake, .finishWake:
            preconditionFailure("applied by StoreStatements: \(change)")
        case .closeGeneration(let head, let fate):
            // Walks the slot's chain by primary key: no index on device and topic to keep up
            // on every push. Its pushes are still `pending` in their rows (or `coalesced`,
            // from a restart or an older version); a push of a closed generation ends it.
            let (name, wake, reason) = columns(fate)
            try db.cachedStatement(sql: """
                WITH RECURSIVE chain(id) AS (
                    SELECT replaced FROM pushes WHERE id = ?4 AND replaced IS NOT NULL
                    UNION ALL
                    SELECT pushes.replaced FROM pushes JOIN chain ON pushes.id = chain.id
                    WHERE pushes.replaced IS NOT NULL AND (pushes.fate = 'pending' OR (pushes.fate = 'coalesced' AND pushes.wake_id IS NULL)))
                UPDATE pushes SET fate = ?1, wake_id = ?2, reason = ?3
                WHERE id IN chain AND (fate = 'pending' OR (fate = 'coalesced' AND wake_id IS NULL))
                """).execute(arguments: [name == "delivered" ? "coalesced" : name, wake, reason, Int64(bitPattern: head)])
        case .setReplaced(let push, let replaced):
            try db.cachedStatement(sql: "UPDATE pushes SET replaced = ? WHERE id = ?")
                .execute(arguments: [Int64(bitPattern: replaced), Int64(bitPattern: push)])
        case .setDevice(let token, let state):
            try db.cachedStatement(sql: """
                INSERT INTO devices (device_token, force_quit, background_refresh, low_power_mode, hourly_budget)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(device_token) DO UPDATE SET force_quit = excluded.force_quit,
                    background_refresh = excluded.background_refresh, low_power_mode = excluded.low_power_mode,
                    hourly_budget = excluded.hourly_budget
                """).execute(arguments: [token, state.forceQuit, state.backgroundRefresh, state.lowPowerMode, state.hourlyBudget])
        case .setContent(let content):
            try db.cachedStatement(sql: """
                INSERT INTO contents (device_token, topic, url, etag, last_modified, content_type, sha256, size, fetched_at, changed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(device_token, topic, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                    content_type = excluded.content_type, sha256 = excluded.sha256, size = excluded.size,
                    fetched_at = excluded.fetched_at, changed_at = excluded.changed_at
                """).execute(arguments: [
                    content.deviceToken, content.topic, content.url, content.etag, content.lastModified, content.contentType,
                    content.sha256, content.size, content.fetchedAt, content.changedAt,
                ])
        case .probe(let at):
            try db.cachedStatement(sql: "INSERT INTO health (id, probed_at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET probed_at = excluded.probed_at")
                .execute(arguments: [at])
        case .setManualClock(let at):
            try db.cachedStatement(sql: "INSERT INTO clock (id, manual_now) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET manual_now = MAX(manual_now, excluded.manual_now)")
                .execute(arguments: [at])
        case .setUnregistered(let token, let at):
            try db.cachedStatement(sql: """
                INSERT INTO devices (device_token, force_quit, background_refresh, low_power_mode, hourly_budget, unregistered_at)
                VALUES (?, 0, 1, 0, NULL, ?)
                ON CONFLICT(device_token) DO UPDATE SET unregistered_at = excluded.unregistered_at
                """).execute(arguments: [token, at])
        }
    }

    /// A fate as (fate, wake_id, reason) columns.
    static func columns(_ fate: PushFate) -> (String, Int64?, String?) {
        switch fate {
        case .pending: ("pending", nil, nil)
        case .delivered(let wake): ("delivered", Int64(bitPattern: wake), nil)
        case .coalesced(let wake): ("coalesced", wake.map { Int64(bitPattern: $0) }, nil)
        case .expired: ("expired", nil, nil)
        case .dropped(let reason): ("dropped", nil, reason)
        case .rejected(let reason): ("rejected", nil, reason)
        }
    }

    // MARK: Reads

    /// The push with this `apns-id` (the latest, when a provider reused one).
    public func push(apnsID: String) throws -> PushRecord? {
        let key = Self.apnsKey(apnsID)
        return try database.read { db in
            // By the id the apns-id carries, or by its key; the latest when both match.
            guard var push = try Row.fetchOne(db, sql: """
                SELECT * FROM pushes WHERE id = ?1 AND apns_id = ?3
                UNION ALL SELECT * FROM pushes WHERE apns_key = ?2 AND apns_id = ?3
                ORDER BY id DESC LIMIT 1
                """, arguments: [key.pushID.map { Int64(bitPattern: $0) }, key.value, apnsID]).map(Self.push)
            else { return nil }
            // A later push of its slot replaced it (see `PushRecord.replaced`); no index on
            // `replaced`, so the rows after it are read, up to that push.
            if push.fate == .pending,
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pushes WHERE id > ?1 AND replaced = ?1)", arguments: [Int64(bitPattern: push.id)]) == true {
                push.fate = .coalesced(wakeID: nil)
            }
            return push
        }
    }

    /// Pushes, newest first, for a device and/or topic.
    public func pushes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) throws -> [PushRecord] {
        var pushes = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM pushes WHERE (?1 IS NULL OR device_token = ?1) AND (?2 IS NULL OR topic = ?2)
                ORDER BY id DESC LIMIT ?3
                """, arguments: [deviceToken, topic, limit]).map(Self.push)
        }
        // The push that replaced a pending one is newer with the same device and topic, so
        // it is in the page too.
        let replaced = Set(pushes.compactMap(\.replaced))
        for index in pushes.indices where pushes[index].fate == .pending && replaced.contains(pushes[index].id) {
            pushes[index].fate = .coalesced(wakeID: nil)
        }
        return pushes
    }

    /// Rows still `pending`: what a restarted receiver puts back in the slots, with the
    /// pushes replaced in them (`PushRecord.replaced`). Reads the whole table (once, at
    /// start-up: an index would cost every push two writes).
    public func pendingPushes() throws -> [PushRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pushes WHERE fate = 'pending' ORDER BY id").map(Self.push)
        }
    }

    /// Wakes, newest first, for a device and/or topic.
    public func wakes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) throws -> [WakeRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT wakes.*, pushes.apns_id AS apns_id FROM wakes LEFT JOIN pushes ON pushes.id = wakes.push_id
                WHERE (?1 IS NULL OR wakes.device_token = ?1) AND (?2 IS NULL OR wakes.topic = ?2)
                ORDER BY wakes.id DESC LIMIT ?3
                """, arguments: [deviceToken, topic, limit]).map(Self.wake)
        }
    }

    /// The wake with this id.
    public func wake(id: UInt64) throws -> WakeRecord? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT wakes.*, pushes.apns_id AS apns_id FROM wakes LEFT JOIN pushes ON pushes.id = wakes.push_id WHERE wakes.id = ?", arguments: [Int64(bitPattern: id)]).map(Self.wake)
        }
    }

    private static func wake(_ row: Row) -> WakeRecord {
        WakeRecord(
            id: UInt64(bitPattern: row["id"]), deviceToken: row["device_token"], topic: row["topic"],
            pushID: UInt64(bitPattern: row["push_id"]), generation: UInt32(truncatingIfNeeded: row["generation"] as Int64),
            startedAt: row["started_at"], deadline: row["deadline"], finishedAt: row["finished_at"],
            result: row["result"], reason: row["reason"], apnsID: row.hasColumn("apns_id") ? row["apns_id"] : nil)
    }

    /// Every device whose state was set.
    public func devices() throws -> [String: DeviceState] {
        try deviceRecords().mapValues(\.state)
    }

    /// Every device whose state was set, with when its token was unregistered (ms), if it is.
    public func deviceRecords() throws -> [String: (state: DeviceState, unregisteredAt: Int64?)] {
        try database.read { db in
            var devices: [String: (state: DeviceState, unregisteredAt: Int64?)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM devices") {
                let state = DeviceState(
                    forceQuit: row["force_quit"], backgroundRefresh: row["background_refresh"],
                    lowPowerMode: row["low_power_mode"], hourlyBudget: row["hourly_budget"])
                devices[row["device_token"]] = (state, row["unregistered_at"])
            }
            return devices
        }
    }

    /// The apns-ids of the pushes coalesced into wake `wakeID`, oldest first.
    public func coalescedAPNsIDs(wakeID: UInt64) throws -> [String] {
        try database.read { db in try Self.coalescedAPNsIDs(wakeID: wakeID, db) }
    }

    /// What a wake delivers, read in one transaction: its push (nil if missing) and the
    /// apns-ids coalesced into it. (Every wake that waited for a fetch slot reads these.)
    public func delivery(push id: UInt64, wakeID: UInt64) throws -> (push: PushRecord, coalesced: [String])? {
        try database.read { db in
            guard let push = try Self.push(id: id, db) else { return nil }
            return (push, try Self.coalescedAPNsIDs(wakeID: wakeID, db))
        }
    }

    // Cached statements: prepared once per reader connection.
    private static func push(id: UInt64, _ db: Database) throws -> PushRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM pushes WHERE id = ?"), arguments: [Int64(bitPattern: id)]).map(Self.push)
    }

    private static func coalescedAPNsIDs(wakeID: UInt64, _ db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT apns_id FROM pushes WHERE wake_id = ? AND fate = 'coalesced' ORDER BY id"),
                            arguments: [Int64(bitPattern: wakeID)])
    }

    /// Per app ever woken: its last wake's start (ms) and the highest slot generation a wake
    /// closed, so a restarted receiver keeps the minimum interval and numbers on.
    public func lastWakes() throws -> [(deviceToken: String, topic: String, startedAt: Int64, generation: UInt32)] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device_token, topic, MAX(started_at) AS started_at, MAX(generation) AS generation
                FROM wakes GROUP BY device_token, topic
                """).map { row in
                (row["device_token"], row["topic"], row["started_at"], UInt32(truncatingIfNeeded: row["generation"] as Int64))
            }
        }
    }

    /// Wakes with no result: they were running when the receiver stopped.
    public func unfinishedWakes() throws -> [WakeRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM wakes WHERE result IS NULL ORDER BY id").map(Self.wake)
        }
    }

    /// The latest device-clock time recorded (ms), so a manual clock restarts no earlier.
    public func latestDeviceTime() throws -> Int64? {
        try database.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT MAX(t) FROM (SELECT MAX(received_at) AS t FROM pushes
                    UNION ALL SELECT MAX(started_at) FROM wakes UNION ALL SELECT MAX(finished_at) FROM wakes
                    UNION ALL SELECT manual_now FROM clock)
                """)
        }
    }

    /// The latest content for `deviceToken`, `topic` and `url`.
    public func content(deviceToken: String, topic: String, url: String) throws -> ContentRecord? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM contents WHERE device_token = ? AND topic = ? AND url = ?",
                             arguments: [deviceToken, topic, url]).map(Self.content)
        }
    }

    /// The latest contents, most recently fetched first, for a device and/or topic.
    public func contents(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) throws -> [ContentRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM contents WHERE (?1 IS NULL OR device_token = ?1) AND (?2 IS NULL OR topic = ?2)
                ORDER BY fetched_at DESC LIMIT ?3
                """, arguments: [deviceToken, topic, limit]).map(Self.content)
        }
    }

    private static func content(_ row: Row) -> ContentRecord {
        ContentRecord(
            deviceToken: row["device_token"], topic: row["topic"], url: row["url"], etag: row["etag"],
            lastModified: row["last_modified"], contentType: row["content_type"], sha256: row["sha256"], size: row["size"],
            fetchedAt: row["fetched_at"], changedAt: row["changed_at"])
    }

    // MARK: Content files

    /// Keeps `body` under its SHA-256 (lower-case hex): a file in `contents/` beside the
    /// database, written whole then renamed; in memory for a memory store.
    public func saveContent(_ body: [UInt8], sha256: String) throws {
        guard let directory = contentsDirectory else {
            memoryContents.withLock { $0[sha256] = body }
            return
        }
        let path = directory + "/" + sha256
        if FileManager.default.fileExists(atPath: path) { return }  // content-addressed: already there
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = path + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try Data(body).write(to: URL(fileURLWithPath: temporary))
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }

    /// The body saved under `sha256`, if any.
    public func contentBody(sha256: String) -> [UInt8]? {
        guard let directory = contentsDirectory else { return memoryContents.withLock { $0[sha256] } }
        guard sha256.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return nil }
        return FileManager.default.contents(atPath: directory + "/" + sha256).map(Array.init)
    }

    /// How many pushes have each fate (`coalesced` only once its wake started;
    /// `coalescedWaiting` before), how many wakes ended each way (`deadlineExceeded` apart
    /// from other failures; `running` without a result), and the reasons of drops and
    /// rejections.
    public func counts() throws -> StoreCounts {
        try database.read { db in
            func grouped(_ sql: String) throws -> [String: Int] {
                var counts: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: sql) { counts[row[0] ?? ""] = row[1] }
                return counts
            }
            return StoreCounts(
                pushes: try grouped("""
                    SELECT CASE WHEN fate = 'coalesced' AND wake_id IS NULL THEN 'coalescedWaiting'
                        WHEN fate = 'pending' AND id IN (SELECT replaced FROM pushes WHERE replaced IS NOT NULL) THEN 'coalescedWaiting'
                        ELSE fate END AS k, COUNT(*)
                    FROM pushes GROUP BY k
                    """),
                dropped: try grouped("SELECT reason, COUNT(*) FROM pushes WHERE fate = 'dropped' GROUP BY reason"),
                rejected: try grouped("SELECT reason, COUNT(*) FROM pushes WHERE fate = 'rejected' GROUP BY reason"),
                wakes: try grouped("""
                    SELECT CASE WHEN reason = 'deadlineExceeded' THEN 'deadlineExceeded' ELSE COALESCE(result, 'running') END AS k,
                        COUNT(*) FROM wakes GROUP BY k
                    """))
        }
    }

    /// The largest push and wake ids stored, so a restarted receiver numbers on from there.
    public func lastIDs() throws -> (push: UInt64, wake: UInt64) {
        try database.read { db in
            let push = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM pushes") ?? 0
            let wake = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM wakes") ?? 0
            return (UInt64(bitPattern: push), UInt64(bitPattern: wake))
        }
    }

    private static func push(_ row: Row) -> PushRecord {
        let wake: Int64? = row["wake_id"]
        let fate: PushFate = switch row["fate"] as String {
        case "delivered": .delivered(wakeID: UInt64(bitPattern: wake ?? 0))
        case "coalesced": .coalesced(wakeID: wake.map { UInt64(bitPattern: $0) })
        case "expired": .expired
        case "dropped": .dropped(reason: row["reason"] ?? "")
        case "rejected": .rejected(reason: row["reason"] ?? "")
        default: .pending
        }
        let warnings: String? = row["warnings"]
        let payload: Data = row["payload"]
        let generation: Int64? = row["generation"]
        let replaced: Int64? = row["replaced"]
        return PushRecord(
            id: UInt64(bitPattern: row["id"]), apnsID: row["apns_id"], deviceToken: row["device_token"], topic: row["topic"],
            pushType: row["push_type"], priority: row["priority"], receivedAt: row["received_at"], expiresAt: row["expires_at"],
            collapseID: row["collapse_id"], payload: Array(payload),
            warnings: warnings.map { $0.split(separator: "\n").map(String.init) } ?? [], fate: fate,
            generation: generation.map { UInt32(truncatingIfNeeded: $0) }, replaced: replaced.map { UInt64(bitPattern: $0) })
    }

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE pushes (
                    id INTEGER PRIMARY KEY,
                    apns_id TEXT NOT NULL,
                    device_token TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    push_type TEXT NOT NULL,
                    priority INTEGER NOT NULL,
                    received_at INTEGER NOT NULL,
                    expires_at INTEGER,
                    collapse_id TEXT,
                    payload BLOB NOT NULL,
                    warnings TEXT,
                    fate TEXT NOT NULL,
                    wake_id INTEGER,
                    reason TEXT,
                    generation INTEGER
                );
                CREATE INDEX pushes_by_apns_id ON pushes (apns_id);
                CREATE INDEX pushes_by_app ON pushes (device_token, topic, generation);
                CREATE INDEX pushes_pending ON pushes (fate) WHERE fate = 'pending';
                CREATE TABLE wakes (
                    id INTEGER PRIMARY KEY,
                    device_token TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    push_id INTEGER NOT NULL,
                    generation INTEGER NOT NULL,
                    started_at INTEGER NOT NULL,
                    deadline INTEGER NOT NULL,
                    finished_at INTEGER,
                    result TEXT,
                    reason TEXT
                );
                CREATE INDEX wakes_by_app ON wakes (device_token, topic);
                CREATE TABLE devices (
                    device_token TEXT PRIMARY KEY,
                    force_quit INTEGER NOT NULL,
                    background_refresh INTEGER NOT NULL,
                    low_power_mode INTEGER NOT NULL,
                    hourly_budget INTEGER
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN unregistered_at INTEGER;
                CREATE TABLE clock (id INTEGER PRIMARY KEY CHECK (id = 1), manual_now INTEGER NOT NULL);
                CREATE INDEX pushes_by_wake ON pushes (wake_id) WHERE wake_id IS NOT NULL;
                """)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE contents (
                    device_token TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    url TEXT NOT NULL,
                    etag TEXT,
                    last_modified TEXT,
                    content_type TEXT,
                    sha256 TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    fetched_at INTEGER NOT NULL,
                    changed_at INTEGER NOT NULL,
                    PRIMARY KEY (device_token, topic, url)
                );
                """)
        }
        migrator.registerMigration("v4") { db in
            // Pushes coalesced in a slot are chained (`replaced`) instead of indexed by device
            // and topic: that index took a random B-tree insert on every push. Open slots
            // are chained here from the old index, in order.
            try db.execute(sql: """
                ALTER TABLE pushes ADD COLUMN replaced INTEGER;
                UPDATE pushes SET replaced = (
                    SELECT previous FROM (
                        SELECT id, LAG(id) OVER (PARTITION BY device_token, topic, generation ORDER BY id) AS previous
                        FROM pushes WHERE (fate = 'coalesced' AND wake_id IS NULL) OR fate = 'pending') AS open
                    WHERE open.id = pushes.id)
                WHERE (fate = 'coalesced' AND wake_id IS NULL) OR fate = 'pending';
                DROP INDEX pushes_by_app;
                """)
        }
        migrator.registerMigration("v5") { db in
            // Every push entered and left this index (pending, then coalesced or delivered):
            // two B-tree writes per push for a query that runs once, at start-up.
            try db.execute(sql: "DROP INDEX pushes_pending")
        }
        migrator.registerMigration("v6") { db in
            // Pushes are found by apns-id through their id or an 8-byte key (see `apnsKey`),
            // not an index of the text.
            let key = DatabaseFunction("silentpush_apns_key", argumentCount: 2, pure: true) { values in
                guard let apnsID = String.fromDatabaseValue(values[0]), let id = Int64.fromDatabaseValue(values[1]) else { return nil }
                return PushStore.indexedAPNsKey(apnsID, pushID: UInt64(bitPattern: id))
            }
            db.add(function: key)
            defer { db.remove(function: key) }
            try db.execute(sql: """
                ALTER TABLE pushes ADD COLUMN apns_key INTEGER;
                UPDATE pushes SET apns_key = silentpush_apns_key(apns_id, id);
                CREATE INDEX pushes_by_apns_key ON pushes (apns_key) WHERE apns_key IS NOT NULL;
                DROP INDEX pushes_by_apns_id;
                """)
        }
        migrator.registerMigration("v7") { db in
            // One row that `probe()` rewrites: a real write, to tell whether the store takes any.
            try db.execute(sql: "CREATE TABLE health (id INTEGER PRIMARY KEY CHECK (id = 1), probed_at INTEGER NOT NULL)")
        }
        return migrator
    }()
}

/// The store could not be opened; the message names the path.
public struct PushStoreError: Error, CustomStringConvertible, Sendable {
    /// One line.
    public let description: String
}
