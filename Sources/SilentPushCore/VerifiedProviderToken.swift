/// A token whose signature has been checked.
public struct VerifiedProviderToken: Sendable, Equatable {
    /// The key that signed it.
    public var key: ProviderKey
    /// `iat`, seconds since the epoch.
    public var issuedAt: Int64
}
