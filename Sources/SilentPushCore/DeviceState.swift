/// A device's state, set through the admin API, the Swift API or the config file.
public struct DeviceState: Sendable, Equatable {
    /// The user force-quit the app: no wakes, pushes dropped until it is launched again.
    public var forceQuit: Bool
    /// Background App Refresh: off drops silent pushes.
    public var backgroundRefresh: Bool
    /// Low Power Mode defers priority-5 wakes.
    public var lowPowerMode: Bool
    /// Background launches per 24 hours across the device's apps; nil: the profile's.
    public var dailyBudget: Int?
    /// Battery level, 0–100 %: a level set outside it is kept at the nearer end.
    public var batteryLevel: Int {
        didSet { batteryLevel = min(max(batteryLevel, Self.batteryRange.lowerBound), Self.batteryRange.upperBound) }
    }
    /// Charging: a low battery holds nothing while charging.
    public var charging: Bool
    /// Serious defers priority-5 wakes; critical defers every wake.
    public var thermalState: ThermalState
    /// Xcode's debugger is attached: no throttling for this device.
    public var debuggerAttached: Bool
    /// Whether the device can be reached. Offline, nothing is delivered: APNs keeps the
    /// latest push per app (up to its expiry, or 30 days) and delivers it on reconnect.
    public var network: Network
    /// The device is idle (not in use): processing tasks run only then.
    public var idle: Bool
    /// The network it is on, when online: background transfers that may not use cellular
    /// data, and discretionary ones, wait for Wi-Fi.
    public var networkType: NetworkType

    /// A device's network.
    public enum Network: String, Sendable, CaseIterable {
        /// Reachable: pushes are delivered.
        case online
        /// Unreachable: APNs holds the latest push per app until the device is back.
        case offline
    }

    /// The kind of network a device is on.
    public enum NetworkType: String, Sendable, CaseIterable {
        /// Wi-Fi: no transfer waits for the network type (a discretionary one still waits for power).
        case wifi
        /// Cellular data: transfers that may not use it, and discretionary ones, wait for Wi-Fi.
        case cellular
    }

    /// A device as it comes: app running, refresh on, no Low Power Mode, the profile's
    /// budget, a full battery, nominal temperature, no debugger, online on Wi-Fi, in use (not idle).
    public init(
        forceQuit: Bool = false, backgroundRefresh: Bool = true, lowPowerMode: Bool = false, dailyBudget: Int? = nil,
        batteryLevel: Int = 100, charging: Bool = false, thermalState: ThermalState = .nominal, debuggerAttached: Bool = false,
        network: Network = .online, idle: Bool = false, networkType: NetworkType = .wifi
    ) {
        self.networkType = networkType
        self.forceQuit = forceQuit
        self.backgroundRefresh = backgroundRefresh
        self.lowPowerMode = lowPowerMode
        self.dailyBudget = dailyBudget
        self.batteryLevel = min(max(batteryLevel, Self.batteryRange.lowerBound), Self.batteryRange.upperBound)
        self.charging = charging
        self.thermalState = thermalState
        self.debuggerAttached = debuggerAttached
        self.network = network
        self.idle = idle
    }

    /// The battery levels there are, in %.
    package static let batteryRange = 0...100

    @inlinable var isDefault: Bool { self == DeviceState() }
}
