import Logging
import SilentPushCore

/// A clustered receiver's `ChannelRelay`: orders on the cluster's bus, answered once every
/// listening member has carried them out (`ClusterMembership+Orders` carries them out).
struct ClusterChannelRelay: ChannelRelay {
    let bus: ClusterBus
    let logger: Logger

    func channelsChanged(_ change: String) async {
        do {
            try ClusterCallError.check(try await bus.call(.channels), doing: "take the channels")
        } catch {
            logger.warning("a member of the cluster did not take a channel change", metadata: ["change": "\(change)", "error": "\(error)"])
        }
    }

    func fanOut(_ broadcast: BroadcastRecord) async throws {
        try ClusterCallError.check(try await bus.call(.broadcast(id: broadcast.id)), doing: "fan the broadcast out")
    }
}
