extension InstantProtocol where Duration == Swift.Duration {
    /// When APNs gives up a push it holds for an offline device: its own expiry (`expiresAt`,
    /// from `apns-expiration`) or `limit` (APNs's storage limit) after it arrived, whichever
    /// is sooner. The wake, reload and Live Activity paths all hold pushes by this rule.
    @inlinable package static func apnsHeldExpiry(_ expiresAt: Self?, arrivedAt: Self, limit: Duration) -> Self {
        let latest = arrivedAt.advanced(by: limit)
        return expiresAt.map { Swift.min($0, latest) } ?? latest
    }
}
