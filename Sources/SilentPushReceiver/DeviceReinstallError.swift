import SilentPushCore

/// A reinstall that cannot be made: the token is no longer an installed app's.
public enum DeviceReinstallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token was unregistered (an uninstall, or an earlier reinstall) at this time (ms):
    /// the app's current token is another.
    case unregistered(token: String, at: Int64)
    /// The token expired at this time (ms).
    case expired(token: String, at: Int64)

    public var description: String {
        switch self {
        case .unregistered(let token, let at):
            "device token \(token) was unregistered at \(ISO8601Timestamp.string(millisecondsSinceEpoch: at)) (uninstalled, or reinstalled already): reinstall from the app's current token"
        case .expired(let token, let at):
            "device token \(token) expired at \(ISO8601Timestamp.string(millisecondsSinceEpoch: at)): it is no installed app's token"
        }
    }
}
