import Logging
import NIOCore
import PostgresNIO
import SilentPushCore
import Synchronization

/// A cluster's receivers share one database. Each holds, on its writer's session:
/// - a member lock (advisory, `memberClass`, its backend pid) beside its row in
///   `cluster_members`: a member is live while its lock is held;
/// - a claim (advisory, `shardClass`, n) on each shard it owns.
///
/// Claims and writes share that one session, so they end together: once PostgreSQL has ended
/// the session (a crash, kill -9, a connection dropped), no write of that receiver can commit,
/// and only then can another receiver claim its shards.
extension PostgresEngine {
    /// The first key of a shard's claim ("SPSH"); the second is the shard.
    static let shardClass: Int32 = 0x5350_5348
    /// The first key of a member's lock ("SPMB"); the second is its session's backend pid.
    static let memberClass: Int32 = 0x5350_4D42
    /// Ids a block holds, as a power of two: 2^28 (268 million) pushes, wakes, … per block.
    static let idBlockBits: UInt64 = 28

    /// A clustered writer's session settings: the server notices a peer gone silent after
    /// 2 s idle and 3 unanswered probes a second apart, or 5 s of unacknowledged sends
    /// (*assumed*: short enough that a cut receiver's shards move within seconds).
    static func prepareClusterSession(_ connection: PostgresConnection, logger: Logger) async throws {
        for setting in [
            "SET tcp_keepalives_idle = 2", "SET tcp_keepalives_interval = 1", "SET tcp_keepalives_count = 3", "SET tcp_user_timeout = 5000",
            "SET application_name = 'silentpushd cluster member'",
        ] {
            _ = try await connection.queryUnlessClosed(PostgresQuery(unsafeSQL: setting), logger: logger).get()
        }
    }

    /// Ends the writer's session (closing it, if it is not yet) and says so, once. With
    /// `connection`, only if the session is still that one: a check that began on a session
    /// since ended leaves the one joined after it alone.
    func endSession(ifStill connection: PostgresConnection? = nil) {
        let ended = writerSession.withLock { session -> PostgresConnection? in
            guard let current = session?.connection, connection.map({ $0 === current }) ?? true else { return nil }
            session = nil
            return current
        }
        guard let ended else { return }
        if !ended.isClosed { ended.close().whenComplete { _ in _ = ended } }
        sessionEnded.withLock { $0 }?()
    }

    /// Runs `statement` on the writer's session. A session that does not answer within
    /// `timeout` is ended (its claims cannot be trusted to be held any more), unless the
    /// server says it is running a statement or a transaction then: a commit queued before
    /// this one, waiting on the disk or on a lock, holds the session's claims as long as it
    /// runs. Then the wait goes on, `timeout` at a time, until `longestBusyWait` has passed.
    func onWriterSession(_ statement: StoreStatement, timeout: Duration) async throws -> [StoreRow] {
        let session = writerSession.withLock { $0 }
        guard let session, !session.connection.isClosed else {
            if let closed = session?.connection { endSession(ifStill: closed) }
            throw PushStoreError.sessionEnded
        }
        let connection = session.connection
        let query: EventLoopFuture<PostgresQueryResult> = connection.queryUnlessClosed(statement.postgresQuery, logger: logger)
        let giveUp = ContinuousClock.now.advanced(by: Self.longestBusyWait)
        var round = timeout
        while true {
            if let answer = await Self.answer(query, within: round) {
                do {
                    return try Self.storeRows(try answer.get())
                } catch {
                    guard connection.isClosed else { throw Self.refusal(error) }
                    endSession(ifStill: connection)
                    throw PushStoreError.sessionEnded
                }
            }
            // A caller that gave up leaves the session as it is: its statement completes unread.
            try Task.checkCancellation()
            let left = ContinuousClock.now.duration(to: giveUp)
            guard left > .zero, let backend = session.backend,
                (try? await writerIsBusy(backend, within: min(timeout, left)).get()) == true
            else {
                endSession(ifStill: connection)
                throw PushStoreError.sessionEnded
            }
            round = min(timeout, ContinuousClock.now.duration(to: giveUp))
            logger.debug("the store's writer session is busy with an earlier statement: its claims are held")
        }
    }

    /// The longest a statement on the writer's session waits behind earlier ones the server
    /// is still running before the session is ended (its claims let go for another member).
    static let longestBusyWait = Duration.seconds(30)

