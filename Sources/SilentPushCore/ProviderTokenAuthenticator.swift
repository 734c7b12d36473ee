/// The rules of token authentication, apart from the signature check itself (a closure:
/// the crypto lives in the transport). Tokens are judged on the system clock (`now`,
/// seconds since the epoch). A verified token is cached, so its signature is checked once.
public struct ProviderTokenAuthenticator: Sendable {
    /// A token older than this is ExpiredProviderToken.
    public static let tokenLifetime = Duration.seconds(lifetimeSeconds)
    /// A connection may switch to a new token at most this often.
    public static let minimumSwitchInterval = Duration.seconds(switchSeconds)
    /// An `iat` further in the future than this is InvalidProviderToken.
    public static let allowedClockSkew = Duration.seconds(skewSeconds)
    // The same in seconds, for arithmetic on `iat` (seconds since the epoch).
    private static let lifetimeSeconds: Int64 = 3600
    private static let switchSeconds: Int64 = 1200
    private static let skewSeconds: Int64 = 300

    /// The receiver's environment (keys limited to the other one are refused).
    public var environment: APNsEnvironment

    /// Rules for `environment`.
    public init(environment: APNsEnvironment) {
        self.environment = environment
    }

    /// The common case, with no shared state: the request carries the token the connection
    /// already uses. Returns nil when it does not (then call `authenticate`).
    public func authenticateCurrent(
        authorization: Substring?, connection: ProviderTokenConnectionState, now: Int64
    ) throws(APNsReason) -> VerifiedProviderToken? {
        guard let authorization, case .adopted(let token, let current, _) = connection.phase, Self.isBearer(authorization),
            Self.sameBytes(authorization, from: 7, token)
        else { return nil }
        try checkAge(current, now: now)
        return current
    }

    /// Whether `text`'s bytes from the `start`th on are `other`'s, eight bytes at a time: the
    /// connection's token (a few hundred bytes) is compared on every request, and `==` on
    /// substrings compares Unicode-aware (as `dropFirst` counts characters).
    static func sameBytes(_ text: Substring, from start: Int, _ other: Substring) -> Bool {
        let equal = text.utf8.withContiguousStorageIfAvailable { text in
            other.utf8.withContiguousStorageIfAvailable { other in
                text.count >= start
                    && equalBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[start...])), UnsafeRawBufferPointer(other))
            }
        }
        return equal.flatMap { $0 } ?? text.utf8.dropFirst(start).elementsEqual(other.utf8)
    }

    private static func equalBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var offset = 0
        while offset + 8 <= a.count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        while offset < a.count {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Whether the header starts with `bearer ` (the scheme in any case), by bytes.
    static func isBearer(_ authorization: Substring) -> Bool {
        let scheme: StaticString = "bearer "
        return authorization.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count >= 7 else { return false }
            for index in 0..<7 {
                let byte = bytes[index]
                let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                if lower != scheme.utf8Start[index] { return false }
            }
            return true
        } ?? (authorization.prefix(7).lowercased() == "bearer ")
    }

    /// Whether `token` updates the connection's `current` one too soon: a token made less
    /// than 20 minutes after it (by `iat`), on a connection that took it less than 20 minutes
    /// ago. Not an update: the same `iat` and key signed again (ES256 signatures differ), a
    /// token replacing an expired one (APNs' answer to ExpiredProviderToken is a new token),
    /// or a new token on a connection opened late in its current token's life.
    static func isTooSoon(_ token: VerifiedProviderToken, replacing current: VerifiedProviderToken, adoptedAt: Int64, now: Int64) -> Bool {
        guard token.issuedAt != current.issuedAt || token.key.keyID != current.key.keyID else { return false }
        guard now - current.issuedAt <= lifetimeSeconds else { return false }
        return token.issuedAt - current.issuedAt < switchSeconds && now - adoptedAt < switchSeconds
    }

    private func checkAge(_ token: VerifiedProviderToken, now: Int64) throws(APNsReason) {
        guard token.issuedAt <= now + Self.skewSeconds else { throw .invalidProviderToken }
        guard now - token.issuedAt <= Self.lifetimeSeconds else { throw .expiredProviderToken }
    }

    /// Checks the `authorization` header of one request on a connection.
    ///
    /// - Parameters:
    ///   - authorization: the header's value, if the request has one.
    ///   - connection: the connection's token state, updated when its token changes.
    ///   - now: seconds since the epoch on the system clock.
    ///   - lookupKey: the registered key for a `kid`, if any.
    ///   - verify: whether the token's signature is good for the key.
    ///   - cache: verified tokens, shared across connections (the caller guards it).
    ///   - refused: tokens whose signature failed, shared likewise: a provider that sends a
    ///     bad one again and again costs one verification (an ECDSA check, about three times
    ///     a good token's whole cost), not one per request. A key changed since must clear
    ///     it, as it clears `cache`.
    public func authenticate(
        authorization: Substring?, connection: inout ProviderTokenConnectionState, now: Int64,
        lookupKey: (String) -> ProviderKey?, verify: (ProviderToken, ProviderKey) -> Bool,
        cache: inout BoundedCache<Substring, VerifiedProviderToken>, refused: inout BoundedCache<Substring, Void>
    ) throws(APNsReason) -> VerifiedProviderToken {
        if let current = try authenticateCurrent(authorization: authorization, connection: connection, now: now) {
            return current  // the common case: the connection's token again, no lookup at all
        }
        guard let authorization, !authorization.isEmpty else { throw .missingProviderToken }
        guard Self.isBearer(authorization), authorization.utf8.count > 7 else { throw .invalidProviderToken }
        let jwt = authorization.dropFirst(7)

        let verified: VerifiedProviderToken
        if let cached = cache.value(for: jwt) {
            verified = cached
        } else {
            let token = try ProviderToken.parse(jwt)
            guard let key = lookupKey(token.keyID), key.teamID == token.teamID else { throw .invalidProviderToken }
            guard !key.revoked else { throw .forbidden }
            if let keyEnvironment = key.environment, keyEnvironment != environment { throw .badEnvironmentKeyIdInToken }
            guard refused.value(for: jwt) == nil else { throw .invalidProviderToken }
            guard verify(token, key) else {
                refused.insert((), for: Substring(jwt))  // a copy: the request's buffer goes
                throw .invalidProviderToken
            }
            verified = VerifiedProviderToken(key: key, issuedAt: token.issuedAt)
            cache.insert(verified, for: Substring(jwt))  // a copy: the request's buffer goes
        }

        try checkAge(verified, now: now)

        switch connection.phase {
        case .adopted(let text, _, _) where text == jwt:
            return verified
        case .adopted(_, let current, let adoptedAt):
            if current.key.teamID != verified.key.teamID { throw .unrelatedKeyIdInToken }
            if Self.isTooSoon(verified, replacing: current, adoptedAt: adoptedAt, now: now) { throw .tooManyProviderTokenUpdates }
        case .noToken:
            break
        }
        connection.phase = .adopted(text: Substring(String(jwt)), token: verified, at: now)
        return verified
    }
}
