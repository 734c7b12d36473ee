/// Where a channel-management request points, read from `:method` and `:path`
/// (`/1/apps/<bundleID>/channels` and `/1/apps/<bundleID>/all-channels`).
public enum ChannelRoute: Equatable, Sendable {
    /// `POST …/channels`: create a channel.
    case create(bundleID: String)
    /// `GET …/channels` with `apns-channel-id`: read its configuration.
    case read(bundleID: String)
    /// `DELETE …/channels` with `apns-channel-id`.
    case delete(bundleID: String)
    /// `GET …/all-channels`: every channel id of the app.
    case list(bundleID: String)
    /// A known path with a method it does not take (MethodNotAllowed).
    case methodNotAllowed
    /// Anything else, a query string included (BadPath).
    case badPath

    /// Reads the route.
    public init(method: String, path: String) {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1].elementsEqual("1".utf8), parts[2].elementsEqual("apps".utf8),
            !parts[3].isEmpty, !parts[3].contains(UInt8(ascii: "?")), !parts[4].contains(UInt8(ascii: "?"))
        else {
            self = .badPath
            return
        }
        let bundleID = String(decoding: parts[3], as: UTF8.self)
        switch (String(decoding: parts[4], as: UTF8.self), method) {
        case ("channels", "POST"): self = .create(bundleID: bundleID)
        case ("channels", "GET"): self = .read(bundleID: bundleID)
        case ("channels", "DELETE"): self = .delete(bundleID: bundleID)
        case ("all-channels", "GET"): self = .list(bundleID: bundleID)
        case ("channels", _), ("all-channels", _): self = .methodNotAllowed
        default: self = .badPath
        }
    }

    /// The app the request is for; nil for a path or method APNs refuses.
    public var bundleID: String? {
        switch self {
        case .create(let bundleID), .read(let bundleID), .delete(let bundleID), .list(let bundleID): bundleID
        case .methodNotAllowed, .badPath: nil
        }
    }
}
