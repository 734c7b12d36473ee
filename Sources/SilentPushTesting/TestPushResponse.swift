import SilentPushCore

/// APNs' answer to one push.
public struct TestPushResponse: Sendable, Equatable {
    /// 200, or the error status.
    public var status: Int
    /// The `apns-id` answered.
    public var apnsID: String
    /// Apple's reason for an error; nil for a success.
    public var reason: APNsReason?
    /// For 410: when the token stopped being valid (ms since the epoch).
    public var timestamp: Int64? = nil
    /// `apns-unique-id`, answered in the development environment.
    public var uniqueID: String? = nil
}
