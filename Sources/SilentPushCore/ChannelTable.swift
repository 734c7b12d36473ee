/// Every channel, by environment and app: what the channel-management API and broadcasts
/// consult. A value; its owner keeps it under a lock and records each change durably.
public struct ChannelTable: Sendable {
    /// How many channels an app may hold in one environment ("up to 10,000 channels for your
    /// app in the development and production environment, respectively").
    public static let defaultLimit = 10_000

    private struct AppKey: Hashable {
        var environment: APNsEnvironment
        var bundleID: String
    }

    private var apps: [AppKey: [ChannelID: BroadcastChannel]] = [:]
    /// Channels per app and environment, at most.
    public let limit: Int

    /// An empty table.
    public init(limit: Int = ChannelTable.defaultLimit) {
        self.limit = limit
    }

    /// Checks that `bundleID` may have one more channel in `environment`
    /// (`CannotCreateChannelConfig` at the limit).
    public func admitsAnother(bundleID: String, environment: APNsEnvironment) throws(APNsReason) {
        guard apps[AppKey(environment: environment, bundleID: bundleID), default: [:]].count < limit else {
            throw .cannotCreateChannelConfig
        }
    }

    /// Adds `channel` (a store's channel at start-up, or a new one once recorded).
    public mutating func insert(_ channel: BroadcastChannel) {
        apps[AppKey(environment: channel.environment, bundleID: channel.bundleID), default: [:]][channel.id] = channel
    }

    /// The channel `id` of `bundleID` in `environment` (`ChannelNotRegistered` when there is
    /// none: deleted, another app's, or the other environment's).
    public func channel(_ id: ChannelID, bundleID: String, environment: APNsEnvironment) throws(APNsReason) -> BroadcastChannel {
        guard let channel = apps[AppKey(environment: environment, bundleID: bundleID)]?[id] else { throw .channelNotRegistered }
        return channel
    }

    /// Removes a channel; returns it, nil when there was none.
    @discardableResult
    public mutating func remove(_ id: ChannelID, bundleID: String, environment: APNsEnvironment) -> BroadcastChannel? {
        let key = AppKey(environment: environment, bundleID: bundleID)
        let removed = apps[key]?.removeValue(forKey: id)
        if apps[key]?.isEmpty == true { apps[key] = nil }
        return removed
    }

    /// The app's channels in `environment`, oldest first.
    public func channels(bundleID: String, environment: APNsEnvironment) -> [BroadcastChannel] {
        (apps[AppKey(environment: environment, bundleID: bundleID)].map { Array($0.values) } ?? [])
            .sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
    }

    /// How many channels there are in all.
    public var count: Int { apps.values.reduce(0) { $0 + $1.count } }
}
