/// The URL an `http` fetch handler GETs: a template whose `{token}`, `{topic}` and
/// `{name}` (a top-level key of the push's payload) are filled in, URL-escaped.
public struct FetchURLTemplate: Sendable, Equatable, CustomStringConvertible {
    enum Part: Sendable, Equatable {
        case literal(String)
        case token
        case topic
        case payloadKey(String)
    }

    let parts: [Part]
    /// The template as given.
    public let description: String

    /// Why a template or its expansion failed, in words that say what to fix.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `text`: it must start with `http://` or `https://` (the scheme in any case, as
    /// RFC 3986 reads it); braces hold `token`, `topic` or a payload key.
    public init(_ text: String) throws(Problem) {
        let scheme = String(text.prefix { $0 != ":" }).lowercased()
        guard scheme == "http" || scheme == "https", text.dropFirst(scheme.count).hasPrefix("://") else {
            throw Problem(description: "'\(text)' is not an http:// or https:// URL template")
        }
        // A host, or a placeholder that gives one, before the path.
        let authority = text.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, authority.first != ":", authority.first != "@" else {
            throw Problem(description: "'\(text)' names no host (give one after the scheme, such as http://127.0.0.1:8080/…)")
        }
        if let problem = Self.hostProblem(in: authority) { throw Problem(description: "'\(text)' \(problem)") }
        // A port written out is one a connection can use (a placeholder's is checked when
        // the URL is asked for).
        if let port = PortNumber.text(inURL: text) {
            guard port.isEmpty || port.contains("{") || port.contains("}") || PortNumber.parse(port) != nil else {
                throw Problem(description: "'\(text)' has port '\(port)': give one from 1 to 65535")
            }
        }
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.literal(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw Problem(description: "'\(text)' has a '{' with no '}'")
            }
            let name = String(rest[rest.index(after: open)..<close])
            switch name {
            case "": throw Problem(description: "'\(text)' has an empty {}")
            case "token": parts.append(.token)
            case "topic": parts.append(.topic)
            default: parts.append(.payloadKey(name))
            }
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw Problem(description: "'\(text)' has a '}' with no '{'") }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        self.parts = parts
        description = text
    }

    /// What keeps the host `authority` writes (its placeholders aside) from being one a URL
    /// holds, as the HTTP client's URL parser reads it: a `[` with no `]` (or text after the
    /// `]` but a port), or a character outside RFC 3986's for a name (a space, `|`, `^`, a bad
    /// `%` escape); nil when there is none. A name's non-ASCII letters are its IDN form.
    static func hostProblem(in authority: Substring) -> String? {
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        if hostAndPort.first == "[" {
            guard let close = hostAndPort.firstIndex(of: "]") else { return "has a '[' with no ']' in its host" }
            let after = hostAndPort[hostAndPort.index(after: close)...]
            // A placeholder there may give the port or the path.
            return after.isEmpty || after.first == ":" || after.first == "{" ? nil : "has '\(after)' after its host's ']' (give a port as :PORT)"
        }
        // Each byte with whether a placeholder holds it; the host ends at the last `:` outside one.
        var depth = 0
        var bytes: [(byte: UInt8, placeholder: Bool)] = hostAndPort.utf8.map { byte in
            if byte == UInt8(ascii: "{") { depth += 1 }
            defer { if byte == UInt8(ascii: "}") { depth = max(0, depth - 1) } }
            return (byte, depth > 0)
        }
        if let colon = bytes.lastIndex(where: { $0 == (UInt8(ascii: ":"), false) }) { bytes.removeSubrange(colon...) }
        var index = 0
        while index < bytes.count {
            let (byte, placeholder) = bytes[index]
            defer { index += 1 }
            if placeholder || byte >= 0x80 { continue }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, HexDigit.value(bytes[index + 1].byte) != nil, HexDigit.value(bytes[index + 2].byte) != nil else {
                    return "has a '%' in its host that is not followed by two hex digits"
                }
                continue
            }
            let allowed =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || "-._~!$&'()*+,;=".utf8.contains(byte)
            guard allowed else { return "has '\(Unicode.Scalar(byte).escaped(asASCII: true))' in its host, which no host name holds" }
        }
        return nil
    }

    /// The URL for one push; a `{name}` the payload lacks (or holds as an object, array or
    /// null) is a problem that names it.
    public func expand(token: String, topic: String, payload: APNsPayload) throws(Problem) -> String {
        try expand(token: token, topic: topic) { key throws(Problem) in
            guard let value = payload.customValue(key) else {
                throw Problem(description: "the payload has no top-level string, number or boolean '\(key)' for {\(key)} in \(description)")
            }
            return value
        }
    }

    /// The URL for what has no payload (a background task's run, a relaunch for a background
    /// session): `{token}` and `{topic}` filled in, a payload key left empty, so one template
    /// serves the app's wakes and its runs alike (the run is told apart by the JSON posted).
    public func expand(token: String, topic: String) -> String {
        expand(token: token, topic: topic) { _ in "" }
    }

    /// The URL with `{token}` and `{topic}` filled in, and each `{name}` with `value(name)`.
    private func expand<Failure: Error>(token: String, topic: String, value: (String) throws(Failure) -> String) throws(Failure) -> String {
        var url = ""
        for part in parts {
            switch part {
            case .literal(let text): url += text
            case .token: url += Self.escape(token)
            case .topic: url += Self.escape(topic)
            case .payloadKey(let key): url += Self.escape(try value(key))
            }
        }
        return url
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                escaped += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return escaped
    }
}
