import Foundation
import SilentPushCore

/// The app deleted and installed again on a device: iOS gives it a new device token, and APNs
/// answers the old one `410 Unregistered` with the time of the change (device time).
enum DeviceReinstall {
    /// Gives `token`'s app a new token (registered to the same topics, the device's state
    /// carried over) and unregisters the old one now. Returns the new token and the time (ms).
    /// Throws `DeviceReinstallError` for a token already unregistered or expired: its app was
    /// uninstalled or has another token, and a second install from it would leave two.
    static func reinstall(_ token: String, endpoint: APNsEndpoint, device: DeviceControl) async throws -> (token: String, unregisteredAt: Int64) {
        // Refused before anything changes: while the device side drains, the old token's
        // work would not end and its state would not carry over.
        guard !device.isStopping else { throw DeviceStopping() }
        // Shaped as a device token; in a cluster, in the old token's shard, so this receiver
        // (the device's owner) keeps it, with its registration (a random one would usually
        // be another receiver's, which would refuse it until it next took the shard).
        let fresh = DeviceToken.random(inShardOf: token, in: device.runtime.shardMap)
        let at = endpoint.deviceNow().millisecondsSinceEpoch  // device time, as the rest of the record
        func refusal(_ registry: DeviceRegistry) -> DeviceReinstallError? {
            switch registry.entry(token)?.state {
            case .unregistered(let since)?: .unregistered(token: token, at: since)
            case .expired(let since)?: .expired(token: token, at: since)
            case .active?, nil: nil
            }
        }
        let (refused, topics) = endpoint.withDevices { registry in
            (refusal(registry), registry.entry(token).map { Array($0.topics).sorted() } ?? [])
        }
        if let refused { throw refused }
        // The store first: a write that fails leaves the token as it was, and a retry may
        // follow. The new token's registration outlives a restart.
        try await device.store.write([.setUnregistered(token: token, at: at), .setRegistered(token: fresh, topics: topics)])
        let lost: DeviceReinstallError? = endpoint.withDevices { registry in
            // A reinstall of the same token that finished meanwhile keeps its new token.
            if let refused = refusal(registry) { return refused }
            registry.register(fresh, topics: topics)
            registry.unregister(token, at: at)
            return nil
        }
        if let lost {
            // The registration written for the new token is another install's to make.
            try? await device.store.write([.forgetDevice(token: fresh)])
            throw lost
        }
        // What waited for the deleted install never reaches it: its pending push, task
        // requests and background transfers end.
        try await device.runtime.committing { recorder, now, completion in recorder.appDeleted(token, now: now, completion: completion) }
        // The phone is the same: its battery, network and the rest carry over.
        let state = device.deviceState(of: token)
        if state != DeviceState() { try await device.setDeviceState(state, for: fresh) }
        return (fresh, at)
    }
}
