/// What one connection has agreed to so far: its team and current token.
public struct ProviderTokenConnectionState: Sendable {
    var teamID: String?
    var currentToken: Substring?
    var current: VerifiedProviderToken?
    var adoptedAt: Int64 = 0

    /// A connection that has sent no token yet.
    public init() {}
}
