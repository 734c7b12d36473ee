/// A background `URLSession` transfer an app hands the device (`URLSessionConfiguration.background`):
/// `{"session", "url", "method", "discretionary", "allowsCellular", "sessionSendsLaunchEvents", "fromFile"}`,
/// from a Swift, exec (`transfer {JSON}`) or http (`"transfers": [...]`) handler. A download
/// by default; with `fromFile`, an upload of that file (`uploadTask(with:fromFile:)`).
public struct TransferRequest: Sendable, Equatable {
    /// The HTTP methods a transfer may use.
    public enum Method: String, Sendable, CaseIterable {
        /// A download.
        case GET
        /// An upload of `fromFile`, or an empty body without one.
        case PUT
        /// An upload of `fromFile`, or an empty body without one.
        case POST
    }

    /// The background session's identifier: the relaunch names it.
    public var session: String
    /// An `http` or `https` URL.
    public var url: String
    /// The HTTP method: `GET` (a download) by default.
    public var method: Method
    /// `isDiscretionary`: the system waits for Wi-Fi and external power.
    public var discretionary: Bool
    /// `allowsCellularAccess`; false: the transfer waits for Wi-Fi.
    public var allowsCellular: Bool
    /// `sessionSendsLaunchEvents`: the app is relaunched when the session's transfers are done.
    public var sessionSendsLaunchEvents: Bool
    /// The file a `PUT` or `POST` sends as its body (`uploadTask(with:fromFile:)`), an
    /// absolute path on the receiver's host; nil: no body.
    public var fromFile: String?

    /// `URLSessionConfiguration`'s defaults for a flag a request does not give: every
    /// initialiser that takes the flags, and the parser, take them from here.
    public static let defaultDiscretionary = false
    /// `allowsCellularAccess`'s default: cellular data may be used.
    public static let defaultAllowsCellular = true
    /// `sessionSendsLaunchEvents`'s default: the app is relaunched when the session's transfers are done.
    public static let defaultSessionSendsLaunchEvents = true

    /// The longest session identifier taken, in bytes.
    public static let maximumSessionLength = 200
    /// The longest URL taken, in bytes.
    public static let maximumURLLength = 2048
    /// The longest `fromFile` path taken, in bytes.
    public static let maximumPathLength = 1024

