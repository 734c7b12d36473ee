/// Why a push that APNs accepted never reaches the app.
///
/// ``description`` is the text the store, the admin API and the metrics' `reason` label
/// carry; ``init(description:)`` reads it back.
public enum DropReason: Sendable, Hashable, CustomStringConvertible {
    /// The user force-quit the app from the app switcher: iOS launches it for nothing in
    /// the background until it is opened again.
    case forceQuit
    /// Background App Refresh is off, for the app or the device.
    case backgroundAppRefreshOff
    /// The app was deleted (and installed again, with a new device token): what waited for
    /// the old install never reaches it.
    case appDeleted
    /// A `background` push without `content-available: 1`: there is nothing to wake the app for.
    case backgroundWithoutContentAvailable
    /// A push of another type (an alert, say) without `content-available: 1`.
    case noContentAvailable
    /// A push type that never starts a background fetch (`voip`, `complication`, …).
    case pushTypeNeverWakes(APNsPushType)
    /// A Live Activity payload ActivityKit cannot use.
    case liveActivityPayload(LiveActivityPayloadProblem)
    /// A Live Activity push the device did not use (an ended activity, an older timestamp, …).
    case liveActivity(LiveActivityIgnored)
    /// A `widgets` or `controls` push without `aps.content-changed: true`: nothing to reload.
    case noContentChanged(APNsPushType)

    public var description: String {
        switch self {
        case .forceQuit: "app force-quit"
        case .backgroundAppRefreshOff: "Background App Refresh off"
        case .appDeleted: "app deleted"
        case .backgroundWithoutContentAvailable: "background push without content-available: 1"
        case .noContentAvailable: "no content-available: 1, so the app is not woken"
        case .pushTypeNeverWakes(let type): "apns-push-type \(type.rawValue) does not start a background fetch"
        case .liveActivityPayload(let problem): Self.liveActivityPrefix + problem.rawValue
        case .liveActivity(let ignored): Self.activityPrefix + ignored.rawValue
        case .noContentChanged(let type): "apns-push-type \(type.rawValue)" + Self.noContentChangedSuffix
        }
    }

    /// The reason `description` names; nil for text no version of SilentPush writes.
    public init?(description: String) {
        switch description {
        case "app force-quit": self = .forceQuit
        case "Background App Refresh off": self = .backgroundAppRefreshOff
        case "app deleted": self = .appDeleted
        case "background push without content-available: 1": self = .backgroundWithoutContentAvailable
        case "no content-available: 1, so the app is not woken": self = .noContentAvailable
        case _ where description.hasPrefix(Self.liveActivityPrefix):
            guard let problem = LiveActivityPayloadProblem(rawValue: String(description.dropFirst(Self.liveActivityPrefix.count))) else {
                return nil
            }
            self = .liveActivityPayload(problem)
        case _ where description.hasPrefix(Self.activityPrefix):
            guard let ignored = LiveActivityIgnored(rawValue: String(description.dropFirst(Self.activityPrefix.count))) else { return nil }
            self = .liveActivity(ignored)
        case _ where description.hasSuffix(Self.noContentChangedSuffix):
            let prefix = "apns-push-type "
            guard description.hasPrefix(prefix),
                let type = APNsPushType(rawValue: String(description.dropFirst(prefix.count).dropLast(Self.noContentChangedSuffix.count)))
            else { return nil }
            self = .noContentChanged(type)
        default:
            let prefix = "apns-push-type ", suffix = " does not start a background fetch"
            guard description.hasPrefix(prefix), description.hasSuffix(suffix),
                description.count > prefix.count + suffix.count,
                let type = APNsPushType(rawValue: String(description.dropFirst(prefix.count).dropLast(suffix.count)))
            else { return nil }
            self = .pushTypeNeverWakes(type)
        }
    }

    private static let liveActivityPrefix = "Live Activity push ignored: "
    private static let activityPrefix = "Live Activity: "
    private static let noContentChangedSuffix = " without aps.content-changed: true, so nothing reloads"
}
