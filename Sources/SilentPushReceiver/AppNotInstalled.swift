/// Refused: the app is not installed on the device (its token was unregistered, as when the
/// user deleted it), so nothing of it runs to submit a task or start a Live Activity. The
/// admin API answers it 409.
public struct AppNotInstalled: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device token, as stored (lower-case hex).
    public var deviceToken: String

    package init(deviceToken: String) {
        self.deviceToken = deviceToken
    }

    public var description: String {
        "the app is not installed on this device (its token is unregistered): a deleted app asks for nothing;"
            + " use the token it was reinstalled with, or register this one again (PATCH /v1/devices/\(deviceToken) {\"unregistered\": false})"
    }
}
