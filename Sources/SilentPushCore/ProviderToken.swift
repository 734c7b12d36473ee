/// A provider authentication token (JWT) taken apart, not yet verified:
/// header `{"alg":"ES256","kid":…}`, claims `{"iss": team, "iat": seconds}`.
public struct ProviderToken: Sendable, Equatable {
    /// `kid`: the signing key's id.
    public var keyID: String
    /// `iss`: the team id.
    public var teamID: String
    /// `iat`: whole seconds since the epoch (sent as any JSON number or a numeric string;
    /// see `NumericDate`).
    public var issuedAt: Int64
    /// `header.claims`, the bytes the signature covers.
    public var signingInput: [UInt8]
    /// The signature: raw r‖s (64 bytes, JOSE) or DER, as sent.
    public var signature: [UInt8]

    /// Parses the text after `bearer `. Anything malformed, an `alg` other than ES256, or an
    /// `iat` outside 1970 through 9999 is InvalidProviderToken.
    public static func parse(_ jwt: Substring) throws(APNsReason) -> ProviderToken {
        let parts = jwt.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = Base64URL.decode(parts[0]), let claims = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]), !signature.isEmpty
        else { throw .invalidProviderToken }

        var algorithm: String?
        var keyID: String?
        var teamID: String?
        var issuedAt: Int64?
        do {
            try header.withUnsafeBufferPointer { bytes in
                var scanner = JSONScanner(bytes)
                try scanner.readObject { scanner, key in
                    switch key {
                    case "alg": algorithm = try scanner.readScalarText()
                    case "kid": keyID = try scanner.readScalarText()
                    default: break
                    }
                }
                try scanner.expectEnd()
            }
            try claims.withUnsafeBufferPointer { bytes in
                var scanner = JSONScanner(bytes)
                try scanner.readObject { scanner, key in
                    switch key {
                    case "iss": teamID = try scanner.readScalarText()
                    case "iat": issuedAt = try scanner.readScalarText().flatMap(NumericDate.seconds)
                    default: break
                    }
                }
                try scanner.expectEnd()
            }
        } catch {
            throw .invalidProviderToken
        }
        guard algorithm == "ES256", let keyID, !keyID.isEmpty, let teamID, !teamID.isEmpty, let issuedAt else {
            throw .invalidProviderToken
        }
        let signedLength = parts[0].count + 1 + parts[1].count
        return ProviderToken(
            keyID: keyID, teamID: teamID, issuedAt: issuedAt,
            signingInput: Array(jwt.utf8.prefix(signedLength)), signature: signature)
    }

    /// `header.claims` of a token to sign: `{"alg":"ES256","kid":…}` and `{"iss":…,"iat":…}`.
    public static func signingInput(keyID: String, teamID: String, issuedAt: Int64) -> [UInt8] {
        let header = Base64URL.encode(Array((#"{"alg":"ES256","kid":"# + JSONString.quoted(keyID) + "}").utf8))
        let claims = Base64URL.encode(Array((#"{"iss":"# + JSONString.quoted(teamID) + #","iat":"# + String(issuedAt) + "}").utf8))
        return Array("\(header).\(claims)".utf8)
    }

    /// The JWT: `header.claims.signature`, the signature raw r‖s (JOSE) in base64url.
    public static func jwt(signingInput: [UInt8], signature: [UInt8]) -> String {
        String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}
