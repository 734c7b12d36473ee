import SilentPushCore
import SilentPushStore

/// A clustered receiver's devices: only those of the shards it owns, put back from the store
/// when it claims a shard and let go when the store session that held its claims ends.
extension DeviceRuntime {
    /// Whether pushes to `deviceToken`'s device are this receiver's to take.
    package func owns(deviceToken: Substring) -> Bool {
        guard clustered else { return true }
        return inspect { $0.shards?.owns(deviceToken) ?? true }
    }

    /// Whether `device` is this receiver's (always, unless clustered).
    package func owns(device: String) -> Bool {
        owns(deviceToken: Substring(device))
    }

    /// How devices map to shards; nil: not clustered.
    package var shardMap: ShardMap? {
        inspect { $0.shards?.map }
    }

    /// The shards this receiver owns, their devices put back; nil: not clustered.
    package var ownedShards: Set<Int>? {
        inspect { $0.shards?.owned }
    }

    /// Puts back the devices of `shards` (just claimed) from the store, as a restart does,
    /// and takes their pushes from then on; returns what was put back. `releasesSeen`
    /// (`shardReleases` when the claim was made): if every shard was let go since (the store
    /// session that held the claim ended), nothing is put back.
    @discardableResult
    package func adopt(shards: Set<Int>, releasesSeen: UInt64? = nil) async throws -> DeviceSnapshot {
        guard let map = shardMap, !shards.isEmpty else { return DeviceSnapshot() }
        let snapshot = try await DeviceSnapshot.read(from: store, settings: settings, now: inspect { $1 }) { shards.contains(map.shard(of: $0)) }
        modifyStateAndRunActions { recorder, now in recorder.adopt(snapshot, shards: shards, releasesSeen: releasesSeen, now: now) }
        await catchUpBroadcasts(of: snapshot.activities)
        return snapshot
    }

    /// Broadcasts that arrived while no receiver held the devices of `activities` (just put
    /// back) reach them now. Read after the devices were put back: a broadcast recorded
    /// later reaches them by its fan-out here, so none falls between the two. (One recorded
    /// meanwhile may reach an activity both ways: it takes the same update again, as when a
    /// provider sends a broadcast again.)
    private func catchUpBroadcasts(of activities: [LiveActivity]) async {
        guard let channels else { return }
        let listening = activities.filter { $0.channel != nil && !$0.state.isOver }
        guard !listening.isEmpty else { return }
        let missed: [(activityID: String, broadcast: BroadcastRecord)]
        do {
            missed = try await store.missedBroadcasts(of: listening, environment: channels.environment)
        } catch {
            logger.warning(
                "cannot read the broadcasts the Live Activities of the shards claimed missed while no receiver held them: they miss them",
                metadata: ["error": "\(error)"])
            return
        }
        guard !missed.isEmpty else { return }
        // Looked up before the step: the channel table's lock is not taken under the runtime's.
        let entries = missed.compactMap { entry -> (String, BroadcastRecord, LiveActivityPayload, MessageStoragePolicy)? in
            guard case .success(let payload) = LiveActivityPayload.parse(entry.broadcast.payload) else { return nil }
            let policy = (try? channels.channel(entry.broadcast.channelID, bundleID: entry.broadcast.bundleID))?.configuration.storagePolicy
            return (entry.activityID, entry.broadcast, payload, policy ?? .noMessageStored)
        }
        let systemNow = DeviceClock.systemNow
        modifyStateAndRunActions { recorder, now in
            let lifetime = recorder.activities.settings.storedMessageLifetime
            return recorder.catchUp(
                entries.map { activityID, record, payload, policy in
                    DeviceRecorder.MissedBroadcast(
                        activityID: activityID,
                        broadcast: LiveActivityPolicy.Broadcast(
                            record, payload: payload,
                            storedUntil: Self.keptUntil(
                                record, storagePolicy: policy, receivedAt: record.receivedAt, lifetime: lifetime, systemNow: systemNow, now: now)))
                }, now: now)
        }
        logger.notice(
            "Live Activities of the shards claimed took the broadcasts they missed while no receiver held them",
            metadata: ["broadcasts": "\(Set(missed.map(\.broadcast.id)).count)", "activities": "\(Set(missed.map(\.activityID)).count)"])
    }

    /// How many times every shard was let go: what a takeover notes before it claims.
    package var shardReleases: UInt64? {
        inspect { $0.shards?.releases }
    }

    /// Lets every shard's devices go, their records untouched: the claims ended with the
    /// store session that held them.
    package func releaseShards() {
        modifyStateAndRunActions { recorder, now in recorder.releaseShards(now: now) }
    }

    /// Numbers pushes, wakes, task requests and runs, transfers and broadcasts from `first`
    /// on: a block of ids the cluster gave this receiver alone.
    package func continueIDs(from first: UInt64) {
        nextPushID.raise(to: first)
        nextTransferID.raise(to: first)
        channels?.continueIDs(from: first)
        modifyStateAndRunActions { recorder, _ in recorder.continueIDs(from: first) }
    }
}
