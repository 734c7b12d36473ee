/// What a fault rule makes the APNs endpoint do with a request it matches.
///
/// ``description`` is the text the store and the admin API carry (`reason Unregistered`,
/// `goaway TooManyRequests after 3`, `reset`, `delay 250ms`); ``init(description:)`` reads it back.
public enum FaultAction: Sendable, Hashable, CustomStringConvertible {
    /// Answer with Apple's status for `reason` and `{"reason": …}` (410 with a timestamp).
    case reason(APNsReason)
    /// Answer `afterStreams` more requests on the connection, then send GOAWAY with `reason`
    /// and leave the next one unanswered (the client must retry it elsewhere).
    case goAway(APNsReason, afterStreams: Int)
    /// Close the connection at once, without an answer.
    case reset
    /// Answer as usual, this much later.
    case delay(Duration)

    /// The longest delay a rule may add.
    public static let maximumDelay = Duration.seconds(60)
    /// The most streams a GOAWAY rule may let through first.
    public static let maximumAfterStreams = 1_000_000

    public var description: String {
        switch self {
        case .reason(let reason): "reason \(reason.rawValue)"
        case .goAway(let reason, let after): "goaway \(reason.rawValue) after \(after)"
        case .reset: "reset"
        case .delay(let duration): "delay \(duration.nanosecondCount / 1_000_000)ms"
        }
    }

    /// The action `description` names; nil for text no version writes (every number in range).
    public init?(description: String) {
        let words = description.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("reason", 2):
            guard let reason = APNsReason(rawValue: words[1]) else { return nil }
            self = .reason(reason)
        case ("goaway", 4):
            guard let reason = APNsReason(rawValue: words[1]), words[2] == "after", let after = Int(words[3]),
                (0...Self.maximumAfterStreams).contains(after)
            else { return nil }
            self = .goAway(reason, afterStreams: after)
        case ("reset", 1): self = .reset
        case ("delay", 2):
            guard words[1].hasSuffix("ms"), let milliseconds = Int64(words[1].dropLast(2)), milliseconds >= 0,
                milliseconds <= Self.maximumDelay.nanosecondCount / 1_000_000
            else { return nil }
            self = .delay(.milliseconds(milliseconds))
        default: return nil
        }
    }
}
