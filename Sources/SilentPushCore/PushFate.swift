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

    /// The fate, each kind with only its own data.
    private enum State: Sendable {
        case pending(WaitReason<DeviceInstant>?)
        case delivered(wake: UInt64?)
        /// `byAPNs`: replaced at APNs, in its one-slot storage for an offline device.
        case coalesced(into: UInt64?, byAPNs: Bool)
        /// `with`: the newer push that replaced it in its app's slot (`byAPNs`: at APNs),
        /// whose fate it shared.
        case expired(with: UInt64?, byAPNs: Bool)
        /// nil: a reason this version cannot read.
        case dropped(DropReason?)
        case rejected(APNsReason?, cause: String?)
        case injected(FaultAction?, rule: UInt64?)
    }

    private let state: State

    private init(_ state: State) {
        self.state = state
    }

    /// Which kind of fate this is.
    public var kind: Kind {
        switch state {
        case .pending: .pending
        case .delivered: .delivered
        case .coalesced: .coalesced
        case .expired: .expired
        case .dropped: .dropped
        case .rejected: .rejected
        case .injected: .injected
        }
    }
    /// The wake that delivered the push: set for `delivered`, and for `coalesced` once its
    /// successor's wake has started.
    public var wakeID: UInt64? {
        switch state {
        case .delivered(let wake), .coalesced(let wake, _): wake
        default: nil
        }
    }
    /// Why a dropped push never reaches the app.
    public var dropReason: DropReason? {
        if case .dropped(let reason) = state { reason } else { nil }
    }
    /// APNs's reason for refusing a rejected push.
    public var rejection: APNsReason? {
        if case .rejected(let reason, _) = state { reason } else { nil }
    }
    /// Why, in words, when the receiver knows more than APNs says (why a provider token was
    /// refused); not part of equality.
    public var rejectionCause: String? {
        if case .rejected(_, let cause) = state { cause } else { nil }
    }
    /// What holds a pending push, as the wake policy last said (not part of equality).
    public var waitReason: WaitReason<DeviceInstant>? {
        if case .pending(let why) = state { why } else { nil }
    }
    /// A coalesced push, or an expired one that expired with the push that replaced it, was
    /// replaced at APNs, in its one-slot storage for an offline device, not on the device
    /// (not part of equality).
    public var coalescedByAPNs: Bool {
        switch state {
        case .coalesced(_, let byAPNs), .expired(_?, let byAPNs): byAPNs
        default: false
        }
    }
    /// The newer push that replaced an expired push in its app's slot, with which it expired
    /// (nil: it expired itself); not part of equality.
    package var expiredWith: UInt64? {
        if case .expired(let newer, _) = state { newer } else { nil }
    }
    /// What the fault rule that answered an injected push did.
    public var injection: FaultAction? {
        if case .injected(let action, _) = state { action } else { nil }
    }
    /// The fault rule that answered an injected push (not part of equality).
    public var faultRule: UInt64? {
        if case .injected(_, let rule) = state { rule } else { nil }
    }

    /// Waiting in its app's slot.
    public static let pending = PushFate(.pending(nil))
    /// Delivered, by whichever wake.
    public static let delivered = PushFate(.delivered(wake: nil))
    /// Coalesced, into whichever wake (or none yet).
    public static let coalesced = PushFate(.coalesced(into: nil, byAPNs: false))
    /// Expired before a wake could deliver it.
    public static let expired = PushFate(.expired(with: nil, byAPNs: false))
    /// Expired with `newer`, the push that replaced it in its app's slot (nil: by its own
    /// time); `byAPNs`: replaced at APNs, while the device was offline.
    package static func expired(with newer: UInt64?, byAPNs: Bool = false) -> PushFate {
        PushFate(.expired(with: newer, byAPNs: newer != nil && byAPNs))
    }

    /// Dropped, for `reason`.
    public static func dropped(_ reason: DropReason) -> PushFate { PushFate(.dropped(reason)) }
    /// Refused by APNs with `reason`.
    public static func rejected(_ reason: APNsReason) -> PushFate { PushFate(.rejected(reason, cause: nil)) }
    /// Refused by APNs with `reason`, for `cause` (the receiver's own words).
    package static func rejected(_ reason: APNsReason, cause: String?) -> PushFate { PushFate(.rejected(reason, cause: cause)) }
    /// Answered by a fault rule doing `action`, whichever rule.
    public static func injected(_ action: FaultAction) -> PushFate { PushFate(.injected(action, rule: nil)) }
    /// Answered by fault rule `rule` doing `action`.
    package static func injected(by rule: UInt64, _ action: FaultAction) -> PushFate { PushFate(.injected(action, rule: rule)) }
    /// An injected push whose stored action this version cannot read.
    package static func injectedForUnknownAction(rule: UInt64?) -> PushFate { PushFate(.injected(nil, rule: rule)) }
    /// Pending, held by `why`.
    package static func pending(_ why: WaitReason<DeviceInstant>?) -> PushFate { PushFate(.pending(why)) }
    /// Delivered by wake `wakeID`.
    package static func delivered(by wakeID: UInt64) -> PushFate { PushFate(.delivered(wake: wakeID)) }
    /// Coalesced into wake `wakeID` (nil while its successor waits).
    package static func coalesced(into wakeID: UInt64?, byAPNs: Bool = false) -> PushFate {
        PushFate(.coalesced(into: wakeID, byAPNs: byAPNs))
    }
    /// A dropped push whose stored reason this version cannot read.
    package static let droppedForUnknownReason = PushFate(.dropped(nil))
    /// A rejected push whose stored reason this version cannot read.
    package static let rejectedForUnknownReason = PushFate(.rejected(nil, cause: nil))

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
