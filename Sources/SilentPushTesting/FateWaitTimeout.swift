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
        if !last.canStillChange { return "push \(apnsID) will not become \(expected.rawValue): it is \(last)" }
        let waiting = last.waitReason.map { why in
            " (waiting: \(why.rule.rawValue)"
                + (why.until.map { " until \(ISO8601Timestamp.string(millisecondsSinceEpoch: $0.millisecondsSinceEpoch))" } ?? "")
                + "; a manual clock moves only with advanceClock)"
        }
        return "push \(apnsID) did not become \(expected.rawValue) within \(waited): it is \(last)\(waiting ?? "")"
    }
}

extension PushFate {
    /// Whether the push may still take another fate: it waits in its slot, or rides a push
    /// that does (coalesced into no wake yet).
    var canStillChange: Bool {
        kind == .pending || (kind == .coalesced && wakeID == nil)
    }
}
