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
