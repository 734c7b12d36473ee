/// Where a push is posted: Apple's hosts (port 443, or 2197) or a receiver's URL.
public struct APNsTarget: Sendable, Equatable, CustomStringConvertible {
    /// `https` (TLS, ALPN h2) or `http` (h2c, prior knowledge).
    public var scheme: String
    /// The host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int

    /// A target.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// This machine (`localhost`, `127.0.0.1`, `::1`): a receiver `make run` started, whose
    /// certificate the development CA signed.
    public var isLoopback: Bool { host == "localhost" || host == "127.0.0.1" || host == "::1" }

    /// Apple's development environment.
    public static func sandbox(port: Int = 443) -> APNsTarget {
        APNsTarget(scheme: "https", host: "api.sandbox.push.apple.com", port: port)
    }

    /// Apple's production environment.
    public static func production(port: Int = 443) -> APNsTarget {
        APNsTarget(scheme: "https", host: "api.push.apple.com", port: port)
    }

    /// Parses `http://HOST[:PORT][/]` or `https://HOST[:PORT][/]` (`[::1]` for IPv6); nil
    /// for anything else.
    public init?(url: String) {
        let scheme: String
        var rest: Substring
        if url.hasPrefix("https://") {
            scheme = "https"
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            scheme = "http"
            rest = url.dropFirst(7)
        } else {
            return nil
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("@") else { return nil }
        var host = rest
        var port = scheme == "https" ? 443 : 80
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = PortNumber.parse(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let value = PortNumber.parse(rest[rest.index(after: colon)...]) else { return nil }
            port = value
        }
        guard !host.isEmpty else { return nil }
        self.init(scheme: scheme, host: String(host), port: port)
    }

    /// `:authority`: the host, with the port when it is not the scheme's default.
    public var authority: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port == (scheme == "https" ? 443 : 80) ? shown : "\(shown):\(port)"
    }

    /// `scheme://authority`.
    public var description: String { "\(scheme)://\(authority)" }
}
