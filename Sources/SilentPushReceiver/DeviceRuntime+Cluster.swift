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
    /// and takes their pushes from then on; then the broadcasts their Live Activities missed
    /// while no receiver held them reach them. Returns what was put back. `releasesSeen`
    /// (`shardReleases` when the claim was made): if every shard was let go since (the store
    /// session that held the claim ended), nothing is put back.
    @discardableResult
    package func adopt(shards: Set<Int>, releasesSeen: UInt64? = nil) async throws -> DeviceSnapshot {
        guard let map = shardMap, !shards.isEmpty else { return DeviceSnapshot() }
        let snapshot = try await DeviceSnapshot.read(from: store, settings: settings, now: inspect { $1 }) { shards.contains(map.shard(of: $0)) }
        // Committed before the missed broadcasts are read: one this receiver took before the
        // step (fanned out without these devices) is then in the store.
        do {
            try await committing { recorder, now, completion in
                var actions = recorder.adopt(snapshot, shards: shards, releasesSeen: releasesSeen, now: now)
                actions.completion = completion
                return actions
            }
        } catch PushStoreError.sessionEnded {
            // The catch-up ends: the recorder stops noting the broadcasts it fans out.
            modifyStateAndRunActions { recorder, now in recorder.catchUp([], now: now) }
            throw PushStoreError.sessionEnded
        } catch {
            // The devices are back all the same, as when no one waited for this commit.
            logger.error("cannot record a device change", metadata: ["error": "\(PushStore.describe(error))"])
        }
        await catchUpMissedBroadcasts()
        return snapshot
    }

    /// The Live Activities of the shards adopted and not yet caught up take the broadcasts
    /// they missed while no receiver held their devices. A read that fails leaves them to the
    /// next claim, which tries again (`ClusterMembership.tick`); adoptions and these reads run
    /// from that tick alone, one at a time.
    package func catchUpMissedBroadcasts() async {
        // A takeover that was stale (every shard let go since its claim) put nothing back.
        let shards = inspect { $0.shardsCatchingUp }
        guard !shards.isEmpty, let map = shardMap else { return }
        let missed: [DeviceRecorder.MissedBroadcast]
        do {
            let adopted = inspect { recorder, _ in recorder.activities.activities.values.filter { shards.contains(map.shard(of: $0.app.device)) } }
            missed = try await missedBroadcasts(of: adopted)
        } catch {
            logger.warning(
                "cannot read the broadcasts the Live Activities of shards \(shards.sorted().map(String.init).joined(separator: ",")) missed while no receiver held them: tried again at the next claim",
                metadata: ["error": "\(PushStore.describe(error))"])
            return
        }
        modifyStateAndRunActions { recorder, now in recorder.catchUp(missed, now: now) }
        if !missed.isEmpty {
            logger.notice(
                "Live Activities of the shards claimed took the broadcasts they missed while no receiver held them",
                metadata: [
                    "broadcasts": "\(Set(missed.map(\.broadcast.source)).count)", "activities": "\(Set(missed.map(\.activityID)).count)",
                ])
        }
    }

    /// The broadcasts `activities` (just put back) missed while no receiver held their
    /// devices, each as its channel keeps it now.
    private func missedBroadcasts(of activities: [LiveActivity]) async throws -> [DeviceRecorder.MissedBroadcast] {
        guard let channels else { return [] }
        let listening = activities.filter { $0.channel != nil && !$0.state.isOver }
        guard !listening.isEmpty else { return [] }
        let lifetime = inspect { $0.activities.settings.storedMessageLifetime }
        let (systemNow, now) = (DeviceClock.systemNow, inspect { $1 })
        var messages: [UInt64: LiveActivityPolicy.Broadcast?] = [:]
        return try await store.missedBroadcasts(of: listening, environment: channels.environment).compactMap { entry in
            // Each broadcast is parsed once, however many activities missed it.
            let record = entry.broadcast
            if messages.index(forKey: record.id) == nil {
                var message: LiveActivityPolicy.Broadcast?
                if case .success(let payload) = LiveActivityPayload.parse(record.payload) {
                    let policy = (try? channels.channel(record.channelID, bundleID: record.bundleID))?.configuration.storagePolicy ?? .noMessageStored
                    message = LiveActivityPolicy.Broadcast(
                        recorded: record, payload: payload, storagePolicy: policy, lifetime: lifetime, systemNow: systemNow, now: now)
                }
                messages.updateValue(message, forKey: record.id)
            }
            guard let message = messages[record.id] ?? nil else { return nil }
            return DeviceRecorder.MissedBroadcast(activityID: entry.activityID, broadcast: message)
        }
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
