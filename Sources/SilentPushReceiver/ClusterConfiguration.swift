import Foundation
import SilentPushCore

/// A receiver's part in a cluster (`--cluster-shards`): its receivers share one PostgreSQL
/// store, and each owns some of the shards the devices fall into.
public struct ClusterConfiguration: Sendable, Equatable {
    /// How many shards the devices fall into (`--cluster-shards`): the same on every receiver.
    public var shards: Int
    /// How often the receiver looks for free shards to claim and checks its own claims
    /// (`--cluster-claim-interval`): the longest a dead receiver's shards stay unowned.
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

/// A cluster configuration a receiver cannot run with; the description says what to fix.
package enum ClusterConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The shard count is outside `ClusterConfiguration.shardRange`.
    case shardCount(Int)
    /// The claim interval is outside `ClusterConfiguration.claimIntervalRange`.
    case claimInterval(Duration)
    /// The store is not PostgreSQL, which the cluster's receivers share.
    case needsPostgres
    /// Fault rules came with the configuration: a cluster's live in its store, one set for all.
    case faultsInConfiguration

    package var description: String {
        switch self {
        case .shardCount(let count):
            "a cluster of \(count) shards: give from \(ClusterConfiguration.shardRange.lowerBound) to \(ClusterConfiguration.shardRange.upperBound) (--cluster-shards)"
        case .claimInterval(let interval):
            "a claim interval of \(interval): give from \(ClusterConfiguration.claimIntervalLimits.shortest) to \(ClusterConfiguration.claimIntervalLimits.longest) (--cluster-claim-interval)"
        case .needsPostgres: "a cluster needs a PostgreSQL store that its receivers share (--store postgres://…)"
        case .faultsInConfiguration:
            "a cluster's fault rules are shared through its store: add them with POST /v1/faults, not in the configuration file (faults)"
        }
    }
}
