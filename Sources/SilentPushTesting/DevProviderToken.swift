import Foundation
import SilentPushCore
import SilentPushTransport

/// Provider tokens signed with the repository's dev key (DEVKEY0001 of team DEVTEAM001),
/// for tests. Never use the dev key outside tests.
public enum DevProviderToken {
    /// The dev key's id.
    public static let keyID = "DEVKEY0001"
    /// The dev key's team.
    public static let teamID = "DEVTEAM001"

    /// Seconds since the epoch, now.
    public static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A JWT `header.claims.signature`.
    /// - Parameters:
    ///   - issuedAt: the `iat` claim, seconds since the epoch.
    ///   - keyID: the header's `kid`.
    ///   - teamID: the `iss` claim.
    ///   - keyFile: the `.p8` key to sign with.
    ///   - algorithm: the header's `alg` (APNs takes only `ES256`).
    ///   - der: sign with a DER signature (as `openssl dgst -sign` does) instead of JOSE r‖s.
    ///   - iatAsString: send `iat` as a numeric string (as some client libraries do).
    ///   - iatJSON: the claim's JSON text as is (`1767225600.25`, `1.7e9`), instead of `issuedAt`.
    public static func make(
        issuedAt: Int64 = now, keyID: String = keyID, teamID: String = teamID, keyFile: String = DevCertificates.authKey,
        algorithm: String = "ES256", der: Bool = false, iatAsString: Bool = false, iatJSON: String? = nil
    ) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"\#(algorithm)","kid":"\#(keyID)"}"#.utf8))
        let iat = iatJSON ?? (iatAsString ? "\"\(issuedAt)\"" : "\(issuedAt)")
        let claims = Base64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(iat)}"#.utf8))
        let key = try ES256Key.load(file: keyFile)
        let input = Array("\(header).\(claims)".utf8)
        let signature = der ? try key.signDER(input) : try key.sign(input)
        return "\(header).\(claims).\(Base64URL.encode(signature))"
    }
}
