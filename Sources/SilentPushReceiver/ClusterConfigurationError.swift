import Foundation
import SilentPushCore

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
