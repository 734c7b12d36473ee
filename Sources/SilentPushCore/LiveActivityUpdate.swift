/// What became of one push or broadcast for one Live Activity (or, when none took it, for
/// the push), and why.
public struct LiveActivityUpdate: Sendable, Equatable {
    /// What the device did with it.
    public enum Outcome: Sendable, Equatable {
        /// Shown (or, for a start, the activity began).
        case applied
        /// Held until `until` (over the budget, or opportunistic).
        case waiting(until: DeviceInstant)
        /// Replaced, while it waited, by the later update `into`: only the latest content shows.
        case coalesced(into: String)
        /// Not used, for this reason.
        case ignored(LiveActivityIgnored)

        /// Applied: the activity shows it.
        public var applied: Bool { self == .applied }

        /// When a waiting update shows by itself; nil when it does not wait, or waits for good
        /// (an hourly budget of 0, which the policy holds until `.distantFuture`). Compared in
        /// milliseconds, as the store keeps it: read back, the far future is a millisecond short.
        package var showsAt: DeviceInstant? {
            guard case .waiting(let until) = self, until.millisecondsSinceEpoch < DeviceInstant.distantFuture.millisecondsSinceEpoch
            else { return nil }
            return until
        }

        /// An outcome's name without its data: the one mapping to text, both ways.
        package enum Kind: String, Sendable, CaseIterable {
            case applied, waiting, coalesced, ignored
        }

        /// Which outcome it is.
        package var kind: Kind {
            switch self {
            case .applied: .applied
            case .waiting: .waiting
            case .coalesced: .coalesced
            case .ignored: .ignored
            }
        }

        /// `applied`, `waiting`, `coalesced` or `ignored`, as the store and the admin API write it.
        public var name: String { kind.rawValue }
    }

    /// The push's `apns-id`, or the broadcast's `apns-request-id`.
    public var source: String
    /// The activity it was for; nil when no activity took it.
    public var activityID: String?
    /// What the device did with it.
    public var outcome: Outcome
    /// The decision in words.
    public var why: String
    /// When the device decided, on the device clock.
    public var at: DeviceInstant

    /// A record of one decision.
    public init(source: String, activityID: String?, outcome: Outcome, why: String, at: DeviceInstant) {
        self.source = source
        self.activityID = activityID
        self.outcome = outcome
        self.why = why
        self.at = at
    }
}
