/// A provider-token signing key the receiver knows (`--auth-key KEYID:TEAMID:PATH`).
public struct ProviderKey: Sendable, Equatable {
    /// The 10-character key id (`kid`).
    public var keyID: String
    /// The team the key belongs to (`iss` must match).
    public var teamID: String
    /// The environment the key is limited to; nil: both.
    public var environment: APNsEnvironment?
    /// A revoked key is refused with Forbidden.
    public var revoked: Bool
    /// The bundle ids the team may push to; empty: any.
    public var topics: [String]

    /// A key.
    public init(keyID: String, teamID: String, environment: APNsEnvironment? = nil, revoked: Bool = false, topics: [String] = []) {
        self.keyID = keyID
        self.teamID = teamID
        self.environment = environment
        self.revoked = revoked
        self.topics = topics
    }

    /// Whether `topic` (a bundle id, possibly with a push-type suffix) is one the key may use.
    public func allows(topic: String) -> Bool {
        topics.isEmpty || topics.contains { topic == $0 || topic.hasPrefix($0 + ".") }
    }
}
