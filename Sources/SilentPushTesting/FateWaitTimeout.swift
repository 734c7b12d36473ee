import SilentPushCore

/// A push did not reach the awaited fate in time (`Receiver.fate(of:becomes:within:)`).
public struct FateWaitTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// The push's `apns-id`.
    public var apnsID: String
    /// The fate waited for.
    public var expected: PushFate.Kind
    /// The last fate seen; nil: the push is unknown.
    public var last: PushFate?
    /// How long it waited, in real time.
    public var waited: Duration

    /// A timeout.
    public init(apnsID: String, expected: PushFate.Kind, last: PushFate?, waited: Duration) {
        self.apnsID = apnsID
        self.expected = expected
        self.last = last
        self.waited = waited
    }

    public var description: String {
        "push \(apnsID) did not become \(expected.rawValue) within \(waited): it is \(last.map { $0.kind.rawValue } ?? "unknown")"
    }
}
