import SilentPushCore
import SilentPushStore

/// What an expired push ran out of, as its row shows it: its own `apns-expiration`, or APNs's
/// storage limit, which ends a push APNs held for an offline device at the latest (the rule
/// of `InstantProtocol.apnsHeldExpiry`, which the device side expires it by).
enum PushExpiry: Equatable {
    /// Its `apns-expiration` (it waited on the device, or APNs held it and that came sooner).
    case ownExpiration
    /// APNs's storage limit, sooner than its `apns-expiration` (`hasOwn`) or with none.
    case storageLimit(hasOwn: Bool)

    /// The expiry `push` had. A push with no `apns-expiration` expires only at the storage
    /// limit; one not held at APNs only at its own time. (A row written before rows marked a
    /// push held at APNs reads as not held.)
    init(of push: PushRecord, storageLimit: Duration) {
        guard let own = push.expiresAt else {
            self = .storageLimit(hasOwn: false)
            return
        }
        guard push.heldAtAPNs else {
            self = .ownExpiration
            return
        }
        let ownInstant = DeviceInstant(millisecondsSinceEpoch: own)
        let held = DeviceInstant.apnsHeldExpiry(
            ownInstant, arrivedAt: DeviceInstant(millisecondsSinceEpoch: push.receivedAt), limit: storageLimit)
        self = held < ownInstant ? .storageLimit(hasOwn: true) : .ownExpiration
    }
}
