/// The device's throttling, by name (`--profile`): each is a `WakeSettings`.
public enum WakeProfile: String, Sendable, CaseIterable {
    /// As observed on devices: 15 minutes between wakes, a 30-second deadline.
    case ios
    /// One second between wakes.
    case fast
    /// No throttling, as when the app runs from Xcode.
    case debugger
    /// Apple's guidance of two or three silent pushes an hour.
    case strict
    /// Every push that can wake the app wakes it at once.
    case off

    /// The profile's settings.
    public var settings: WakeSettings {
        switch self {
        case .ios: .ios
        case .fast: .fast
        case .debugger: .debugger
        case .strict: .strict
        case .off: .off
        }
    }

    /// The profile's Live Activity numbers: no budget and no opportunistic delay under the
    /// debugger and with throttling off; a one-second opportunistic delay when fast.
    public var liveActivities: LiveActivitySettings {
        switch self {
        case .ios, .strict: LiveActivitySettings()
        case .fast: LiveActivitySettings(opportunisticDelay: .seconds(1))
        case .debugger, .off: .unthrottled
        }
    }
}
