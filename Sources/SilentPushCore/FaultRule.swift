/// A fault to inject: which requests it matches, how often, when, and what the
/// APNs endpoint does with them.
public struct FaultRule: Sendable, Equatable {
    /// Which requests a rule matches: every field given must be equal (nil: any).
    public struct Match: Sendable, Equatable {
        /// Kept in lower case, as `FaultRequest.device` is (APNs takes a token in either case).
        public var device: String? {
            didSet { device = device?.lowercased() }
        }
        /// The request's topic.
        public var topic: String?
        /// The provider token's team id (a certificate's request has none, so does not match).
        public var team: String?
        /// The provider token's key id (a certificate's request has none, so does not match).
        public var keyID: String?

        /// A match.
        public init(device: String? = nil, topic: String? = nil, team: String? = nil, keyID: String? = nil) {
            self.device = device?.lowercased()
            self.topic = topic
            self.team = team
            self.keyID = keyID
        }

        /// Whether `request` is one of these (`device` in either case, as APNs takes a token).
        public func matches(_ request: FaultRequest) -> Bool {
            (device == nil || device == request.device) && (topic == nil || topic == request.topic)
                && (team == nil || team == request.team) && (keyID == nil || keyID == request.keyID)
        }
    }

    /// Given by the table.
    public var id: UInt64
    /// Which requests it applies to.
    public var match: Match
    /// The share of matching requests it applies to (0 < fraction ≤ 1); nil: every one.
    public var fraction: Double?
    /// How many more times it applies; nil: no limit. A rule at 0 applies no more.
    public var remaining: Int?
    /// Device time it applies from and until (nil: always).
    public var from: DeviceInstant?
    /// Device time it stops applying at (excluded); nil: never.
    public var until: DeviceInstant?
    /// What the APNs endpoint does with a request it applies to.
    public var action: FaultAction
    /// How many requests it applied to.
    public var applied: Int = 0

    /// A rule.
    public init(
        id: UInt64 = 0, match: Match = Match(), fraction: Double? = nil, count: Int? = nil, from: DeviceInstant? = nil, until: DeviceInstant? = nil,
        action: FaultAction
    ) {
        self.id = id
        self.match = match
        self.fraction = fraction
        self.remaining = count
        self.from = from
        self.until = until
        self.action = action
    }

    /// Whether it still applies to anything.
    public var isSpent: Bool { remaining == 0 }
}
