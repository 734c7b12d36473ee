/// A push APNs would accept: everything the device side needs, parsed and checked.
public struct ValidatedPush: Sendable {
    /// The device token, lower-case hex.
    public var deviceToken: String
    /// The topic (bundle id, possibly with a push-type suffix).
    public var topic: String
    /// `apns-push-type`, or what was inferred when absent.
    public var pushType: APNsPushType
    /// `apns-priority` (10 when absent).
    public var priority: APNsPriority
    /// `apns-expiration` in seconds since the epoch; nil when absent; 0 = deliver now or never.
    public var expiration: Int64?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// The push's id (`apns-id`, echoed or generated).
    public var apnsID: String
    /// What the payload carries.
    public var payload: APNsPayload
    /// The payload bytes as sent.
    public var body: [UInt8]
    /// What APNs tolerates but Apple calls an error or advises against.
    public var warnings: [String]
    /// Why this push, though accepted, can never wake the app (a background push without
    /// content-available); nil when it can.
    public var neverWakesReason: DropReason?

    /// Why this push can never start a background fetch: `neverWakesReason`, else a push
    /// type that never wakes the app for one, else a push without content-available; nil
    /// when it can.
    package var neverFetchesReason: DropReason? {
        if let reason = neverWakesReason { return reason }
        guard pushType == .background || pushType == .alert else { return .pushTypeNeverWakes(pushType) }
        return payload.contentAvailable ? nil : .noContentAvailable
    }
}