    /// `query`'s answer, or nil once `timeout` passes without one, or the calling task is
    /// cancelled.
    private static func answer(
        _ query: EventLoopFuture<PostgresQueryResult>, within timeout: Duration
    ) async -> Result<PostgresQueryResult, any Error>? {
        let (answer, giveUp) = timedAnswer(query, within: timeout)
        return await withTaskCancellationHandler {
            try? await answer.get()
        } onCancel: {
            giveUp()
        }
    }

    /// `query`'s answer, or nil once `timeout` passes without one or `giveUp` is called
    /// first; never fails.
    private static func timedAnswer(
        _ query: EventLoopFuture<PostgresQueryResult>, within timeout: Duration
    ) -> (answer: EventLoopFuture<Result<PostgresQueryResult, any Error>?>, giveUp: @Sendable () -> Void) {
        let round = query.eventLoop.makePromise(of: Result<PostgresQueryResult, any Error>?.self)
        let settled = SettledOnce()
        let timer = query.eventLoop.scheduleTask(in: .nanoseconds(max(0, timeout.nanosecondCount))) {
            if settled.settle() { round.succeed(nil) }
        }
        query.whenComplete { result in
            timer.cancel()
            if settled.settle() { round.succeed(result) }
        }
        return (
            round.futureResult,
            {
                timer.cancel(); if settled.settle() { round.succeed(nil) }
            }
        )
    }

    /// Whether the server process `backend` (the writer's session) is running a statement or
    /// a transaction now (`pg_stat_activity`), asked on a session of its own; false when the
    /// server does not answer within `timeout` (a network gone silent: that session crosses
    /// it too), or when that process is gone (its pid given to another, which started later).
    /// Never fails.
    func writerIsBusy(_ backend: Backend, within timeout: Duration) -> EventLoopFuture<Bool> {
        let logger = logger
        let question = StoreStatement(
            "SELECT state FROM pg_stat_activity WHERE pid = ? AND (extract(epoch FROM backend_start) * 1000000)::bigint = ?",
            [backend.pid, backend.start])
        let connected = connectSession()
        let asked = connected.flatMap { connection in
            connection.queryUnlessClosed(question.postgresQuery, logger: logger).always { _ in connection.close().whenComplete { _ in } }
        }
        return Self.timedAnswer(asked, within: timeout).answer.map { answer in
            guard case .success(let result)? = answer else {
                // Not left open until its question is answered (on a silent network, as late as TCP gives up).
                connected.whenSuccess { connection in connection.close().whenComplete { _ in } }
                return false
            }
            let state: String? = (try? Self.storeRows(result))?.first?["state"]
            // Between a batch's statements it is `idle in transaction`: still the batch.
            return state == "active" || state == "idle in transaction"
        }
    }

