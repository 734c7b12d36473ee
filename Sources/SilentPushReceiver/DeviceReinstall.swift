import Foundation
import SilentPushCore

/// The app deleted and installed again on a device: iOS gives it a new device token, and APNs
/// answers the old one `410 Unregistered` with the time of the change (device time).
enum DeviceReinstall {
    /// Gives `token`'s app a new token (registered to the same topics, the device's state
    /// carried over) and unregisters the old one now. Returns the new token and the time (ms).
    static func reinstall(_ token: String, endpoint: APNsEndpoint, device: DeviceControl) async throws -> (token: String, unregisteredAt: Int64) {
        var random = SystemRandomNumberGenerator()
        let fresh = (0..<4).map { _ in String(format: "%016llx", random.next() as UInt64) }.joined()
        let at = endpoint.deviceNow().millisecondsSinceEpoch  // device time, as the rest of the record
        endpoint.withDevices { registry in
            let topics = registry.entry(token).map { Array($0.topics).sorted() } ?? []
            registry.register(fresh, topics: topics)
            registry.unregister(token, at: at)
        }
        try await device.store.write([.setUnregistered(token: token, at: at)])
        // What waited for the deleted install never reaches it: its pending push, task
        // requests and background transfers end.
        try await device.runtime.committing { recorder, now, completion in recorder.appDeleted(token, now: now, completion: completion) }
        // The phone is the same: its battery, network and the rest carry over.
        let state = device.deviceState(of: token)
        if state != DeviceState() { try await device.setDeviceState(state, for: fresh) }
        return (fresh, at)
    }
}
