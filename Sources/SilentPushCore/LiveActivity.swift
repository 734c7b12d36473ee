/// One Live Activity on one device, as the device shows it.
public struct LiveActivity: Sendable, Equatable {
    /// Where it is in its life.
    public enum State: Sendable, Equatable {
        /// Shown, its content current.
        case active
        /// Shown, past its `stale-date`.
        case stale
        /// Ended at `at`; still on the Lock Screen until `dismissAt`.
        case ended(at: DeviceInstant, dismissAt: DeviceInstant)
        /// Ended at `endedAt`, then removed at `at` (nil `endedAt`: a record from before the
        /// end was kept once dismissed).
        case dismissed(at: DeviceInstant, endedAt: DeviceInstant?)

        /// A state's name without its data: the one mapping to text, both ways.
        package enum Kind: String, Sendable, CaseIterable {
            case active, stale, ended, dismissed
        }

        /// Which state it is.
        package var kind: Kind {
            switch self {
            case .active: .active
            case .stale: .stale
            case .ended: .ended
            case .dismissed: .dismissed
            }
        }

        /// `active`, `stale`, `ended` or `dismissed`, as the store and the admin API write it.
        public var name: String { kind.rawValue }

        /// Ended or dismissed: pushes no longer change it.
        public var isOver: Bool {
            switch self {
            case .active, .stale: false
            case .ended, .dismissed: true
            }
        }
    }

    /// How updates reach it: its own push token, a broadcast channel, or neither (a start
    /// without `input-push-token: 1`).
    public enum Subscription: Sendable, Equatable {
        /// Updates come as pushes to its own update token (a start with `input-push-token: 1`).
        case token(String)
        /// Updates come as broadcasts on this channel (a start with `input-push-channel`).
        case channel(ChannelID)
        /// No push updates it.
        case none
    }

    /// Its id (a UUID, as ActivityKit's `Activity.id`).
    public var id: String
    /// The device and app it belongs to.
    public var app: LiveActivityApp
    /// `attributes-type` as sent.
    public var attributesType: String
    /// `attributes` as sent (a JSON object).
    public var attributes: String
    /// How updates reach it.
    public var subscription: Subscription
    /// Where it is in its life.
    public var state: State
    /// The content-state it shows, as sent.
    public var contentState: String
    /// The `stale-date` of the content it shows.
    public var staleDate: DeviceInstant?
    /// The `relevance-score` of the content it shows: which of the app's activities the system shows first.
    public var relevanceScore: Double?
    /// The `timestamp` of the last update applied (nil: none yet, a local start).
    public var timestamp: DeviceInstant?
    /// When it started on the device.
    public var startedAt: DeviceInstant
    /// Why it is as it is now, in words: the device's last decision about it (its start, an
    /// update applied, its stale date, its end by a push or by the system, its dismissal).
    public var why: String

    /// Its update token; nil for a channel activity or one with none.
    public var pushToken: String? {
        if case .token(let token) = subscription { token } else { nil }
    }

    /// The channel it listens on; nil for a token activity.
    public var channel: ChannelID? {
        if case .channel(let id) = subscription { id } else { nil }
    }

    /// When it ended; nil while it is active or stale (and for a dismissed activity recorded
    /// before its end was kept).
    public var endedAt: DeviceInstant? {
        switch state {
        case .active, .stale: nil
        case .ended(let at, _): at
        case .dismissed(_, let endedAt): endedAt
        }
    }

    /// When an ended activity leaves (or left) the Lock Screen; nil before it ends.
    public var dismissalDate: DeviceInstant? {
        switch state {
        case .active, .stale: nil
        case .ended(_, let dismissAt): dismissAt
        case .dismissed(let at, _): at
        }
    }

    /// An activity.
    public init(
        id: String, app: LiveActivityApp, attributesType: String, attributes: String, subscription: Subscription, state: State = .active,
        contentState: String, staleDate: DeviceInstant? = nil, relevanceScore: Double? = nil, timestamp: DeviceInstant? = nil,
        startedAt: DeviceInstant, why: String = ""
    ) {
        self.id = id
        self.app = app
        self.attributesType = attributesType
        self.attributes = attributes
        self.subscription = subscription
        self.state = state
        self.contentState = contentState
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.timestamp = timestamp
        self.startedAt = startedAt
        self.why = why
    }
}
