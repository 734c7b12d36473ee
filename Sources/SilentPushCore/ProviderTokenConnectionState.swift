/// What one connection has agreed to so far: the token it uses, once it has sent one. Its
/// team is that token's key's: a later token must be of the same team.
public struct ProviderTokenConnectionState: Sendable {
    /// Whether the connection has a token yet.
    enum Phase: Sendable {
        /// No token adopted yet: the first one that verifies is.
        case noToken
        /// `text` (the JWT as sent) was adopted at `at` (seconds since the epoch), and
        /// verified as `token`.
        case adopted(text: Substring, token: VerifiedProviderToken, at: Int64)
    }

    var phase = Phase.noToken

    /// A connection that has sent no token yet.
    public init() {}
}
