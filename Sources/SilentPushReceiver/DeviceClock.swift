import Foundation
import Synchronization
import SilentPushCore

/// The clock the device side runs on: the system clock, or a manual clock that
/// moves only when told (`--clock manual`, `POST /v1/clock/advance`). Provider tokens are
/// always judged on the system clock.
public final class DeviceClock: Sendable {
    /// Which clock.
    public enum Mode: String, Sendable, CaseIterable {
        /// The system clock.
        case system
        /// A clock that moves only when told (`POST /v1/clock/advance`).
        case manual
    }

    /// Which clock this is.
    public let mode: Mode
    private let manualNow: Mutex<DeviceInstant>

    /// A clock; a manual one starts at `start`, to the millisecond.
    public init(_ mode: Mode, start: DeviceInstant = DeviceClock.systemNow) {
        self.mode = mode
        manualNow = Mutex(Self.wholeMillisecond(start))
    }

    /// `instant` to the millisecond below (the far future stays): a manual clock keeps whole
    /// milliseconds, as the store and a cluster's members do, so a time due on one member is
    /// reached exactly by an advance another chose.
    private static func wholeMillisecond(_ instant: DeviceInstant) -> DeviceInstant {
        instant == .distantFuture ? instant : DeviceInstant(millisecondsSinceEpoch: instant.millisecondsSinceEpoch)
    }

    /// The system clock's now.
    public static var systemNow: DeviceInstant {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return DeviceInstant(nanosecondsSinceEpoch: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    /// The device's now.
    public var now: DeviceInstant {
        switch mode {
        case .system: Self.systemNow
        case .manual: manualNow.withLock { $0 }
        }
    }

    /// Where a manual clock moved by `span` from now lands: to the whole millisecond.
    func target(after span: Duration) -> DeviceInstant {
        Self.wholeMillisecond(now.advanced(by: span))
    }

    /// Moves a manual clock forward to `instant` (never back).
    func set(_ instant: DeviceInstant) {
        manualNow.withLock { $0 = max($0, instant) }
    }
}
