/// Why a provider token was refused with `InvalidProviderToken`. APNs answers only the
/// reason; the receiver keeps the cause on its own side (the log, the push's record, the
/// admin API), so whoever sent it can fix it.
public enum TokenRefusalCause: Sendable, Hashable, CustomStringConvertible {
    /// The `authorization` header is not `bearer <token>`.
    case notBearer
    /// The token is not a JWT APNs reads: `part` says what is wrong with it.
    case malformed(part: String)
    /// No key with this `kid` is registered.
    case unknownKey(keyID: String)
    /// The key is registered to another team than the token's `iss`.
    case teamMismatch(keyID: String, tokenTeam: String, keyTeam: String)
    /// The signature does not verify with the key.
    case badSignature(keyID: String)
    /// `iat` is further in the future than the allowed clock skew.
    case issuedInFuture(seconds: Int64, allowed: Int64)

    /// The words for a log line or a record: what the sender wrote (`kid`, `iss`, `alg`, `iat`)
    /// is quoted as `shown` makes it, so no sender's text starts a line of its own.
    public var description: String {
        switch self {
        case .notBearer: "the authorization header is not 'bearer <token>'"
        case .malformed(let part): "the token is malformed: \(part)"
        case .unknownKey(let keyID): "no key with kid '\(Self.shown(keyID))' is registered"
        case .teamMismatch(let keyID, let tokenTeam, let keyTeam):
            "key '\(Self.shown(keyID))' belongs to team '\(Self.shown(keyTeam))', but the token's iss is '\(Self.shown(tokenTeam))'"
        case .badSignature(let keyID): "the signature does not verify with key '\(Self.shown(keyID))'"
        case .issuedInFuture(let seconds, let allowed): "iat is \(seconds) s in the future (at most \(allowed) s of clock skew is allowed)"
        }
    }

    /// The kinds of cause, without the sender's text: what a log limits its lines by, so a
    /// sender varying its `kid` gets no more lines than one that does not.
    package enum Kind: Sendable, Hashable {
        case notBearer, malformed, unknownKey, teamMismatch, badSignature, issuedInFuture
    }

    /// This cause's kind.
    package var kind: Kind {
        switch self {
        case .notBearer: .notBearer
        case .malformed: .malformed
        case .unknownKey: .unknownKey
        case .teamMismatch: .teamMismatch
        case .badSignature: .badSignature
        case .issuedInFuture: .issuedInFuture
        }
    }

    /// A sender's text as a message shows it: visible ASCII as it is, anything else (a line
    /// break, a control character, a quote, non-ASCII) as `\u{XX}`, at most 64 characters.
    package static func shown(_ text: some StringProtocol) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            if scalar.value >= 0x20, scalar.value < 0x7F, scalar != "'", scalar != "\\" {
                shown.unicodeScalars.append(scalar)
            } else {
                shown += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return text.unicodeScalars.count > 64 ? shown + "…" : shown
    }
}

extension ProviderTokenAuthenticator {
    /// Why `authorization` is refused with InvalidProviderToken, checking as `authenticate`
    /// does; nil when it is not (refused for another reason, or not refused). Runs only for
    /// refused requests: the signature is checked again only when nothing cheaper explains it.
    public func diagnose(
        authorization: Substring?, now: Int64, lookupKey: (String) -> ProviderKey?, verify: (ProviderToken, ProviderKey) -> Bool
    ) -> TokenRefusalCause? {
        guard let authorization, !authorization.isEmpty else { return nil }
        guard Self.isBearer(authorization), authorization.utf8.count > 7 else { return .notBearer }
        let token: ProviderToken
        do {
            token = try ProviderToken.parse(authorization.dropFirst(7))
        } catch {
            return .malformed(part: ProviderToken.malformedPart(authorization.dropFirst(7)))
        }
        guard let key = lookupKey(token.keyID) else { return .unknownKey(keyID: token.keyID) }
        guard key.teamID == token.teamID else { return .teamMismatch(keyID: token.keyID, tokenTeam: token.teamID, keyTeam: key.teamID) }
        // The key's state and environment give other reasons than InvalidProviderToken.
        if key.revoked || (key.environment.map { $0 != environment } ?? false) { return nil }
        let skew = Self.allowedClockSkew.components.seconds
        // `iat` is within years 1970-9999 (parse checks), so the difference cannot overflow.
        if token.issuedAt > now + skew { return .issuedInFuture(seconds: token.issuedAt - now, allowed: skew) }
        guard verify(token, key) else { return .badSignature(keyID: token.keyID) }
        return nil
    }
}

extension ProviderToken {
    /// What `parse` found wrong with `jwt`, in words.
    static func malformedPart(_ jwt: Substring) -> String {
        let parts = jwt.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return "a JWT has 3 base64url parts separated by '.', this has \(parts.count)" }
        guard let header = Base64URL.decode(parts[0]) else { return "its header is not base64url" }
        guard let claims = Base64URL.decode(parts[1]) else { return "its claims are not base64url" }
        guard let signature = Base64URL.decode(parts[2]), !signature.isEmpty else { return "its signature is empty or not base64url" }
        func fields(_ bytes: [UInt8], _ names: [String]) -> [String: String]? {
            var found: [String: String] = [:]
            let read: Bool? = try? bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                try scanner.readObject { scanner, key in
                    if names.contains(key) { found[key] = try scanner.readScalarText() ?? "" }
                }
                try scanner.expectEnd()
                return true
            }
            return read == true ? found : nil
        }
        guard let head = fields(header, ["alg", "kid"]) else { return "its header is not a JSON object" }
        guard let body = fields(claims, ["iss", "iat"]) else { return "its claims are not a JSON object" }
        if head["alg"] != "ES256" { return "alg is \(head["alg"].map { "'\(TokenRefusalCause.shown($0))'" } ?? "missing"), not 'ES256'" }
        if (head["kid"] ?? "").isEmpty { return "kid is missing" }
        if (body["iss"] ?? "").isEmpty { return "iss (the team id) is missing" }
        guard let iat = body["iat"] else { return "iat is missing" }
        return "iat '\(TokenRefusalCause.shown(iat))' is not seconds since the epoch from 1970 to 9999"
    }
}
