import SilentPushCore
import Testing

/// Why a token was refused with InvalidProviderToken: each cause, checked as `authenticate`
/// checks, with the signature check a closure (no crypto in the core).
@Suite struct TokenRefusalCauseTests {
    static let now: Int64 = 1_800_000_000
    static let key = ProviderKey(keyID: "KEY1", teamID: "TEAM1")

    static func bearer(keyID: String = "KEY1", teamID: String = "TEAM1", issuedAt: Int64 = now) -> Substring {
        let input = String(decoding: ProviderToken.signingInput(keyID: keyID, teamID: teamID, issuedAt: issuedAt), as: UTF8.self)
        return Substring("bearer " + input + "." + Base64URL.encode([1, 2, 3, 4]))
    }

    static func diagnose(_ authorization: Substring?, verifies: Bool = true) -> TokenRefusalCause? {
        ProviderTokenAuthenticator(environment: .sandbox).diagnose(
            authorization: authorization, now: now, lookupKey: { $0 == key.keyID ? key : nil }, verify: { _, _ in verifies })
    }

    @Test func eachCauseIsNamed() {
        #expect(Self.diagnose("basic abc") == .notBearer)
        #expect(Self.diagnose("bearer a.b") == .malformed(part: "a JWT has 3 base64url parts separated by '.', this has 2"))
        #expect(Self.diagnose(Self.bearer(keyID: "NOPE")) == .unknownKey(keyID: "NOPE"))
        #expect(Self.diagnose(Self.bearer(teamID: "TEAM2")) == .teamMismatch(keyID: "KEY1", tokenTeam: "TEAM2", keyTeam: "TEAM1"))
        #expect(Self.diagnose(Self.bearer(issuedAt: Self.now + 3600)) == .issuedInFuture(seconds: 3600, allowed: 300))
        #expect(Self.diagnose(Self.bearer(), verifies: false) == .badSignature(keyID: "KEY1"))
        // A token that would be accepted, and one refused for another reason, have no cause.
        #expect(Self.diagnose(Self.bearer()) == nil)
        #expect(Self.diagnose(nil) == nil)
    }

    @Test func aMalformedTokenSaysWhichPart() {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"KEY1"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"TEAM1","iat":1800000000}"#.utf8))
        #expect(Self.diagnose(Substring("bearer \(header).\(claims).AQID")) == .malformed(part: "alg is 'HS256', not 'ES256'"))
        let noTeam = Base64URL.encode(Array(#"{"iat":1800000000}"#.utf8))
        let es256 = Base64URL.encode(Array(#"{"alg":"ES256","kid":"KEY1"}"#.utf8))
        #expect(Self.diagnose(Substring("bearer \(es256).\(noTeam).AQID")) == .malformed(part: "iss (the team id) is missing"))
        #expect(Self.diagnose(Substring("bearer \(es256).e30.")) == .malformed(part: "its signature is empty or not base64url"))
        #expect(
            TokenRefusalCause.teamMismatch(keyID: "K", tokenTeam: "A", keyTeam: "B").description
                == "key 'K' belongs to team 'B', but the token's iss is 'A'")
    }
}
