import SilentPushCore

/// The device's Live Activities, as the app and a test see them.
extension DeviceControl {
    /// The push-to-start token of `bundleID` on `device` (`Activity.pushToStartToken`): the
    /// token a `start` push goes to, with topic `<bundleID>.push-type.liveactivity`.
    public func pushToStartToken(device: String, bundleID: String) -> String {
        let device = Self.stored(device)
        return LiveActivityApp(device: device, bundleID: bundleID).pushToStartToken(in: runtime.shardMap)
    }

    /// Starts a Live Activity as the app does (`Activity.request`): subscribed to `channel`,
    /// else with a new update token. Throws `LiveActivityIgnored.unknownChannel` for a
    /// channel the app does not have in this environment, `AppNotInstalled` when the app was
    /// deleted (its token unregistered).
    public func startActivity(
        device: String, bundleID: String, attributesType: String, attributes: String = "{}", contentState: String = "{}",
        channel: ChannelID? = nil
    ) async throws -> LiveActivity {
        let device = Self.stored(device)
        try requireInstalled(device)
        return try await runtime.startActivity(
            app: LiveActivityApp(device: device, bundleID: bundleID), attributesType: attributesType, attributes: attributes,
            contentState: contentState, channel: channel)
    }

    /// Takes what each Most Recent Message Stored channel keeps from the store, where another
    /// receiver of a cluster may have recorded a newer broadcast: what a member does when it
    /// joins the cluster again.
    package func takeKeptMessages() async throws {
        try await runtime.takeKeptMessages()
    }

    /// The app's Live Activities on `device`, oldest first, as recorded.
    public func activities(device: String, bundleID: String) async throws -> [LiveActivity] {
        let device = Self.stored(device)
        return try await runtime.store.activities(deviceToken: device, bundleID: bundleID)
    }

    /// The newest `limit` activities of `device` and `bundleID` (each nil: all), oldest first.
    package func activities(device: String?, bundleID: String?, limit: Int) async throws -> [LiveActivity] {
        try await runtime.store.activities(deviceToken: device.map(Self.stored), bundleID: bundleID, limit: limit)
    }

    /// Every decision about the updates of each activity in `ids`, oldest first, by activity.
    package func activityUpdates(of ids: [String]) async throws -> [String: [LiveActivityUpdate]] {
        try await runtime.store.activityUpdates(activityIDs: ids)
    }

    /// Every decision about activity `id`'s updates, oldest first, each with its why.
    public func activityUpdates(_ id: String) async throws -> [LiveActivityUpdate] {
        try await runtime.store.activityUpdates(activityID: id)
    }
}

extension DeviceControl {
    /// Whether the app has `NSSupportsLiveActivitiesFrequentUpdates` on `device` (from the
    /// config file's `apps.<topic>.frequentUpdates`, or set here).
    public func hasFrequentUpdates(device: String, bundleID: String) -> Bool {
        let device = Self.stored(device)
        return runtime.inspect { $0.activities.hasFrequentUpdates(LiveActivityApp(device: device, bundleID: bundleID)) }
    }

    /// Sets whether the app has `NSSupportsLiveActivitiesFrequentUpdates` on `device` (its
    /// Live Activities get the larger hourly budget). Kept until the receiver stops.
    public func setFrequentUpdates(_ on: Bool, device: String, bundleID: String) {
        let device = Self.stored(device)
        runtime.modifyStateAndRunActions { recorder, _ in recorder.setFrequentUpdates(on, for: LiveActivityApp(device: device, bundleID: bundleID)) }
    }
}
