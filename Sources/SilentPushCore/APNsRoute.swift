/// Where an APNs provider request points, read from `:method` and `:path`.
public enum APNsRoute: Equatable, Sendable {
    /// `POST /3/device/<token>`; the token as sent (hex expected, checked later).
    case push(deviceToken: Substring)
    /// `/3/device/` with no token (MissingDeviceToken).
    case missingDeviceToken
    /// A `/3/device/…` path with a method other than POST (MethodNotAllowed).
    case methodNotAllowed
    /// Anything else (BadPath).
    case badPath

    private static let prefix = "/3/device/"

    /// Reads the route; a query string is not part of APNs' paths and makes it BadPath.
    public init(method: String, path: String) {
        guard path.hasPrefix(Self.prefix) else {
            self = .badPath
            return
        }
        let token = path.dropFirst(Self.prefix.count)
        if token.contains("/") || token.contains("?") {
            self = .badPath
        } else if method != "POST" {
            self = .methodNotAllowed
        } else if token.isEmpty {
            self = .missingDeviceToken
        } else {
            self = .push(deviceToken: token)
        }
    }
}
