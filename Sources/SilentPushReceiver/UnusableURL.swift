import Foundation
import SilentPushCore

/// A URL the receiver does not ask for, a fetch handler's or a redirect's target: not http or
/// https, no host, or a port outside 1 to 65535 (which no connection can use). Checked before
/// the request is made, so no such URL reaches the HTTP client.
struct UnusableURL: Error, CustomStringConvertible {
    /// The URL, its user and password masked.
    let url: String
    /// What is wrong with it, in words.
    let reason: String

    var description: String { "cannot ask for \(url): \(reason)" }

    /// Throws when `url` is not one to ask for.
    static func check(_ url: String) throws(UnusableURL) {
        let masked = URLUserInfo.masked(url)
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw UnusableURL(url: masked, reason: "not an http or https URL")
        }
        guard let host = parsed.host, !host.isEmpty else { throw UnusableURL(url: masked, reason: "it names no host") }
        if let port = parsed.port, !(1...65535).contains(port) {
            throw UnusableURL(url: masked, reason: "port \(port) is not one from 1 to 65535")
        }
    }
}
