/// Where a PostgreSQL store is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
/// (`postgresql://` too), as libpq reads it, with the user, password and database
/// percent-decoded. The password may come from the URL or, as libpq does, from `PGPASSWORD`.
/// `description` never shows the password: it is what logs and error lines print.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The role to connect as.
    public var user: String
    /// Its password; nil to connect without one (trust or peer authentication).
    public var password: String?
    /// Where `password` came from, for a message that says what to fix.
    package var passwordSource: PasswordSource?
    /// A host name, an IPv4 address, or an IPv6 address (without its brackets).
    public var host: String
    /// The TCP port (5432 unless given).
    public var port: Int
    /// The database (the user's name unless given).
    public var database: String
    /// How the connection is secured: libpq's `sslmode` (`disable` unless given).
    public var tls: TLSMode = .disable
    /// libpq's `sslrootcert`: a PEM file of the authorities to trust (the system's unless given).
    public var rootCertificate: String?

    /// libpq's `sslmode`s that SilentPush takes. `prefer` and `allow` (TLS when the server
    /// happens to offer it) are not among them: a connection is secured, or it is not.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS, the server's certificate not checked.
        case require
        /// TLS, the server's certificate signed by a trusted authority.
        case verifyCA = "verify-ca"
        /// TLS, the server's certificate signed by a trusted authority and for the host.
        case verifyFull = "verify-full"
    }

    /// Why a URL is not a PostgreSQL URL, in words that say what to fix.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The longest URL read: a longer one is refused before it is looked at.
    public static let maximumLength = 2048

    /// Parses `text`; a password in the URL wins over `environmentPassword` (`PGPASSWORD`).
    public init(_ text: String, environmentPassword: String? = nil) throws(Problem) {
        guard text.utf8.count <= Self.maximumLength else {
            throw Problem(description: "the PostgreSQL URL is longer than \(Self.maximumLength) bytes")
        }
        let rest: Substring
        if text.hasPrefix("postgres://") {
            rest = text.dropFirst("postgres://".count)
        } else if text.hasPrefix("postgresql://") {
            rest = text.dropFirst("postgresql://".count)
        } else {
            throw Problem(description: "a PostgreSQL store is postgres://USER@HOST:PORT/DATABASE")
        }
        // Everything before the last '@' is the user (and password): a password may hold '@'
        // only percent-encoded, but libpq takes the last one too.
        guard let at = rest.lastIndex(of: "@") else {
            throw Problem(description: "\(Self.redacted(text)) names no user: write postgres://USER@HOST:PORT/DATABASE")
        }
        let userInfo = rest[..<at]
        // A '/' or '?' before it: the last '@' is in the database or a parameter, not the user's.
        guard !userInfo.contains("/"), !userInfo.contains("?") else {
            throw Problem(
                description:
                    "\(Self.redacted(text)) has an '@' after its host, or a '/' or '?' in its password: percent-encode them (%40, %2F, %3F)"
            )
        }
        var location = rest[rest.index(after: at)...]
        let userPart: Substring
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            userPart = userInfo[..<colon]
            password = try Self.decoded(userInfo[userInfo.index(after: colon)...], "password", text)
        } else {
            userPart = userInfo
        }
        let user = try Self.decoded(userPart, "user", text)
        guard !user.isEmpty else {
            throw Problem(description: "\(Self.redacted(text)) names no user: write postgres://USER@HOST:PORT/DATABASE")
        }
        var tls = TLSMode.disable
        var rootCertificate: String?
        if let query = location.firstIndex(of: "?") {
            for parameter in location[location.index(after: query)...].split(separator: "&") {
                let name = parameter.prefix { $0 != "=" }
                let value = parameter.dropFirst(name.count + 1)
                switch name {
                case "sslmode":
                    guard let mode = TLSMode(rawValue: String(value)) else {
                        throw Problem(
                            description:
                                "\(Self.redacted(text)): sslmode '\(value.prefix(40))' is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))"
                        )
                    }
                    tls = mode
                case "sslrootcert":
                    rootCertificate = try Self.decoded(value, "sslrootcert", text)
                default:
                    throw Problem(
                        description:
                            "\(Self.redacted(text)): parameters (\(Self.parameterNames(location[location.index(after: query)...]))) are not supported but sslmode and sslrootcert; give the password in PGPASSWORD"
                    )
                }
            }
            location = location[..<query]
            // libpq reads a root certificate only to verify with: without TLS it would be a
            // check silently not made.
            guard tls != .disable || rootCertificate == nil else {
                throw Problem(description: "\(Self.redacted(text)): sslrootcert goes with sslmode=require, verify-ca or verify-full")
            }
        }
        var databasePart: Substring = ""
        if let slash = location.firstIndex(of: "/") {
            databasePart = location[location.index(after: slash)...]
            location = location[..<slash]
        }
        var host: Substring
        var portText: Substring?
        if location.hasPrefix("[") {
            guard let close = location.firstIndex(of: "]") else {
                throw Problem(description: "\(Self.redacted(text)) has a '[' with no ']' around its IPv6 address")
            }
            host = location[location.index(after: location.startIndex)..<close]
            let after = location[location.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Problem(description: "\(Self.redacted(text)) has text after its IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = location.lastIndex(of: ":") {
            host = location[..<colon]
            portText = location[location.index(after: colon)...]
        } else {
            host = location
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw Problem(description: "\(Self.redacted(text)) names no host: write postgres://USER@HOST:PORT/DATABASE")
        }
        var port = 5432
        if let portText {
            guard let value = PortNumber.parse(portText) else {
                throw Problem(description: "\(Self.redacted(text)): the port must be a number from 1 to 65535")
            }
            port = value
        }
        let database = try Self.decoded(databasePart, "database", text)
        self.user = user
        self.password = password ?? environmentPassword
        passwordSource = password != nil ? .url : environmentPassword != nil ? .environment : nil
        self.host = String(host)
        self.port = port
        self.database = database.isEmpty ? user : database
        self.tls = tls
        self.rootCertificate = rootCertificate
    }

    /// The URL without its password.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var parameters: [String] = []
        if tls != .disable { parameters.append("sslmode=" + tls.rawValue) }
        if let rootCertificate { parameters.append("sslrootcert=" + Self.encoded(rootCertificate).replacing("%2F", with: "/")) }
        return "postgres://\(Self.encoded(user))@\(shownHost):\(port)/\(Self.encoded(database))"
            + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// The URL without its password, as `description`: `debugPrint` and string interpolation
    /// in tests print no secret either.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: every part but the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "host": host, "port": port, "database": database, "password": password == nil ? "none" : "***"])
    }

    /// `text` with any password between `://user:` and `@` replaced by `***`: for a line
    /// about a URL that did not parse.
    package static func redacted(_ text: String) -> String {
        let characters = Array(text.utf8)
        guard let scheme = (0..<max(0, characters.count - 2)).first(where: { characters[$0..<$0 + 3].elementsEqual("://".utf8) }) else {
            return text
        }
        let afterScheme = text.utf8.dropFirst(scheme + 3)
        let at = afterScheme.lastIndex(of: UInt8(ascii: "@"))
        var shown = String(text)
        if let at, let colon = afterScheme[..<at].firstIndex(of: UInt8(ascii: ":")) {
            shown = String(text[..<colon]) + ":***" + String(text[at...])
        }
        // A query may carry a password too (`?password=`, with an '@' in it taken for the
        // user's): nothing from the first '?' on is shown, the password masked before.
        let afterShownScheme = shown.utf8.index(shown.utf8.startIndex, offsetBy: scheme + 3)
        if let query = shown.utf8[afterShownScheme...].firstIndex(of: UInt8(ascii: "?")) {
            shown = String(shown[..<query]) + "?…"
        }
        return shown
    }

    /// `line` with the password of each PostgreSQL URL in it masked, and its query left out
    /// (it may carry one), the rest as it is: for a line that may quote an argument back. A
    /// raw password may hold an '@', a quote or a space: it runs to the last '@' before the
    /// next URL.
    package static func maskingPasswords(in line: String) -> String {
        func endsURL(_ character: Character) -> Bool { character == " " || character == "'" || character == "\"" }
        func nextScheme(_ text: Substring) -> Range<Substring.Index>? {
            [text.firstRange(of: "postgres://"), text.firstRange(of: "postgresql://")].compactMap { $0 }.min { $0.lowerBound < $1.lowerBound }
        }
        var shown = ""
        var rest = Substring(line)
        while let scheme = nextScheme(rest) {
            shown += rest[..<scheme.upperBound]
            var after = rest[scheme.upperBound...]
            let limit = after.firstRange(of: "://")?.lowerBound ?? after.endIndex
            if let masked = Self.maskedAt(after) {
                // Masked already (a message that quotes the URL redacted): its '@' is the one
                // after the mask, not one in the message's words after it.
                shown += after[..<masked]
                after = after[masked...]
            } else if let colon = after.firstIndex(of: ":"), let firstAt = after.firstIndex(of: "@"), colon < firstAt,
                let lastAt = after[..<limit].lastIndex(of: "@")
            {
                shown += after[..<colon] + ":***"
                after = after[lastAt...]
            }
            let end = after.firstIndex(where: endsURL) ?? after.endIndex
            if let query = after[..<end].firstIndex(of: "?") {
                shown += after[..<query] + "?…"
            } else {
                shown += after[..<end]
            }
            rest = after[end...]
        }
        return shown + rest
    }

    /// Where the host begins in `url` (past its scheme) when its password is masked already
    /// (`USER:***@HOST…`, no other '@' up to its end); nil otherwise.
    static func maskedAt(_ url: Substring) -> Substring.Index? {
        guard let mask = url.firstRange(of: ":***@") else { return nil }
        let end = url[mask.upperBound...].firstIndex { $0 == " " || $0 == "'" || $0 == "\"" } ?? url.endIndex
        guard !url[..<mask.lowerBound].contains("@"), !url[..<mask.lowerBound].contains(" "),
            !url[mask.upperBound..<end].contains("@")
        else { return nil }
        return url.index(before: mask.upperBound)
    }

    /// Where a URL's password came from.
    package enum PasswordSource: Sendable, Equatable {
        /// After the user and a ':'.
        case url
        /// `PGPASSWORD`, the URL having none.
        case environment
    }

    /// A query's parameter names, without their values (one may be a password).
    static func parameterNames(_ query: Substring) -> String {
        query.split(separator: "&").map { String($0.prefix { $0 != "=" }.prefix(40)) }.joined(separator: ", ")
    }

    /// Percent-decodes `part`; a bad escape or bytes that are not UTF-8 are refused.
    private static func decoded(_ part: Substring, _ name: String, _ text: String) throws(Problem) -> String {
        var bytes: [UInt8] = []
        var index = part.utf8.startIndex
        let utf8 = part.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first < utf8.endIndex, utf8.index(after: first) < utf8.endIndex,
                    let high = HexDigit.value(utf8[first]), let low = HexDigit.value(utf8[utf8.index(after: first)])
                else { throw Problem(description: "\(redacted(text)): the \(name) has a '%' that is not followed by two hex digits") }
                bytes.append(high << 4 | low)
                index = utf8.index(first, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self), !decoded.utf8.contains(0) else {
            throw Problem(description: "\(redacted(text)): the \(name) is not UTF-8 text")
        }
        return decoded
    }

    /// Percent-encodes what a URL's user or path may not hold as is.
    private static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
            }
        }
        return out
    }
}
