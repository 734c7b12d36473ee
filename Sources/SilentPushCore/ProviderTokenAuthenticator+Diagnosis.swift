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
