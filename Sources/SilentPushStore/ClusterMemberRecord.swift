import SilentPushCore

/// A live member of a cluster, as the store knows it.
package struct ClusterMemberRecord: Sendable, Equatable {
    /// Its writer session's backend pid.
    package var session: Int32
    package var name: String
    /// When it joined (milliseconds since 1970, system time).
    package var joinedAt: Int64
    /// The shards it holds.
    package var shards: [Int]
}
