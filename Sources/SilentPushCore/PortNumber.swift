/// A TCP port written as text, read the same way by every address the project parses (a
/// listener, an APNs target, a transfer's URL, a PostgreSQL URL, pushsend's `--admin`).
package enum PortNumber {
    /// The port `text` names: one to five ASCII digits (no sign, no space) from 1 to 65535,
    /// or 0 too when `allowingZero` (a listener's "any free port"); nil otherwise.
    package static func parse(_ text: some StringProtocol, allowingZero: Bool = false) -> Int? {
        let digits = text.utf8
        guard (1...5).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (allowingZero ? 0...65535 : 1...65535).contains(value) ? value : nil
    }

    /// The port as `url` writes it: the text after its authority's last `:` (past a user and
    /// password, and outside an IPv6 address's brackets), when it has one; nil when `url` has
    /// no `://` or its authority no port part.
    package static func text(inURL url: String) -> Substring? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let authority = url[url.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        guard let colon = hostAndPort.lastIndex(of: ":"), !hostAndPort[colon...].contains("]") else { return nil }
        return hostAndPort[hostAndPort.index(after: colon)...]
    }
}
