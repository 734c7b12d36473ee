/// Where an APNs provider request points, read from `:method` and `:path`.
public enum APNsRoute: Equatable, Sendable {
    /// `POST /3/device/<token>`; the token as sent (hex expected, checked later).
    case push(deviceToken: Substring)
    /// `POST /4/broadcasts/apps/<bundleID>`: a broadcast on a channel of the app.
    case broadcast(bundleID: Substring)
    /// A `/4/…` path APNs refuses (BadPath, or MethodNotAllowed for another method than
    /// POST on a broadcast's path): answered as the broadcast API answers, with
    /// `apns-request-id`.
    case broadcastRefused(APNsReason)
    /// `/3/device/` with no token (MissingDeviceToken).
    case missingDeviceToken
    /// A `/3/device/…` path with a method other than POST (MethodNotAllowed).
    case methodNotAllowed
    /// Anything else (BadPath).
    case badPath

    private static let prefix: StaticString = "/3/device/"
    private static let broadcastPrefix = "/4/broadcasts/apps/"

    /// Reads the route; a query string is not part of APNs' paths and makes it BadPath.
    /// Works on the UTF-8 bytes: this runs once per request.
    public init(method: String, path: String) {
        var path = path
        let prefixLength = Self.prefix.utf8CodeUnitCount
        let verdict: Int? = path.withUTF8 { bytes -> Int? in
            guard bytes.count >= prefixLength else { return nil }
            let prefix = UnsafeBufferPointer(start: Self.prefix.utf8Start, count: prefixLength)
            for index in 0..<prefixLength where bytes[index] != prefix[index] { return nil }
            for byte in bytes[prefixLength...] where byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") { return nil }
            return bytes.count - prefixLength
        }
        guard let tokenLength = verdict else {
            self = Self.broadcastRoute(method: method, path: path)
            return
        }
        if method != "POST" {
            self = .methodNotAllowed
        } else if tokenLength == 0 {
            self = .missingDeviceToken
        } else {
            self = .push(deviceToken: path[path.utf8.index(path.utf8.startIndex, offsetBy: prefixLength)...])
        }
    }

    /// A path that is not `/3/device/…`: a broadcast's, else BadPath. Off the push's path, so
    /// plain String work.
    private static func broadcastRoute(method: String, path: String) -> APNsRoute {
        guard path.hasPrefix("/4/") else { return .badPath }
        guard path.hasPrefix(broadcastPrefix) else { return .broadcastRefused(.badPath) }
        let bundleID = path.dropFirst(broadcastPrefix.count)
        guard !bundleID.isEmpty, !bundleID.contains("/"), !bundleID.contains("?") else { return .broadcastRefused(.badPath) }
        return method == "POST" ? .broadcast(bundleID: bundleID) : .broadcastRefused(.methodNotAllowed)
    }
}
