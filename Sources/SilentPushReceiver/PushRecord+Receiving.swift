import SilentPushCore
import SilentPushStore

extension PushRecord {
    /// The record of a push APNs accepted, received at device time `now` (`systemNow` on the
    /// system clock: what `apns-expiration` counts from), and what the policy sees of it: nil
    /// when it can never wake the app (`neverWakes`), and is recorded dropped at once.
    static func received(
        _ push: ValidatedPush, id: UInt64, neverWakes: DropReason?, systemNow: DeviceInstant, now: DeviceInstant
    ) -> (PushRecord, IncomingPush<DeviceInstant>?) {
        let expiresAt = DeviceInstant.expiry(ofAPNsExpiration: push.expiration, systemNow: systemNow, deviceNow: now)
        let record = PushRecord(
            id: id, apnsID: push.apnsID, deviceToken: push.deviceToken, topic: push.topic, pushType: push.pushType.rawValue,
            priority: push.priority.rawValue, receivedAt: now.millisecondsSinceEpoch, expiresAt: expiresAt?.millisecondsSinceEpoch,
            collapseID: push.collapseID, payload: push.body, warnings: push.warnings,
            fate: neverWakes.map { .dropped($0) } ?? .pending)
        let incoming = neverWakes == nil ? IncomingPush(id: id, priority: push.priority, expiresAt: expiresAt) : nil
        return (record, incoming)
    }

    /// The record of a request refused before it became a push (`rejected`, or `injected` by
    /// a fault rule), at device time `now`.
    static func refused(
        id: UInt64, apnsID: String, deviceToken: String?, topic: String?, fate: PushFate, now: DeviceInstant
    ) -> PushRecord {
        PushRecord(
            id: id, apnsID: apnsID, deviceToken: deviceToken ?? "", topic: topic ?? "", pushType: "", priority: 0,
            receivedAt: now.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil, payload: [], warnings: [], fate: fate)
    }
}
