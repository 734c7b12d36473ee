import Foundation

/// The admin API's access rules as plain values, testable without a listener (see
/// `AdminGuard`, which applies them to each request).
package struct AdminAccessPolicy: Sendable {
    /// Host names accepted besides IP addresses and `localhost` (`--admin-host`), lower-case.
    var hosts: Set<String>
    /// The bearer token every route but the health probes needs (`--admin-token`).
    var token: String?

    package init(hosts: [String] = [], token: String? = nil) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.token = token
    }

    /// Routes called without credentials: the probes, and the timeline page, which holds no
    /// data (it reads the API with the token given in its URL fragment).
    static let openPaths: Set<String> = ["/healthz", "/readyz", "/"]

    /// Whether `method` on `path` needs no token: an open path, or a read of whether this
    /// receiver owns shard N (`/v1/cluster/shards/N`), which a proxy's health check asks
    /// without credentials and which says only that, with the receiver's cluster name.
    static func isOpen(method: String, path: String) -> Bool {
        if openPaths.contains(path) { return true }
        let prefix = "/v1/cluster/shards/"
        guard method == "GET" || method == "HEAD", path.hasPrefix(prefix) else { return false }
        let shard = path.dropFirst(prefix.count)
        return !shard.isEmpty && shard.count <= 4 && shard.allSatisfy(\.isASCII) && shard.allSatisfy(\.isNumber)
    }

    /// Why a request is refused, as an HTTP status and one line; nil when it may pass.
    package func refusal(method: String, path: String, host: String?, authorization: String?, contentType: String?) -> (status: Int, message: String)?
    {
        if let host, !isAllowed(host: host) {
            return (
                421,
                "Host '\(host)' is not this admin listener: use its IP address or localhost, or start silentpushd with --admin-host \(Self.name(of: host))"
            )
        }
        if let token, !Self.isOpen(method: method, path: path), !Self.bearer(authorization, matches: token) {
            return (401, "this admin API needs 'authorization: Bearer <token>' with the token given to --admin-token (a config file's adminToken)")
        }
        // A cross-site form or simple fetch can POST without asking first; DELETE it cannot
        // (browsers preflight it, and this API grants no CORS), so DELETE needs no body.
        if ["POST", "PUT", "PATCH"].contains(method), !Self.isJSON(contentType) {
            return (415, "send 'content-type: application/json' with requests that change state")
        }
        return nil
    }

    func isAllowed(host: String) -> Bool {
        let name = Self.name(of: host)
        if name == "localhost" || name.hasSuffix(".localhost") || hosts.contains(name) { return true }
        return Self.isIPAddress(name)
    }

    /// `host[:port]` or `[v6][:port]` without the port, lower-case.
    static func name(of host: String) -> String {
        let lowered = host.lowercased()
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") {
            return String(lowered[lowered.index(after: lowered.startIndex)..<close])
        }
        if let colon = lowered.lastIndex(of: ":"), lowered.firstIndex(of: ":") == colon {
            return String(lowered[..<colon])
        }
        return lowered
    }

    /// A dotted IPv4 address or an IPv6 address: a name no DNS answer can rebind.
    static func isIPAddress(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4,
            parts.allSatisfy({ part in part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isASCIIDigit) && (Int(part) ?? 256) <= 255 })
        {
            return true
        }
        return name.contains(":") && name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    static func bearer(_ authorization: String?, matches token: String) -> Bool {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return false }
        // Compared in constant time: the token is a secret.
        let given = Array(authorization.dropFirst(7).utf8)
        let expected = Array(token.utf8)
        var difference = given.count ^ expected.count
        for index in 0..<expected.count { difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0)) }
        return difference == 0
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return mediaType == "application/json"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
