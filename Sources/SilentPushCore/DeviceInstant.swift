/// An instant on a device clock: nanoseconds since the Unix epoch in 8 bytes, so the wake
/// policy keeps a million apps' timers compactly. Both device clocks (system and manual)
/// use it.
///
/// Its range ends in the year 2262. Arithmetic on it saturates at both ends instead of
/// trapping or wrapping: times come from outside (`apns-expiration`, flags, the admin API),
/// and a wrapped instant would turn "far future" into "long past".
public struct DeviceInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSinceEpoch: Int64

    /// The last instant the device can represent (2262-04-11); later times are held here.
    public static let distantFuture = DeviceInstant(nanosecondsSinceEpoch: .max)

    /// An instant.
    public init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// `seconds` after the epoch, held at either end of the range when beyond it.
    public init(secondsSinceEpoch seconds: Int64) {
        self.init(nanosecondsSinceEpoch: Self.saturatingProduct(seconds, 1_000_000_000))
    }

    /// `milliseconds` after the epoch, held at either end of the range when beyond it.
    public init(millisecondsSinceEpoch milliseconds: Int64) {
        self.init(nanosecondsSinceEpoch: Self.saturatingProduct(milliseconds, 1_000_000))
    }

    /// Milliseconds since the epoch (what APNs' timestamps use).
    public var millisecondsSinceEpoch: Int64 { nanosecondsSinceEpoch / 1_000_000 }

    public func advanced(by duration: Duration) -> DeviceInstant {
        DeviceInstant(nanosecondsSinceEpoch: Self.saturatingSum(nanosecondsSinceEpoch, duration.nanosecondCount))
    }

    public func duration(to other: DeviceInstant) -> Duration {
        let (difference, overflow) = other.nanosecondsSinceEpoch.subtractingReportingOverflow(nanosecondsSinceEpoch)
        guard overflow else { return .nanoseconds(difference) }
        return .nanoseconds(other.nanosecondsSinceEpoch < nanosecondsSinceEpoch ? Int64.min : Int64.max)
    }

    public static func < (lhs: DeviceInstant, rhs: DeviceInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    public var description: String { "\(nanosecondsSinceEpoch / 1_000_000)ms" }

    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }

    static func saturatingProduct(_ a: Int64, _ b: Int64) -> Int64 {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard overflow else { return product }
        return (a < 0) == (b < 0) ? .max : .min
    }
}
