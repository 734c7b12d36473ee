/// An instant on a device clock: nanoseconds since the Unix epoch in 8 bytes, so the wake
/// policy keeps a million apps' timers compactly. Both device clocks (system and manual)
/// use it.
public struct DeviceInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSinceEpoch: Int64

    /// An instant.
    public init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// `seconds` after the epoch.
    public init(secondsSinceEpoch seconds: Int64) {
        self.init(nanosecondsSinceEpoch: seconds * 1_000_000_000)
    }

    /// Milliseconds since the epoch (what APNs' timestamps use).
    public var millisecondsSinceEpoch: Int64 { nanosecondsSinceEpoch / 1_000_000 }

    public func advanced(by duration: Duration) -> DeviceInstant {
        DeviceInstant(nanosecondsSinceEpoch: nanosecondsSinceEpoch &+ duration.nanosecondCount)
    }

    public func duration(to other: DeviceInstant) -> Duration {
        .nanoseconds(other.nanosecondsSinceEpoch - nanosecondsSinceEpoch)
    }

    public static func < (lhs: DeviceInstant, rhs: DeviceInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    public var description: String { "\(nanosecondsSinceEpoch / 1_000_000)ms" }

}
