import SilentPushCore

/// What a wake hands the app's fetch handler: the push delivered and the pushes
/// coalesced into it.
public struct Wake: Sendable, Equatable {
    /// The wake's id, as the admin API reports it.
    public var id: UInt64
    /// The device woken.
    public var deviceToken: String
    /// The woken app's topic.
    public var topic: String
    /// The delivered push's `apns-id`.
    public var apnsID: String
    /// The delivered push's payload, as sent.
    public var payload: [UInt8]
    /// `apns-priority` of the delivered push.
    public var priority: APNsPriority
    /// The `apns-id`s of the pushes it replaced in the app's slot, oldest first.
    public var coalescedAPNsIDs: [String]
    /// When the wake started, on the device clock.
    public var startedAt: DeviceInstant
    /// Past it, on the device clock, the handler is cancelled.
    public var deadline: DeviceInstant
    /// The time the handler has: from the start to the deadline (about 30 s on iOS).
    public var timeLimit: Duration { startedAt.duration(to: deadline) }

    /// A wake.
    public init(
        id: UInt64, deviceToken: String, topic: String, apnsID: String, payload: [UInt8], priority: APNsPriority,
        coalescedAPNsIDs: [String], startedAt: DeviceInstant, deadline: DeviceInstant
    ) {
        self.id = id
        self.deviceToken = deviceToken
        self.topic = topic
        self.apnsID = apnsID
        self.payload = payload
        self.priority = priority
        self.coalescedAPNsIDs = coalescedAPNsIDs
        self.startedAt = startedAt
        self.deadline = deadline
    }
}
