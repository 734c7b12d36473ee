import SilentPushCore

/// A cluster-wide change that some members could not make, or why one member could not.
enum ClusterCallError: Error, CustomStringConvertible {
    case failed(doing: String, [ClusterCalls.Failure])
    /// The fault table holds `FaultTable.capacity` rules already.
    case faultTableFull
    /// A member was ordered to fan out a broadcast the store does not hold.
    case broadcastNotStored(UInt64)
    /// Shards no live receiver has claimed yet (one died): a clock advance now would not fire
    /// their devices' timers on the way.
    case shardsWithoutOwner([Int])

    static func check(_ failures: [ClusterCalls.Failure], doing: String) throws {
        if !failures.isEmpty { throw failed(doing: doing, failures) }
    }

    var description: String {
        switch self {
        case .failed(let doing, let failures):
            let members = failures.map { "session \($0.member) (\($0.reason))" }.joined(separator: "; ")
            return "not every receiver of the cluster could \(doing): \(members)"
        case .faultTableFull: return "there are \(FaultTable.capacity) fault rules already: remove some first"
        case .broadcastNotStored(let id): return "broadcast \(id) is not in the store"
        case .shardsWithoutOwner(let shards):
            let named = shards.prefix(8).map(String.init).joined(separator: ", ") + (shards.count > 8 ? ", …" : "")
            return
                "shards \(named) have no owner yet (a receiver stopped, and no other has claimed them): try again once one has (a claim interval or two)"
        }
    }
}
