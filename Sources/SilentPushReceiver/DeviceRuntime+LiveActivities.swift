import Foundation
import SilentPushCore
import SilentPushStore

/// Live Activity pushes and broadcasts reach the device's activities; the app starts them.
extension DeviceRuntime {
    /// A Live Activity push whose payload ActivityKit reads: the activity policy decides, and
    /// the push is answered once its row and what it did are committed.
    func submitLiveActivity(
        _ push: ValidatedPush, payload: LiveActivityPayload, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) {
        guard store.isWritable else {
            store.probeSoon()
            metrics.rejected(.serviceUnavailable)
            return completion(.failure(APNsRejection(.serviceUnavailable)))
        }
        let bundleID = LiveActivityApp.bundleID(ofTopic: push.topic)
        let recorded = answeringOnceRecorded(completion)
        var livePush = LiveActivityPolicy.Push(
            source: push.apnsID, token: push.deviceToken, bundleID: bundleID, priority: push.priority, payload: payload,
            newActivityID: ActivityID.next(), newToken: newToken(inShardOf: push.deviceToken))
        let systemNow = DeviceClock.systemNow
        // Looked up before the step: the channel table's lock is not taken under the runtime's.
        let inputChannelExists = payload.inputPushChannel.map { channels?.exists($0, bundleID: bundleID) ?? false } ?? true
        let reply = modifyStateAndRunActions { recorder, now in
            let (record, _) = PushRecord.received(push, id: id, neverWakes: nil, systemNow: systemNow, now: now)
            // Kept for an offline device as a background push is: to its expiry, at most APNs' storage limit.
            let limit = now.advanced(by: recorder.policy.settings.apnsStorageLimit)
            livePush.storedUntil = min(record.expiresAt.map(DeviceInstant.init(millisecondsSinceEpoch:)) ?? limit, limit)
            return recorder.receiveLiveActivity(
                record, push: livePush, inputChannelExists: inputChannelExists, now: now, completion: recorded)
        }
        switch reply {
        case .stopping: completion(.failure(APNsRejection(.shutdown)))
        case .notOwner: completion(.failure(APNsRejection(.serviceUnavailable)))
        case .rejected(let reason):
            metrics.rejected(reason)
            completion(.failure(APNsRejection(reason)))
        default: break
        }
    }

    /// A broadcast APNs accepted: recorded with what it did to every activity on its channel,
    /// a slice of subscribers per commit, each slice stepped once the one before is
    /// committed (pushes arriving meanwhile are committed between slices); `completion` runs
    /// once the last is. A Most Recent Message Stored channel keeps it for the activities'
    /// settings' lifetime (8 hours), or until its `apns-expiration` if sooner; with
    /// expiration 0 it is not kept.
    package func broadcast(
        _ record: BroadcastRecord, storagePolicy: MessageStoragePolicy, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) {
        broadcast(record, storagePolicy: storagePolicy, from: .provider, completion: completion)
    }

    /// A broadcast from `origin`: a provider's (recorded here), or another member's.
    private func broadcast(
        _ record: BroadcastRecord, storagePolicy: MessageStoragePolicy, from origin: DeviceRecorder.BroadcastOrigin,
        completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) {
        guard store.isWritable else {
            store.probeSoon()
            return completion(.failure(APNsRejection(.serviceUnavailable)))
        }
        let payload = try? LiveActivityPayload.parse(record.payload).get()
        let systemNow = DeviceClock.systemNow
        let source = record.requestID
        let reply = modifyStateAndRunActions { recorder, now in
            let storedUntil = Self.keptUntil(
                record, storagePolicy: storagePolicy, receivedAt: now, lifetime: recorder.activities.settings.storedMessageLifetime,
                systemNow: systemNow, now: now)
            return recorder.broadcast(record, from: origin, payload: payload, storedUntil: storedUntil, now: now) { [self] result in
                fanOutCommitted(source, result, completion: completion)
            }
        }
        if reply == .stopping { completion(.failure(APNsRejection(.shutdown))) }
    }

    /// Until when a channel of `storagePolicy` keeps broadcast `record`, received at
    /// `receivedAt`: its `lifetime` (8 hours), or its `apns-expiration` (counted from `now`)
    /// if sooner; nil when it keeps nothing (No Message Stored, or expiration 0).
    static func keptUntil(
        _ record: BroadcastRecord, storagePolicy: MessageStoragePolicy, receivedAt: DeviceInstant, lifetime: Duration, systemNow: DeviceInstant,
        now: DeviceInstant
    ) -> DeviceInstant? {
        guard storagePolicy == .mostRecentMessageStored, record.expiration != 0 else { return nil }
        let kept = receivedAt.advanced(by: lifetime)
        return min(kept, DeviceInstant.expiry(ofAPNsExpiration: record.expiration, systemNow: systemNow, deviceNow: now) ?? kept)
    }

