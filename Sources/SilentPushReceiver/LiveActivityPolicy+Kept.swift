import SilentPushCore

/// A broadcast as a Most Recent Message Stored channel keeps it, and until when.
extension LiveActivityPolicy.Broadcast {
    /// Until when a channel of `storagePolicy` keeps broadcast `record`, received at
    /// `receivedAt`: its `lifetime` (8 hours), or its `apns-expiration` (counted from `now`)
    /// if sooner; nil when it keeps nothing (No Message Stored, or expiration 0).
    static func keptUntil(
        _ record: BroadcastRecord, storagePolicy: MessageStoragePolicy, receivedAt: DeviceInstant, lifetime: Duration, systemNow: DeviceInstant,
        now: DeviceInstant
    ) -> DeviceInstant? {
        guard storagePolicy == .mostRecentMessageStored, record.expiration != 0 else { return nil }
        let kept = receivedAt.advanced(by: lifetime)
        return min(kept, DeviceInstant.expiry(ofAPNsExpiration: record.expiration, systemNow: systemNow, deviceNow: now) ?? kept)
    }

    /// Broadcast `record`, recorded earlier (here or by another member), as the activities take
    /// it at `now`: kept by a channel of `storagePolicy` from when it was received.
    init(
        recorded record: BroadcastRecord, payload: LiveActivityPayload, storagePolicy: MessageStoragePolicy, lifetime: Duration,
        systemNow: DeviceInstant, now: DeviceInstant
    ) {
        self.init(
            record, payload: payload,
            storedUntil: Self.keptUntil(
                record, storagePolicy: storagePolicy, receivedAt: record.receivedAt, lifetime: lifetime, systemNow: systemNow, now: now))
    }
}
