/// The `user[:password]@` part of a URL's authority, kept out of log lines and error messages:
/// an app's or a provider's URL often carries a token there, as its user or its password.
package enum URLUserInfo {
    /// `url` with its authority's `user[:password]` replaced by `***`, so a line still shows
    /// that the URL had one. Only the authority (up to the first `/`, `?` or `#` after `://`)
    /// is looked at: an `@` in the path stays. Text with no `://` is returned as it is.
    package static func masked(_ url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return url }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<rest.startIndex]) + "***" + String(rest[at...])
    }
}
