/// A push as the policy sees it: a reference (the payload lives in the store), its
/// priority and when it stops being deliverable.
public struct IncomingPush<Instant: Sendable & Equatable>: Sendable, Equatable {
    /// The store's reference to the push.
    public var id: UInt64
    /// `apns-priority`.
    public var priority: APNsPriority
    /// When it expires on the device clock; nil: never. `apns-expiration: 0` is the
    /// arrival instant itself: delivered now or never.
    public var expiresAt: Instant?

    /// A push.
    public init(id: UInt64, priority: APNsPriority, expiresAt: Instant? = nil) {
        self.id = id
        self.priority = priority
        self.expiresAt = expiresAt
    }
}
