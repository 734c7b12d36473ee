import SilentPushCore

/// Broadcast channels and the broadcasts sent on them, as a test drives them in-process: the
/// same table and store the channel-management and broadcast APIs use, in the receiver's
/// environment.
extension Receiver {
    /// Creates a channel for `bundleID`, as `POST /1/apps/<bundleID>/channels` does, and
    /// returns it once it is recorded. Throws `APNsReason.cannotCreateChannelConfig` at the
    /// limit.
    public func createChannel(bundleID: String, storagePolicy: MessageStoragePolicy) async throws -> BroadcastChannel {
        try await channels.create(bundleID: bundleID, configuration: ChannelConfiguration(storagePolicy: storagePolicy))
    }

    /// Deletes a channel; throws `APNsReason.channelNotRegistered` when there is none.
    public func deleteChannel(_ id: ChannelID, bundleID: String) async throws {
        try await channels.delete(id, bundleID: bundleID)
    }

    /// The app's channels, oldest first.
    public func channels(bundleID: String) -> [BroadcastChannel] {
        channels.channels(bundleID: bundleID)
    }

    /// The broadcasts APNs accepted for `bundleID` (on `channel` when given), newest first.
    public func broadcasts(bundleID: String, channel: ChannelID? = nil, limit: Int = 100) async throws -> [BroadcastRecord] {
        try await channels.broadcasts(bundleID: bundleID, channel: channel, limit: limit)
    }
}
