/// What happened to a push (every push has one fate).
///
/// Two fates are equal when their kinds and reasons are: the wake that delivered a push is
/// a property, ``wakeID``, not part of equality, so a test can write
/// `#expect(fate == .delivered)` without knowing the wake's id.
public struct PushFate: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of fate.
    public enum Kind: String, Sendable, CaseIterable {
        /// Waiting in its app's slot.
        case pending
        /// Delivered by a wake.
        case delivered
        /// Replaced in its app's slot: it rides the wake that delivers its successor.
        case coalesced
        /// Its time-to-live ran out before a wake could deliver it.
        case expired
        /// It never reaches the app (see ``PushFate/dropReason``).
        case dropped
        /// APNs refused it (see ``PushFate/rejection``); it never reached the device.
        case rejected
        /// A fault rule answered it (see ``PushFate/injection``); it never reached the device.
        case injected
    }

    /// Which kind of fate this is.
    public let kind: Kind
    /// The wake that delivered the push: set for `delivered`, and for `coalesced` once its
    /// successor's wake has started.
    public let wakeID: UInt64?
    /// Why a dropped push never reaches the app.
    public let dropReason: DropReason?
    /// APNs's reason for refusing a rejected push.
    public let rejection: APNsReason?
    /// Why, in words, when the receiver knows more than APNs says (why a provider token was
    /// refused); not part of equality.
    public let rejectionCause: String?
    /// What holds a pending push, as the wake policy last said (not part of equality).
    public let waitReason: WaitReason<DeviceInstant>?
    /// A coalesced push was replaced at APNs, in its one-slot storage for an offline
    /// device, not on the device (not part of equality).
    public let coalescedByAPNs: Bool
    /// What the fault rule that answered an injected push did.
    public let injection: FaultAction?
    /// The fault rule that answered an injected push (not part of equality).
    public let faultRule: UInt64?

    private init(
        _ kind: Kind, wakeID: UInt64? = nil, dropReason: DropReason? = nil, rejection: APNsReason? = nil, rejectionCause: String? = nil,
        waitReason: WaitReason<DeviceInstant>? = nil, coalescedByAPNs: Bool = false, injection: FaultAction? = nil, faultRule: UInt64? = nil
    ) {
        self.kind = kind
        self.wakeID = wakeID
        self.dropReason = dropReason
        self.rejection = rejection
        self.rejectionCause = rejectionCause
        self.waitReason = waitReason
        self.coalescedByAPNs = coalescedByAPNs
        self.injection = injection
        self.faultRule = faultRule
    }

    /// Waiting in its app's slot.
    public static let pending = PushFate(.pending)
    /// Delivered, by whichever wake.
    public static let delivered = PushFate(.delivered)
    /// Coalesced, into whichever wake (or none yet).
    public static let coalesced = PushFate(.coalesced)
    /// Expired before a wake could deliver it.
    public static let expired = PushFate(.expired)

    /// Dropped, for `reason`.
    public static func dropped(_ reason: DropReason) -> PushFate { PushFate(.dropped, dropReason: reason) }
    /// Refused by APNs with `reason`.
    public static func rejected(_ reason: APNsReason) -> PushFate { PushFate(.rejected, rejection: reason) }
    /// Refused by APNs with `reason`, for `cause` (the receiver's own words).
    package static func rejected(_ reason: APNsReason, cause: String?) -> PushFate {
        PushFate(.rejected, rejection: reason, rejectionCause: cause)
    }
    /// Answered by a fault rule doing `action`, whichever rule.
    public static func injected(_ action: FaultAction) -> PushFate { PushFate(.injected, injection: action) }
    /// Answered by fault rule `rule` doing `action`.
    package static func injected(by rule: UInt64, _ action: FaultAction) -> PushFate {
        PushFate(.injected, injection: action, faultRule: rule)
    }
    /// An injected push whose stored action this version cannot read.
    package static func injectedForUnknownAction(rule: UInt64?) -> PushFate { PushFate(.injected, faultRule: rule) }
    /// Pending, held by `why`.
    package static func pending(_ why: WaitReason<DeviceInstant>?) -> PushFate { PushFate(.pending, waitReason: why) }
    /// Delivered by wake `wakeID`.
    package static func delivered(by wakeID: UInt64) -> PushFate { PushFate(.delivered, wakeID: wakeID) }
    /// Coalesced into wake `wakeID` (nil while its successor waits).
    package static func coalesced(into wakeID: UInt64?, byAPNs: Bool = false) -> PushFate {
        PushFate(.coalesced, wakeID: wakeID, coalescedByAPNs: byAPNs)
    }
    /// A dropped push whose stored reason this version cannot read.
    package static let droppedForUnknownReason = PushFate(.dropped)
    /// A rejected push whose stored reason this version cannot read.
    package static let rejectedForUnknownReason = PushFate(.rejected)

    /// The fate's name as stored and served: pending, delivered, coalesced, expired, dropped, rejected, injected.
    public var name: String { kind.rawValue }

    public var description: String {
        switch kind {
        case .pending, .expired: name
        case .delivered, .coalesced: wakeID.map { "\(name) (wake \($0))" } ?? name
        case .dropped: dropReason.map { "dropped: \($0)" } ?? name
        case .rejected: rejection.map { "rejected: \($0.rawValue)" } ?? name
        case .injected: "injected" + (faultRule.map { " by rule \($0)" } ?? "") + (injection.map { ": \($0)" } ?? "")
        }
    }

    public static func == (lhs: PushFate, rhs: PushFate) -> Bool {
        lhs.kind == rhs.kind && lhs.dropReason == rhs.dropReason && lhs.rejection == rhs.rejection && lhs.injection == rhs.injection
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(dropReason)
        hasher.combine(rejection)
        hasher.combine(injection)
    }
}
