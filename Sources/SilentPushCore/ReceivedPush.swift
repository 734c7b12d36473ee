/// A push the receiver recorded, as a test of a provider reads it back: what the provider
/// sent and what became of it (refused by APNs: fate `rejected`).
public struct ReceivedPush: Sendable, Equatable {
    /// Its `apns-id` (the one APNs answered with).
    public var apnsID: String
    /// The device token it went to (lower-case hex).
    public var deviceToken: String
    /// Its `apns-topic`.
    public var topic: String
    /// Its `apns-push-type`; nil for one this version does not know.
    public var pushType: APNsPushType?
    /// Its `apns-priority` (10 when it sent none).
    public var priority: APNsPriority?
    /// When it arrived, on the device clock.
    public var receivedAt: DeviceInstant
    /// When it expires (`apns-expiration`); nil: it does not.
    public var expiresAt: DeviceInstant?
    /// Its `apns-collapse-id`.
    public var collapseID: String?
    /// Its payload, as sent.
    public var payload: [UInt8]
    /// Its fate now.
    public var fate: PushFate

    /// A push as read back.
    public init(
        apnsID: String, deviceToken: String, topic: String, pushType: APNsPushType?, priority: APNsPriority?, receivedAt: DeviceInstant,
        expiresAt: DeviceInstant?, collapseID: String?, payload: [UInt8], fate: PushFate
    ) {
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.payload = payload
        self.fate = fate
    }
}
