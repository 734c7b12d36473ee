/// What happened to a push (SPEC §4: every push has one fate).
public enum PushFate: Sendable, Equatable {
    /// Waiting in its app's slot.
    case pending
    /// Delivered by this wake.
    case delivered(wakeID: UInt64)
    /// Replaced in the slot; rides the wake that delivers its successor (nil until then).
    case coalesced(wakeID: UInt64?)
    /// Its time-to-live ran out before a wake could deliver it.
    case expired
    /// It never reaches the app, for this reason.
    case dropped(reason: String)
    /// APNs refused it with this reason (an Apple reason string); it never reached the device.
    case rejected(reason: String)

    /// The kinds of fate, without what each carries.
    public enum Kind: String, Sendable, CaseIterable {
        case pending, delivered, coalesced, expired, dropped, rejected
    }

    /// Which kind of fate this is.
    public var kind: Kind {
        switch self {
        case .pending: .pending
        case .delivered: .delivered
        case .coalesced: .coalesced
        case .expired: .expired
        case .dropped: .dropped
        case .rejected: .rejected
        }
    }

    /// The fate's name as stored and served: pending, delivered, coalesced, expired, dropped, rejected.
    public var name: String { kind.rawValue }
}
