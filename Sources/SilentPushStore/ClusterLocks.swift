import SilentPushCore

/// Who holds what in a cluster, as its store's advisory locks say.
package struct ClusterLocks: Sendable, Equatable {
    /// The asking receiver's writer session (its backend pid).
    package var session: Int32
    /// The sessions of the live members.
    package var members: Set<Int32>
    /// The sessions of the members listening for notices (`listenCluster`): those that hear
    /// an order sent now.
    package var listeners: Set<Int32> = []
    /// Each claimed shard's holder (a session).
    package var shards: [Int: Int32]

    /// The shards `session` holds.
    package var owned: Set<Int> { Set(shards.filter { $0.value == session }.keys) }
}
