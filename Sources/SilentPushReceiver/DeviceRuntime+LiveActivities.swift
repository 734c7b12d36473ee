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
        let recorded = answeringOnceRecorded(push.apnsID, completion)
        var livePush = LiveActivityPolicy.Push(
            source: push.apnsID, token: push.deviceToken, bundleID: bundleID, priority: push.priority, payload: payload,
            newActivityID: ActivityID.next(), newToken: DeviceToken.random(inShardOf: push.deviceToken, in: shardMap))
        let systemNow = DeviceClock.systemNow
        // Looked up before the step: the channel table's lock is not taken under the runtime's.
        let inputChannelExists = payload.inputPushChannel.map { channels?.exists($0, bundleID: bundleID) ?? false } ?? true
        let reply = modifyStateAndRunActions { recorder, now in
            let (record, _) = PushRecord.received(push, id: id, neverWakes: nil, systemNow: systemNow, now: now)
            // Kept for an offline device as a background push is: to its expiry, at most APNs' storage limit.
            livePush.storedUntil = recorder.policy.heldExpiry(record.expiresAt.map(DeviceInstant.init(millisecondsSinceEpoch:)), arrivedAt: now)
            return recorder.receiveLiveActivity(
                record, push: livePush, inputChannelExists: inputChannelExists, now: now, completion: recorded)
        }
        _ = answeredAtOnce(reply, push, completion)
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
            let storedUntil = LiveActivityPolicy.Broadcast.keptUntil(
                record, storagePolicy: storagePolicy, receivedAt: now, lifetime: recorder.activities.settings.storedMessageLifetime,
                systemNow: systemNow, now: now)
            return recorder.broadcast(record, from: origin, payload: payload, storedUntil: storedUntil, now: now) { [self] result in
                fanOutCommitted(source, result, completion: completion)
            }
        }
        if reply == .stopping { completion(.failure(APNsRejection(.shutdown))) }
    }

    /// Makes what the store says each channel keeps what the channels keep here: a cluster
    /// member that joins again takes the broadcasts it missed while it was out.
    package func takeKeptMessages() async throws {
        guard let channels else { return }
        let (lifetime, now) = inspect { ($0.activities.settings.storedMessageLifetime, $1) }
        let latest = try await DeviceSnapshot.keptMessages(in: store, channels: channels, lifetime: lifetime, now: now)
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
        let subscription: LiveActivity.Subscription = channel.map { .channel($0) } ?? .token(DeviceToken.random(inShardOf: app.device, in: shardMap))
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

}
