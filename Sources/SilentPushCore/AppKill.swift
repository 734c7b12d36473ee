/// Why the system killed an app's process while one of its handlers ran (raw values: what
/// the store keeps; `description`: what a wake's reason says). iOS kills the process when
/// the user force-quits the app, when the device restarts, and when the app is deleted; the
/// handler never gets to answer.
public enum AppKill: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The user force-quit the app from the app switcher.
    case forceQuit
    /// The device restarted.
    case reboot
    /// The app was deleted (uninstalled, or reinstalled under a new token).
    case appDeleted

    /// What happened, as a wake's reason says it.
    public var description: String {
        switch self {
        case .forceQuit: "the app was force-quit"
        case .reboot: "the device restarted"
        case .appDeleted: "the app was deleted"
        }
    }
}
