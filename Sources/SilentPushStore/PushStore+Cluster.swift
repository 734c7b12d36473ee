import SilentPushCore

/// A clustered PostgreSQL store: its receivers share the database, each claiming shards on
/// its writer's session (see `PostgresEngine+Cluster.swift`).
extension PushStore {
    /// Whether this store was opened as one of a cluster's.
    package var isClustered: Bool { (engine as? PostgresEngine)?.clustered ?? false }

    private var clusterEngine: PostgresEngine {
        get throws {
            guard let engine = engine as? PostgresEngine, engine.clustered else { throw PushStoreError.sessionEnded }
            return engine
        }
    }

    /// Joins the cluster (again, after its session ended): checks the shard count and the
    /// kind of clock (`manualClock`) against the running members', takes the member lock and
    /// row on a writer session.
    /// Returns that session (its backend pid), which names this member to the others. With
    /// `uniqueName` (a receiver's first join) a live member of the same name throws
    /// `clusterNameInUse`; joining again after a session ended, the old one may still look
    /// alive for a while, so it is not checked.
    @discardableResult
    package func joinCluster(shards: Int, name: String, manualClock: Bool = false, now: Int64, uniqueName: Bool = false) async throws -> Int32 {
        try await clusterEngine.join(shards: shards, name: name, manualClock: manualClock, now: now, uniqueName: uniqueName)
    }

    /// Listens for the notices members send (this one's too) on the writer's session, handing
    /// each to `handler` in order, until that session ends (then it throws `sessionEnded`).
    /// `started` is called once this member is listening, and counted as such by the others.
    package func listenCluster(started: @Sendable () -> Void, handler: @Sendable (String) -> Void) async throws {
        try await clusterEngine.listen(started: started, handler: handler)
    }

    /// Sends a notice to every member listening.
    package func notifyCluster(_ payload: String) async throws {
        try await clusterEngine.notify(payload)
    }

    /// Takes the lock that lets one member at a time move the cluster's clock, unless
    /// another holds it; true if taken. It is held on the writer's session.
    package func tryLockClusterClock(timeout: Duration) async throws -> Bool {
        try await clusterEngine.tryLockClock(timeout: timeout)
    }

    /// Gives the clock's lock back.
    package func unlockClusterClock(timeout: Duration) async throws {
        try await clusterEngine.unlockClock(timeout: timeout)
    }

    /// The cluster's fault rules, oldest first: each one's id and its JSON as given.
    package func clusterFaults() async throws -> [(id: UInt64, rule: String)] {
        try await clusterEngine.faults().map { (UInt64(clamping: $0.id), $0.rule) }
    }

    /// Adds a fault rule (its JSON as given) for the whole cluster; returns its id.
    package func addClusterFault(_ rule: String) async throws -> UInt64 {
        UInt64(clamping: try await clusterEngine.addFault(rule))
    }

    /// Removes the cluster's fault rule `id` (nil: every one); returns how many went.
    @discardableResult
    package func removeClusterFaults(_ id: UInt64?) async throws -> Int {
        try await clusterEngine.removeFaults(id.map { Int64(clamping: $0) })
    }

    /// Who holds what; read on the writer's session, so it fails (`sessionEnded`) once that
    /// session has, or does not answer within `timeout`.
    package func clusterLocks(timeout: Duration) async throws -> ClusterLocks {
        let locks = try await clusterEngine.clusterLocks(timeout: timeout)
        return ClusterLocks(session: locks.session, members: locks.members, listeners: locks.listeners, shards: locks.shards)
    }

    /// Claims those of `shards` no one holds; returns those claimed.
    package func claimShards(_ shards: [Int], timeout: Duration) async throws -> Set<Int> {
        try await clusterEngine.claim(shards, timeout: timeout)
    }

    /// Takes a new block of ids for this member; returns its first id.
    package func takeIDBlock(timeout: Duration) async throws -> UInt64 {
        try await clusterEngine.takeIDBlock(timeout: timeout)
    }

    /// How many ids a block holds.
    package static var idBlockSize: UInt64 { 1 << PostgresEngine.idBlockBits }

    /// The live members, each with the shards it holds.
    package func clusterMembers() async throws -> [ClusterMemberRecord] {
        try await clusterEngine.clusterMembers().map { row in
            let shards: String? = row["shards"]
            return ClusterMemberRecord(
                session: Int32(clamping: row["pid"] as Int64), name: row["name"], joinedAt: row["joined_at"],
                shards: (shards ?? "").split(separator: ",").compactMap { Int($0) })
        }
    }

    /// The shared database's URL, without its password.
    package var clusterStoreDescription: String { (engine as? PostgresEngine)?.url.description ?? "" }

    /// Calls `handler` whenever the writer's session ends, its claims with it.
    package func onSessionEnded(_ handler: @escaping @Sendable () -> Void) {
        (engine as? PostgresEngine)?.sessionEnded.withLock { $0 = handler }
    }
}
