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

    private static let prefix: StaticString = "/3/device/"

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
            self = .badPath
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
}
