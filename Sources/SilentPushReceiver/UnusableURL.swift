import Foundation
import SilentPushCore

/// A URL the receiver does not ask for, a fetch handler's or a redirect's target: not one this
/// host can parse, not http or https, no host (or one no Host header can carry), or a port
/// outside 1 to 65535 (which no connection can use). Checked before the request is made, so no such URL reaches the HTTP
/// client.
struct UnusableURL: Error, CustomStringConvertible, Equatable {
    /// The URL, its user and password masked.
    let url: String
    /// What is wrong with it, in words.
    let reason: String

    var description: String { "cannot ask for \(url): \(reason)" }

    /// Throws when `url` is not one to ask for.
    static func check(_ url: String) throws(UnusableURL) {
        let masked = URLUserInfo.masked(url)
        guard let parsed = URL(string: url) else { throw UnusableURL(url: masked, reason: "not a URL this host can parse") }
        guard let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw UnusableURL(url: masked, reason: "not an http or https URL")
        }
        guard let host = parsed.host, !host.isEmpty else { throw UnusableURL(url: masked, reason: "it names no host") }
        // A host read from its percent escapes (`//%00`) may hold what no Host header can.
        guard !host.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw UnusableURL(url: masked, reason: "its host holds a control character or a space")
        }
        // The port as written: Foundation reads one too large for an Int as none, which the
        // client would take for the scheme's.
        if let port = PortNumber.text(inURL: url), !port.isEmpty, PortNumber.parse(Self.withoutLeadingZeros(port)) == nil {
            throw UnusableURL(url: masked, reason: "port \(port.prefix(20)) is not one from 1 to 65535")
        }
    }

    /// `digits` with no leading zero but the last (`000080` is port 80, as the client reads it).
    static func withoutLeadingZeros(_ digits: Substring) -> Substring {
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? digits.suffix(1) : trimmed
    }
}
