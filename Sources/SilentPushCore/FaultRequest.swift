/// What a fault rule can match in a request.
public struct FaultRequest: Sendable, Equatable {
    /// The device token, in lower case (APNs takes a token in either case, and a rule's
    /// device is kept in lower case).
    public var device: String
    /// The topic the request is for, as authentication settled it.
    public var topic: String?
    /// The provider token's team and key (nil for a certificate, or before auth).
    public var team: String?
    /// The provider token's key id (nil for a certificate, or before auth).
    public var keyID: String?

    /// A request to `device` (in either case).
    public init(device: String, topic: String?, team: String?, keyID: String?) {
        self.device = device.lowercased()
        self.topic = topic
        self.team = team
        self.keyID = keyID
    }
}
