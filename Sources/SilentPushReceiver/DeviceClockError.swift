import SilentPushCore

/// Why the device clock could not be moved.
public enum DeviceClockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device runs on the system clock, which moves by itself.
    case notManual
    /// Another advance is under way.
    case busy
    /// The clock would pass the last time the device can represent (2262).
    case outOfRange
    /// A negative span: a device's clock only moves forward.
    case backwards
    /// The receiver has stopped (or is stopping): its device no longer moves.
    case stopped

    public var description: String {
        switch self {
        case .notManual:
            "the device runs on the system clock; start silentpushd with --clock manual to move it (in Swift: configuration.clock = .manual)"
        case .busy: "another clock advance is under way"
        case .outOfRange: "the device clock cannot go past 2262-04-11"
        case .backwards: "the device clock only moves forward: give a span of zero or more"
        case .stopped: "the receiver has stopped: its device clock no longer moves"
        }
    }
}
