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
    /// The clock moved to `to`, but the store took no write of it (a full disk, PostgreSQL
    /// down): a restart resumes from the time last recorded. `reason` is the store's error.
    case notRecorded(to: DeviceInstant, reason: String)

    public var description: String {
        switch self {
        case .notManual:
            "the device runs on the system clock; start silentpushd with --clock manual to move it (in Swift: configuration.clock = .manual)"
        case .busy: "another clock advance is under way"
        case .outOfRange: "the device clock cannot go past 2262-04-11"
        case .backwards: "the device clock only moves forward: give a span of zero or more"
        case .stopped: "the receiver has stopped: its device clock no longer moves"
        case .notRecorded(let to, let reason):
            "the device clock moved to \(ISO8601Timestamp.string(millisecondsSinceEpoch: to.millisecondsSinceEpoch)), but the store did not record it (\(reason)): a restart resumes from the time last recorded; move it again once the store takes writes"
        }
    }
}