    /// A request; throws what is wrong with it.
    public init(
        session: String, url: String, method: Method = .GET, discretionary: Bool = Self.defaultDiscretionary,
        allowsCellular: Bool = Self.defaultAllowsCellular, sessionSendsLaunchEvents: Bool = Self.defaultSessionSendsLaunchEvents,
        fromFile: String? = nil
    ) throws(TransferRefusal) {
        guard !session.isEmpty, session.utf8.count <= Self.maximumSessionLength, session.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw .badSession
        }
        guard url.utf8.count <= Self.maximumURLLength, Self.isHTTP(url) else { throw .notHTTP }
        if let fromFile {
            guard method != .GET else { throw .uploadWithGET }
            guard fromFile.hasPrefix("/"), fromFile.utf8.count <= Self.maximumPathLength, !fromFile.utf8.contains(0) else { throw .badFile }
        }
        self.session = session
        self.url = url
        self.method = method
        self.discretionary = discretionary
        self.allowsCellular = allowsCellular
        self.sessionSendsLaunchEvents = sessionSendsLaunchEvents
        self.fromFile = fromFile
    }

    /// Reads one request, a JSON object, as a handler wrote it.
    public static func parse(_ text: String) -> Result<TransferRequest, TransferRefusal> {
        let bytes = [UInt8](text.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> Result<TransferRequest, TransferRefusal> in
            var scanner = JSONScanner(buffer)
            do throws(TransferRefusal) {
                let request = try read(&scanner)
                guard (try? scanner.expectEnd()) != nil else { throw .notAnObject }
                return .success(request)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The fields the admin API's transfer record has beside a request's: skipped, so a
    /// record copied from `GET /v1/transfers` reads as its request.
    package static let recordFields: Set<String> = [
        "id", "deviceToken", "topic", "wakeId", "taskRunId", "handedOverAt", "state", "attempts", "bytes", "status", "finishedAt",
        "lastError", "relaunchRequestId", "file", "why",
    ]

    /// The fields a request is read from.
    package static let requestFields: Set<String> = [
        "session", "url", "method", "fromFile", "discretionary", "allowsCellular", "sessionSendsLaunchEvents",
    ]

    /// Reads the JSON object at `scanner`'s position.
    public static func read(_ scanner: inout JSONScanner) throws(TransferRefusal) -> TransferRequest {
        var session: String?
        var url: String?
        var method = Method.GET
        var fromFile: String?
        var flags = (
            discretionary: Self.defaultDiscretionary, allowsCellular: Self.defaultAllowsCellular, launchEvents: Self.defaultSessionSendsLaunchEvents
        )
        var seen: Set<[UInt8]> = []
        do {
            guard try scanner.peek() == .object else { throw TransferRefusal.notAnObject }
            try scanner.readObject { scanner, key in
                // Either value of a field given twice would be a guess.
                guard seen.insert(Array(key.utf8)).inserted else { throw TransferRefusal.repeatedField }
                func bool(_ refusal: TransferRefusal) throws -> Bool {
                    guard try scanner.peek() == .bool else { throw refusal }
                    return try scanner.readBool()
                }
                switch key {
                case "session":
                    guard try scanner.peek() == .string else { throw TransferRefusal.badSession }
                    session = try scanner.readString()
                case "url":
                    guard try scanner.peek() == .string else { throw TransferRefusal.notHTTP }
                    url = try scanner.readString()
                case "method":
                    guard try scanner.peek() == .string, let known = Method(rawValue: try scanner.readString()) else {
                        throw TransferRefusal.unknownMethod
                    }
                    method = known
                case "discretionary": flags.discretionary = try bool(.badFlag)
                case "allowsCellular": flags.allowsCellular = try bool(.badFlag)
                case "sessionSendsLaunchEvents": flags.launchEvents = try bool(.badFlag)
                case "fromFile":
                    switch try scanner.peek() {
                    case .null: try scanner.skipValue()  // as the admin API writes a download's
                    case .string: fromFile = try scanner.readString()
                    default: throw TransferRefusal.badFile
                    }
                case _ where Self.recordFields.contains(key): try scanner.skipValue()
                // A field not read here would be silently ignored: URLSession's own names
                // (earliestBeginDate, allowsCellularAccess) or a misspelt flag.
                default: throw TransferRefusal.unknownField
                }
            }
        } catch let refusal as TransferRefusal {
            throw refusal
        } catch {
            throw .notAnObject
        }
        guard let session else { throw .missingSession }
        guard let url else { throw .missingURL }
        return try TransferRequest(
            session: session, url: url, method: method, discretionary: flags.discretionary, allowsCellular: flags.allowsCellular,
            sessionSendsLaunchEvents: flags.launchEvents, fromFile: fromFile)
    }

    /// Whether `url` is `http://` or `https://` (either case) with a host, and an optional
    /// port: what the device can try at all (a malformed one would fail every try).
    static func isHTTP(_ url: String) -> Bool {
        let lower = url.lowercased()
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            let rest = lower.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            return isAuthority(authority) && !rest.contains(where: { $0 == " " || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false })
        }
        return false
    }

    /// Whether `authority` is RFC 3986's: an optional `user@` (unreserved, percent-encoded
    /// and sub-delimiter characters, `:`), then a host name (a non-ASCII one too, as a user
    /// types it) or IPv4 address, or an IPv6 address in brackets (with a `%25` zone), then an
    /// optional port: empty, or 1 to 65535.
    static func isAuthority(_ authority: Substring) -> Bool {
        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            guard user.allSatisfy({ $0.isASCII ? ($0.isLetter || $0.isNumber || "-._~%!$&'()*+,;=:".contains($0)) : false }) else { return false }
            hostAndPort = authority[authority.index(after: at)...]
        }
        let host: Substring
        var port: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return false }
            host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
            let address = host.prefix { $0 != "%" }
            guard address.contains(":"), address.contains(where: \.isHexDigit),
                address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
            else { return false }
        } else {
            if let colon = hostAndPort.lastIndex(of: ":") {
                host = hostAndPort[..<colon]
                port = hostAndPort[hostAndPort.index(after: colon)...]
            } else {
                host = hostAndPort
            }
            guard host.contains(where: { $0 != "." }),
                host.allSatisfy({ !$0.isASCII || $0.isLetter || $0.isNumber || "-._~%".contains($0) })
            else { return false }
        }
        guard !host.isEmpty else { return false }
        if let port, !port.isEmpty {
            guard PortNumber.parse(port) != nil else { return false }
        }
        return true
    }
}
