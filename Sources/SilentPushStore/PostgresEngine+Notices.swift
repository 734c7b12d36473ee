import Logging
import NIOCore
import PostgresNIO
import SilentPushCore

/// What a cluster's receivers tell each other through PostgreSQL: notices (LISTEN/NOTIFY on
/// one channel, listened to on each member's writer session, so that listening ends with
/// the member's claims), the lock that lets one member at a time move the cluster's manual
/// clock, and the cluster's fault rules.
extension PostgresEngine {
    /// The channel every member listens on.
    static let noticeChannel = "silentpush_cluster"
    /// The first key of the clock's lock ("SPCK"); the second is 0.
    static let clockClass: Int32 = 0x5350_434B
    /// The first key of a listening member's lock ("SPLS"); the second is its backend pid.
    static let listenClass: Int32 = 0x5350_4C53

    /// Listens on the writer's session for the cluster's notices, handing each payload to
    /// `handler`, until the session ends (then it throws). Once LISTEN is in effect it takes
    /// the listen lock (`listenClass`, its backend pid) and calls `started`: a member that
    /// holds that lock hears every notice sent after, so it is the one others wait for.
    func listen(started: @Sendable () -> Void, handler: @Sendable (String) -> Void) async throws {
        guard let connection = writerSession.withLock({ $0?.connection }), !connection.isClosed else { throw PushStoreError.sessionEnded }
        let logger = logger
        try await connection.listen(on: Self.noticeChannel) { notices in
            _ = try await connection.queryUnlessClosed("SELECT pg_advisory_lock(\(Self.listenClass), pg_backend_pid())", logger: logger).get()
            started()
            for try await notice in notices { handler(notice.payload) }
        }
        throw PushStoreError.sessionEnded
    }

    /// Sends `payload` to every member listening (this one too).
    func notify(_ payload: String) async throws {
        _ = try await rows(StoreStatement("SELECT pg_notify(?, ?)", [Self.noticeChannel, payload]), cached: false)
    }

    /// Takes the clock's lock on the writer's session if no member holds it; true if taken.
    func tryLockClock(timeout: Duration) async throws -> Bool {
        let rows = try await onWriterSession(
            StoreStatement("SELECT pg_try_advisory_lock(\(Self.clockClass), 0) AS taken"), timeout: timeout)
        return rows.first?["taken"] ?? false
    }

    /// Gives the clock's lock back.
    func unlockClock(timeout: Duration) async throws {
        _ = try await onWriterSession(StoreStatement("SELECT pg_advisory_unlock(\(Self.clockClass), 0)"), timeout: timeout)
    }

    /// The cluster's fault rules, oldest first: each one's id and its rule as given.
    func faults() async throws -> [(id: Int64, rule: String)] {
        try await rows(StoreStatement("SELECT id, rule FROM cluster_faults ORDER BY id"), cached: false).map { ($0["id"], $0["rule"]) }
    }

    /// Adds a fault rule; returns its id (the cluster's: no two rules share one).
    func addFault(_ rule: String) async throws -> Int64 {
        let rows = try await rows(
            StoreStatement("INSERT INTO cluster_faults (id, rule) VALUES (nextval('cluster_fault_ids'), ?) RETURNING id", [rule]), cached: false)
        return rows.first?["id"] ?? 0
    }

    /// Removes the fault rule `id` (nil: every one); returns how many went.
    func removeFaults(_ id: Int64?) async throws -> Int {
        let rows = try await rows(
            StoreStatement("DELETE FROM cluster_faults WHERE CAST(? AS BIGINT) IS NULL OR id = ? RETURNING id", [id, id]), cached: false)
        return rows.count
    }
}