    /// Broadcast `record`, recorded earlier (here or by another member), as the activities take
    /// it at `now`: kept by a channel of `storagePolicy` from when it was received.
    static func recordedMessage(
        _ record: BroadcastRecord, payload: LiveActivityPayload, storagePolicy: MessageStoragePolicy, lifetime: Duration, systemNow: DeviceInstant,
        now: DeviceInstant
    ) -> LiveActivityPolicy.Broadcast {
        LiveActivityPolicy.Broadcast(
            record, payload: payload,
            storedUntil: keptUntil(
                record, storagePolicy: storagePolicy, receivedAt: record.receivedAt, lifetime: lifetime, systemNow: systemNow, now: now))
    }

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
            kept.append(recordedMessage(record, payload: payload, storagePolicy: policy, lifetime: lifetime, systemNow: systemNow, now: now))
        }
        return kept
    }

    /// Makes what the store says each channel keeps what the channels keep here: a cluster
    /// member that joins again takes the broadcasts it missed while it was out.
    package func takeKeptMessages() async throws {
        guard let channels else { return }
        let (lifetime, now) = inspect { ($0.activities.settings.storedMessageLifetime, $1) }
        let latest = try await Self.keptMessages(in: store, channels: channels, lifetime: lifetime, now: now)
        modifyStateAndRunActions { recorder, now in recorder.takeMessages(latest, now: now) }
    }

    /// Fans broadcast `record`, which another member of the cluster accepted and recorded,
    /// out to this receiver's devices' activities; returns once that is committed.
    package func fanOut(memberBroadcast record: BroadcastRecord, storagePolicy: MessageStoragePolicy) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            broadcast(record, storagePolicy: storagePolicy, from: .member) { result in continuation.resume(with: result.mapError { $0 }) }
        }
    }

    /// One slice of broadcast `source` is committed: the next is stepped, or, after the
    /// last, the provider is answered.
    private func fanOutCommitted(
        _ source: String, _ result: Result<Void, any Error>, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) {
        guard case .success = result else {
            // Not all of it is recorded: 503, and the provider sends it again. Activities it
            // already reached take the update again then (an equal timestamp applies).
            modifyStateAndRunActions { recorder, _ in recorder.abandonBroadcast(source) }
            return completion(.failure(APNsRejection(.serviceUnavailable)))
        }
        guard inspect({ $0.activities.isFanningOut(source) }) else { return completion(.success(())) }
        modifyStateAndRunActions { recorder, now in
            recorder.continueBroadcast(source, now: now) { [self] result in fanOutCommitted(source, result, completion: completion) }
        }
    }

    /// The app starts a Live Activity (`Activity.request`): subscribed to `channel`, else with
    /// a new update token. Returns it once recorded; throws `LiveActivityIgnored.unknownChannel`
    /// for a channel the app does not have.
    package func startActivity(
        app: LiveActivityApp, attributesType: String, attributes: String, contentState: String, channel: ChannelID?
    ) async throws -> LiveActivity {
        let id = ActivityID.next()
        let subscription: LiveActivity.Subscription = channel.map { .channel($0) } ?? .token(newToken(inShardOf: app.device))
        let exists = channel.map { channels?.exists($0, bundleID: app.bundleID) ?? false } ?? true
        let reply = try await committing { recorder, now, completion in
            recorder.startActivity(
                id: id, app: app, attributesType: attributesType, attributes: attributes, contentState: contentState,
                subscription: subscription, channelExists: exists, now: now, completion: completion)
        }
        if case .activityRefused(let reason) = reply { throw reason }
        guard let activity = inspect({ $0.activities.activities[id] }) else { throw LiveActivityIgnored.unknownToken }
        return activity
    }

    /// A new token (an activity's update token, a reinstall's device token). In a cluster, one
    /// in the shard of `token` (the device's, or its push-to-start token, which is in the same
    /// shard), so the proxy routes pushes to it to the device's owner.
    func newToken(inShardOf token: String) -> String {
        var fresh = Self.newToken()
        guard let map = shardMap else { return fresh }
        let shard = map.shard(of: token)
        // Each try lands there with odds 1 in the shard count: 64 times as many tries miss with odds below e^-64.
        var tries = 1
        while map.shard(of: fresh) != shard, tries < map.count * 64 {
            fresh = Self.newToken()
            tries += 1
        }
        return fresh
    }

    /// A new token: 32 random bytes as hex, shaped as a device token.
    static func newToken() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
