import SilentPushCore

/// `HOST:PORT` as given to `--listen` and friends; `[::1]:2197` for IPv6; port 0 = any.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host or address to bind.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int

    /// An address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; nil when it is not one.
    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = PortNumber.parse(portText, allowingZero: true) else { return nil }
        self.init(host: String(host), port: port)
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension ListenAddress {
    /// Whether only this machine can reach it: `localhost`, 127.0.0.0/8 or `::1`.
    public var isLoopback: Bool {
        let name = host.lowercased()
        return name == "localhost" || name == "::1" || name.hasPrefix("127.")
    }
}
