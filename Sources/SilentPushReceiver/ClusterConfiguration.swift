import Foundation
import SilentPushCore

/// A receiver's part in a cluster (`--cluster-shards`): its receivers share one PostgreSQL
/// store, and each owns some of the shards the devices fall into.
public struct ClusterConfiguration: Sendable, Equatable {
    /// How many shards the devices fall into (`--cluster-shards`): the same on every receiver.
    public var shards: Int
    /// How often the receiver looks for free shards to claim and checks its own claims
    /// (`--cluster-claim-interval`): a dead receiver's shards stay unowned for one or two of these.
    public var claimInterval: Duration
    /// The receiver's name in `GET /v1/cluster` (`--cluster-name`; by default host:pid).
    public var name: String

    /// The fewest and most shards (a shard is an advisory lock, a proxy backend and a
    /// health check each).
    public static let shardRange = 1...ShardMap.maximumCount
    /// The shortest and longest claim interval (*assumed*: below 100 ms the ticks alone load
    /// the database; past a minute a dead receiver's devices wait too long).
    public static let claimIntervalRange = Duration.milliseconds(100)...Duration.seconds(60)
    /// `claimIntervalRange`'s ends as the flag takes them.
    package static let claimIntervalLimits = (
        shortest: "\(Int(claimIntervalRange.lowerBound / .milliseconds(1)))ms", longest: "\(Int(claimIntervalRange.upperBound / .seconds(1)))s"
    )

    /// How often a receiver claims shards when `--cluster-claim-interval` is not given.
    public static let defaultClaimInterval = Duration.seconds(2)

    /// A receiver of a cluster of `shards` shards.
    public init(shards: Int, claimInterval: Duration = defaultClaimInterval, name: String? = nil) {
        self.shards = shards
        self.claimInterval = claimInterval
        self.name = name ?? "\(ProcessInfo.processInfo.hostName):\(getpid())"
    }

    /// How long a claim check may go unanswered before the receiver takes its session (and
    /// so its claims) for gone: twice the claim interval, at least one second.
    var lease: Duration { max(claimInterval * 2, .seconds(1)) }
}
