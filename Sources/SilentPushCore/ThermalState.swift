/// A device's thermal state, as `ProcessInfo.thermalState` reports it on iOS.
public enum ThermalState: String, Sendable, CaseIterable, Comparable {
    /// Within normal limits.
    case nominal
    /// Slightly elevated.
    case fair
    /// High: iOS defers discretionary background work (here, priority-5 wakes).
    case serious
    /// Critical: iOS holds background work until the device cools down (here, every wake).
    case critical

    @inlinable public static func < (lhs: ThermalState, rhs: ThermalState) -> Bool {
        lhs.order < rhs.order
    }

    @inlinable var order: Int {
        switch self {
        case .nominal: 0
        case .fair: 1
        case .serious: 2
        case .critical: 3
        }
    }
}
