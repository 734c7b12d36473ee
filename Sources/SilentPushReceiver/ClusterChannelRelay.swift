import Logging
import SilentPushCore

/// A clustered receiver's `ChannelRelay`: orders on the cluster's bus, answered once every
/// listening member has carried them out (`ClusterMembership+Orders` carries them out).
struct ClusterChannelRelay: ChannelRelay {
    let bus: ClusterBus
    let logger: Logger

    func channelsChanged(_ change: String, then answer: @escaping @Sendable () -> Void) {
        bus.send(.channels) { [logger] result in
            do {
                try ClusterCallError.check(try result.get(), doing: "take the channels")
            } catch {
                logger.warning("a member of the cluster did not take a channel change", metadata: ["change": "\(change)", "error": "\(error)"])
            }
            answer()
        }
    }

    func fanOut(_ broadcast: BroadcastRecord, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        bus.send(.broadcast(id: broadcast.id)) { result in
            completion(Result { try ClusterCallError.check(try result.get(), doing: "fan the broadcast out") })
        }
    }
}
