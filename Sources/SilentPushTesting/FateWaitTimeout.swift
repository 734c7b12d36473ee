import SilentPushCore

/// A push did not reach the awaited fate in time, or reached one it cannot leave
/// (`Receiver.fate(of:becomes:within:)`).
public struct FateWaitTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// The push's `apns-id`.
    public var apnsID: String
    /// The fate waited for.
    public var expected: PushFate.Kind
    /// The last fate seen; nil: the push is unknown.
    public var last: PushFate?
    /// How long it waited, in real time (less than asked when the last fate is final).
    public var waited: Duration

    /// A timeout.
    public init(apnsID: String, expected: PushFate.Kind, last: PushFate?, waited: Duration) {
        self.apnsID = apnsID
        self.expected = expected
        self.last = last
        self.waited = waited
    }

    /// Says what the push is, with its reason: a fate it cannot leave, or what it waits for.
    public var description: String {
        guard let last else {
            return "push \(apnsID) did not become \(expected.rawValue) within \(waited): no push with that apns-id was recorded"
        }
        if !last.canStillBecome(expected) { return "push \(apnsID) will not become \(expected.rawValue): it is \(last)" }
        let waiting = last.waitReason.map { why in
            " (waiting: \(why.rule.rawValue)"
                + (why.until.map { " until \(ISO8601Timestamp.string(millisecondsSinceEpoch: $0.millisecondsSinceEpoch))" } ?? "")
                + "; a manual clock moves only with advanceClock)"
        }
        return "push \(apnsID) did not become \(expected.rawValue) within \(waited): it is \(last)\(waiting ?? "")"
    }
}

extension PushFate {
    /// Whether the push may still take a fate of `kind`. One waiting in its slot may be
    /// delivered, coalesced, expired or dropped (its arrival already decided whether it was
    /// rejected or injected). One coalesced into no wake yet rides the push that replaced it:
    /// it is coalesced into that push's wake, or shares its fate if that push is not
    /// delivered, so it is never delivered itself. Any other fate is final.
    func canStillBecome(_ kind: Kind) -> Bool {
        switch (self.kind, kind) {
        case (.pending, .delivered), (.pending, .coalesced), (.pending, .expired), (.pending, .dropped): true
        case (.coalesced, .coalesced), (.coalesced, .expired), (.coalesced, .dropped): wakeID == nil
        default: false
        }
    }
}
