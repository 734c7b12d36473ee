/// A broadcast APNs accepted: what the store keeps of it, and what the device side fans out.
public struct BroadcastRecord: Sendable, Equatable {
    /// The receiver's sequence number for it (ascending in arrival order).
    public var id: UInt64
    /// `apns-request-id`: the request's own, else generated.
    public var requestID: String
    /// `apns-unique-id`, answered in the development environment only.
    public var uniqueID: String?
    /// The app (bundle id) in the path.
    public var bundleID: String
    /// The environment it was sent in.
    public var environment: APNsEnvironment
    /// The channel it was published on.
    public var channelID: ChannelID
    /// `apns-priority`.
    public var priority: APNsPriority
    /// `apns-expiration`, seconds since the epoch; 0: one attempt, nothing stored.
    public var expiration: Int64
    /// When it arrived, on the device clock.
    public var receivedAt: DeviceInstant
    /// The payload as sent.
    public var payload: [UInt8]

    /// A record.
    public init(
        id: UInt64, requestID: String, uniqueID: String?, bundleID: String, environment: APNsEnvironment, channelID: ChannelID,
        priority: APNsPriority, expiration: Int64, receivedAt: DeviceInstant, payload: [UInt8]
    ) {
        self.id = id
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.bundleID = bundleID
        self.environment = environment
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.receivedAt = receivedAt
        self.payload = payload
    }
}

extension LiveActivityPolicy.Broadcast {
    /// Broadcast `record` as the device's activities take it: its `payload` read, kept by
    /// its channel until `storedUntil` (nil: not kept).
    public init(_ record: BroadcastRecord, payload: LiveActivityPayload, storedUntil: DeviceInstant?) {
        self.init(
            source: record.requestID, channel: LiveActivityPolicy.ChannelKey(bundleID: record.bundleID, channel: record.channelID),
            priority: record.priority, payload: payload, receivedAt: record.receivedAt, storedUntil: storedUntil, recordID: record.id)
    }
}
