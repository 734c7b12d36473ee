/// A broadcast channel: an app's, in one environment, with the storage policy it was
/// created with.
public struct BroadcastChannel: Equatable, Sendable {
    /// Its id.
    public var id: ChannelID
    /// The app (bundle id) it belongs to.
    public var bundleID: String
    /// The environment it was created in: unknown in the other.
    public var environment: APNsEnvironment
    /// What it was created with.
    public var configuration: ChannelConfiguration
    /// When it was created, ms since the epoch (system clock).
    public var createdAt: Int64

    /// A channel.
    public init(id: ChannelID, bundleID: String, environment: APNsEnvironment, configuration: ChannelConfiguration, createdAt: Int64) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.configuration = configuration
        self.createdAt = createdAt
    }
}
