import SilentPushCore
import SilentPushStore

extension DeviceSnapshot {
    /// What each Most Recent Message Stored channel keeps at `now`, as `store` has it: each
    /// channel's latest broadcast of the last `lifetime` that the device's activities take (a
    /// start, or one ActivityKit cannot read, leaves the one before), with until when it is
    /// kept (nil: not kept, by its channel's policy or its `apns-expiration`). A channel
    /// deleted since keeps nothing.
    static func keptMessages(
        in store: PushStore, channels: ChannelDirectory, lifetime: Duration, now: DeviceInstant
    ) async throws -> [LiveActivityPolicy.Broadcast] {
        let systemNow = DeviceClock.systemNow
        let since = now.advanced(by: .zero - lifetime)
        /// What the device's activities take of `record`: nothing from a start or a payload
        /// ActivityKit cannot read, which leave the channel's message as it was.
        func usable(_ record: BroadcastRecord) -> LiveActivityPayload? {
            guard case .success(let payload) = LiveActivityPayload.parse(record.payload), payload.event != .start else { return nil }
            return payload
        }
        var kept: [LiveActivityPolicy.Broadcast] = []
        for latest in try await store.latestBroadcasts(environment: channels.environment, since: since) {
            guard let policy = (try? channels.channel(latest.channelID, bundleID: latest.bundleID))?.configuration.storagePolicy else { continue }
            var record = latest
            var payload = usable(latest)
            // The newest usable one before it is what the channel keeps, if it is recent.
            var cursor = latest
            search: while payload == nil {
                let earlier = try await store.broadcasts(before: cursor, since: since, limit: 50)
                for candidate in earlier {
                    if let found = usable(candidate) {
                        (record, payload) = (candidate, found)
                        break search
                    }
                }
                guard earlier.count == 50, let oldest = earlier.last else { break }
                cursor = oldest
            }
            guard let payload else { continue }
            kept.append(
                LiveActivityPolicy.Broadcast(
                    recorded: record, payload: payload, storagePolicy: policy, lifetime: lifetime, systemNow: systemNow, now: now))
        }
        return kept
    }
}
