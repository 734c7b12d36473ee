/// A refused request: the reason, and for 410 the time (ms since the epoch) the device
/// token stopped being valid.
public struct APNsRejection: Error, Sendable, Equatable {
    /// Apple's reason.
    public var reason: APNsReason
    /// For `Unregistered` and `ExpiredToken`: when, in ms since the epoch.
    public var timestamp: Int64?

    /// A rejection.
    public init(_ reason: APNsReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }
}