    /// Makes the cluster's tables when missing, checks the shard count (`count`, kept when no
    /// member is live), and joins on a writer session: the member lock and row. Returns the
    /// session (its backend pid).
    func join(shards count: Int, name: String, manualClock: Bool, now: Int64, uniqueName: Bool = false) async throws -> Int32 {
        let connection: PostgresConnection
        if let current = writerSession.withLock({ $0?.connection }), !current.isClosed {
            connection = current
        } else {
            connection = try await connectSession().get()
            do {
                try await Self.prepareClusterSession(connection, logger: logger)
            } catch {
                try? await connection.close()
                throw PushStoreError.cannotOpen(path: url.description, reason: Self.reason(error))
            }
        }
        let logger = logger
        func run(_ sql: String, _ values: [any StoreValueConvertible] = []) async throws -> PostgresQueryResult {
            try await connection.queryUnlessClosed(StoreStatement(sql, values).postgresQuery, logger: logger).get()
        }
        do {
            _ = try await run("BEGIN")
            _ = try await run("SELECT pg_advisory_xact_lock(\(Self.migrationLock))")
            _ = try await run("CREATE TABLE IF NOT EXISTS cluster (id BIGINT PRIMARY KEY CHECK (id = 1), shards BIGINT NOT NULL)")
            _ = try await run(
                "CREATE TABLE IF NOT EXISTS cluster_members (pid BIGINT PRIMARY KEY, name TEXT NOT NULL, joined_at BIGINT NOT NULL)")
            _ = try await run("ALTER TABLE cluster_members ADD COLUMN IF NOT EXISTS manual_clock BIGINT NOT NULL DEFAULT 0")
            _ = try await run("CREATE SEQUENCE IF NOT EXISTS cluster_id_blocks")
            _ = try await run("CREATE TABLE IF NOT EXISTS cluster_faults (id BIGINT PRIMARY KEY, rule TEXT NOT NULL)")
            _ = try await run("CREATE SEQUENCE IF NOT EXISTS cluster_fault_ids")
            let live = try await run(
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = \(Self.memberClass) AND objsubid = 2 AND granted")
            let liveCount = try live.rows.first?.decode(Int64.self) ?? 0
            let stored = try await run("SELECT shards FROM cluster WHERE id = 1")
            if let found = try stored.rows.first?.decode(Int64.self), found != Int64(count), liveCount > 0 {
                throw PushStoreError.shardCountDiffers(path: url.description, found: Int(clamping: found), given: count)
            }
            // One clock for the cluster: the running members' kind is the only one.
            let clocks = try await run(
                """
                SELECT DISTINCT manual_clock FROM cluster_members WHERE pid IN
                    (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = \(Self.memberClass) AND objsubid = 2 AND granted)
                """)
            if let running = try clocks.rows.first?.decode(Int64.self), (running != 0) != manualClock {
                throw PushStoreError.clockDiffers(path: url.description, runningManual: running != 0)
            }
            // A live member of the same name (checked before this session takes any lock): the
            // views and the refusals that name the owner would say two receivers alike.
            if uniqueName {
                let named = try await run(
                    """
                    SELECT 1 FROM cluster_members WHERE name = ? AND pid IN
                        (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = \(Self.memberClass) AND objsubid = 2 AND granted)
                    """, [name])
                if named.rows.first != nil { throw PushStoreError.clusterNameInUse(path: url.description, name: name) }
            }
            _ = try await run("INSERT INTO cluster (id, shards) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET shards = excluded.shards", [count])
            // A receiver that owns the whole database holds the owner lock alone; members share it.
            let shared = try await run("SELECT pg_try_advisory_lock_shared(\(Self.ownerLock))")
            guard try shared.rows.first?.decode(Bool.self) == true else { throw PushStoreError.inUse(path: url.description, pid: nil) }
            // A member's mark, once it holds the store with the others: a lone owner whose
            // session ended meanwhile finds the store taken over, even once the cluster stopped.
            try await Self.markOwner(connection, mark: ownerMark, logger: logger)
            _ = try await run("SELECT pg_advisory_lock(\(Self.memberClass), pg_backend_pid())")
            // Blocks of ids start past every id recorded (a store first used unclustered); a
            // sequence already past them is left alone (members may be taking blocks).
            _ = try await run(
                """
                SELECT setval('cluster_id_blocks', floor) FROM
                    (SELECT (GREATEST((SELECT COALESCE(MAX(id), 0) FROM pushes), (SELECT COALESCE(MAX(id), 0) FROM wakes),
                        (SELECT COALESCE(MAX(id), 0) FROM task_requests), (SELECT COALESCE(MAX(id), 0) FROM task_runs),
                        (SELECT COALESCE(MAX(id), 0) FROM transfers), (SELECT COALESCE(MAX(id), 0) FROM broadcasts)) >> \(Self.idBlockBits)) + 1 AS floor) AS recorded,
                    cluster_id_blocks
                WHERE recorded.floor > cluster_id_blocks.last_value OR NOT cluster_id_blocks.is_called
                """)
            // Rows of members whose sessions ended go.
            _ = try await run(
                """
                DELETE FROM cluster_members WHERE pid NOT IN
                    (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = \(Self.memberClass) AND objsubid = 2 AND granted)
                """)
            _ = try await run(
                """
                INSERT INTO cluster_members (pid, name, joined_at, manual_clock) VALUES (pg_backend_pid(), ?, ?, ?)
                    ON CONFLICT (pid) DO UPDATE SET name = excluded.name, joined_at = excluded.joined_at, manual_clock = excluded.manual_clock
                """,
                [name, now, manualClock ? 1 : 0])
            _ = try await run("COMMIT")
            let backend = try await Self.backend(of: connection, logger: logger).get()
            writerSession.withLock { $0 = WriterSession(connection: connection, backend: backend) }
            return Int32(clamping: backend.pid)
        } catch {
            _ = try? await run("ROLLBACK")
            if writerSession.withLock({ $0?.connection }) !== connection { try? await connection.close() }
            if let error = error as? PushStoreError { throw error }
            throw PushStoreError.cannotOpen(path: url.description, reason: "cannot join the cluster: \(Self.reason(error))")
        }
    }

    /// Who holds what, read on the writer's session (a heartbeat too): each live member's
    /// pid, those listening for notices, and each claimed shard's holder.
    func clusterLocks(timeout: Duration) async throws -> (session: Int32, members: Set<Int32>, listeners: Set<Int32>, shards: [Int: Int32]) {
        let rows = try await onWriterSession(
            StoreStatement(
                """
                SELECT classid::bigint AS class, objid::bigint AS key, pid::bigint AS pid, pg_backend_pid()::bigint AS me FROM pg_locks
                WHERE locktype = 'advisory' AND objsubid = 2 AND granted AND classid IN (\(Self.shardClass), \(Self.memberClass), \(Self.listenClass))
                UNION ALL SELECT 0, 0, 0, pg_backend_pid()::bigint
                """), timeout: timeout)
        var members = Set<Int32>()
        var listeners = Set<Int32>()
        var shards: [Int: Int32] = [:]
        var session: Int32 = 0
        for row in rows {
            let pid = Int32(clamping: row["pid"] as Int64)
            session = Int32(clamping: row["me"] as Int64)
            switch Int32(clamping: row["class"] as Int64) {
            case Self.memberClass: members.insert(pid)
            case Self.listenClass: listeners.insert(pid)
            case Self.shardClass: shards[Int(clamping: row["key"] as Int64)] = pid
            default: break
            }
        }
        return (session, members, listeners, shards)
    }

    /// Claims those of `shards` no session holds; returns the ones claimed.
    func claim(_ shards: [Int], timeout: Duration) async throws -> Set<Int> {
        guard !shards.isEmpty else { return [] }
        let list = shards.map(String.init).joined(separator: ",")
        let rows = try await onWriterSession(
            StoreStatement("SELECT s::bigint AS shard FROM unnest(ARRAY[\(list)]::int[]) AS s WHERE pg_try_advisory_lock(\(Self.shardClass), s)"),
            timeout: timeout)
        return Set(rows.map { Int(clamping: $0["shard"] as Int64) })
    }

    /// Takes a new block of ids; returns its first id. (Joining moved the sequence past every
    /// id recorded before, so blocks hold ids no one used.)
    func takeIDBlock(timeout: Duration) async throws -> UInt64 {
        let rows = try await onWriterSession(StoreStatement("SELECT nextval('cluster_id_blocks') AS block"), timeout: timeout)
        let block = rows.first?["block"] ?? Int64(1)
        // A block past the ceiling (the sequence set by hand) would number ids that overflow.
        guard block >= 1, block < PushStore.idCeiling >> Self.idBlockBits else {
            throw PushStoreError.idOutOfRange(table: "cluster_id_blocks", id: block)
        }
        return UInt64(block) << Self.idBlockBits
    }

    /// The live members (their name, when they joined) and the shards each holds.
    func clusterMembers() async throws -> [StoreRow] {
        try await rows(
            StoreStatement(
                """
                SELECT m.pid AS pid, m.name AS name, m.joined_at AS joined_at,
                    (SELECT string_agg(s.objid::text, ',' ORDER BY s.objid) FROM pg_locks s
                        WHERE s.locktype = 'advisory' AND s.classid = \(Self.shardClass) AND s.objsubid = 2 AND s.granted AND s.pid = m.pid) AS shards
                FROM cluster_members m JOIN pg_locks l ON l.pid = m.pid AND l.locktype = 'advisory' AND l.classid = \(Self.memberClass)
                    AND l.objsubid = 2 AND l.granted
                ORDER BY m.joined_at, m.pid
                """), cached: false)
    }
}

/// Settles a promise once, whichever of its answer and its timer comes first.
private final class SettledOnce: Sendable {
    private let settled = Atomic<Bool>(false)

    /// True the first time only.
    func settle() -> Bool {
        !settled.exchange(true, ordering: .acquiringAndReleasing)
    }
}
