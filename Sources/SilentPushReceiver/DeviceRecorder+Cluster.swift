import SilentPushCore
import SilentPushStore

/// Devices put back from the store, and a clustered receiver's shards: it takes pushes only
/// for the devices of shards it owns, puts a shard's devices back when it claims it, and lets
/// them all go when its store session (which held the claims) ends.
extension DeviceRecorder {
    /// The shards of a cluster this receiver owns: pushes for devices of any other are refused.
    package struct Shards: Equatable, Sendable {
        /// How devices map to shards.
        package let map: ShardMap
        /// The shards owned, their devices put back.
        package private(set) var owned: Set<Int> = []
        /// How many times every shard was let go (a store session ended): a takeover read
        /// before the last of them is not put back.
        package private(set) var releases: UInt64 = 0

        package init(map: ShardMap) {
            self.map = map
        }

        /// Whether the device whose token is `token` belongs to an owned shard.
        package func owns(_ token: some StringProtocol) -> Bool {
            owned.contains(map.shard(of: token))
        }

        mutating func add(_ shards: Set<Int>) { owned.formUnion(shards) }

        mutating func removeAll() {
            owned.removeAll()
            releases &+= 1
        }
    }

    /// Whether pushes and changes for `device` are this recorder's to take.
    package func owns(_ device: String) -> Bool {
        shards?.owns(device) ?? true
    }

    /// Puts back the devices of `snapshot` as a restart does: their states and apps' last
    /// launches, the repairs of what a stopped process left open (wakes recorded `failed`,
    /// `interrupted`; task runs `interrupted`), each app's slot, reload pushes held, pending task
    /// requests, Live Activities, the last day's reloads and transfers not ended. What they
    /// decide now (expiries, wakes due) is among the actions. `shards` (clustered) become owned.
    package mutating func adopt(
        _ snapshot: DeviceSnapshot, shards: Set<Int> = [], releasesSeen: UInt64? = nil, now: DeviceInstant
    ) -> Actions {
        // Claimed under a store session that has ended since: not ours to put back.
        if let releasesSeen, let current = self.shards, current.releases != releasesSeen { return Actions() }
        var actions = Actions()
        if !shards.isEmpty {
            if case .reading(let reading, let arrived) = broadcastCatchUp {
                broadcastCatchUp = .reading(shards: reading.union(shards), arrived: arrived)
            } else {
                broadcastCatchUp = .reading(shards: shards, arrived: [])
            }
        }
        for (token, state) in snapshot.states {
            _ = policy.setDeviceState(state, for: DeviceKey(token), now: now)
            // The activities hold an offline device's pushes and broadcasts for its return.
            if state.network == .offline { record(activities.setOffline(device: token, now: now), into: &actions) }
        }
        for (app, at) in snapshot.lastOpened { _ = policy.setLastOpened(at, for: app, now: now) }
        for (app, at) in snapshot.launches { policy.restoreLaunch(of: app, at: at) }
        for (app, at) in snapshot.terminations { policy.restoreTermination(of: app, at: at, now: now) }
        // Ended in this step, so counted in this process's metrics as the records say.
        for wake in snapshot.unfinishedWakes {
            actions.changes.append(.finishWake(id: wake.id, finishedAt: min(now, wake.deadline).millisecondsSinceEpoch, result: .interrupted))
            actions.metrics.wakesEnded.append(.interrupted)
        }
        // A task run the previous process did not see end was interrupted with it; a
        // relaunch's request is pending again, so the app is relaunched with its files (unless
        // its handler had settled them).
        var relaunches: [TaskRequestRecord] = []
        for run in snapshot.unfinishedTaskRuns {
            actions.changes.append(
                .finishTaskRun(id: run.id, at: max(run.startedAt, min(now, run.deadline ?? now)).millisecondsSinceEpoch, outcome: .interrupted))
            actions.metrics.taskEnded(.interrupted)
            if run.kind == .urlSession, snapshot.relaunchesToRunAgain.contains(run.requestID) {
                actions.changes.append(.setTaskRequest(id: run.requestID, state: .pending, why: nil, at: nil))
                relaunches.append(
                    TaskRequestRecord(
                        deviceToken: run.deviceToken, topic: run.topic,
                        request: TaskRequest(id: run.requestID, identifier: run.identifier, kind: .urlSession), submittedAt: run.startedAt))
            }
        }
        for activity in snapshot.activities { activities.restore(activity, now: now) }
        activities.resumeWaits()
        for (target, times) in snapshot.reloadTimes { reloads.restore(reloads: times, of: target, now: now) }
        self.shards?.add(shards)
        for (key, app) in snapshot.apps {
            let pending = app.pending.map { push in
                let expiresAt = push.expiresAt.map { DeviceInstant(millisecondsSinceEpoch: $0) }
                // APNs's storage limit counts from the arrival of a push it held, not from the restart.
                return IncomingPush(
                    id: push.id, priority: APNsPriority(rawValue: push.priority) ?? .high,
                    expiresAt: push.heldAtAPNs
                        ? policy.heldExpiry(expiresAt, arrivedAt: DeviceInstant(millisecondsSinceEpoch: push.receivedAt)) : expiresAt)
            }
            actions.append(
                restore(
                    app: key, generation: app.generation, nextAllowed: app.nextAllowed, overran: app.overran, pending: pending,
                    coalesced: app.coalesced, now: now))
        }
        for push in snapshot.heldReloads { actions.append(restoreReload(push, now: now)) }
        // What Live Activities held back is not kept: each push says so, not pending for ever.
        for push in snapshot.heldActivityPushes {
            actions.changes.append(.setFate(push: push.id, fate: .dropped(.liveActivity(.receiverRestarted)), generation: nil))
            actions.metrics.dropped(.liveActivity(.receiverRestarted))
        }
        // What an activity waited for and no longer does (a push or a broadcast held for the
        // budget or its opportunity, a push APNs kept): its decisions say so, not `waiting`.
        for update in snapshot.waitingActivityUpdates.sorted(by: { ($0.at, $0.source) < ($1.at, $1.source) }) {
            guard let id = update.activityID, !activities.isWaiting(source: update.source, activityID: id) else { continue }
            actions.changes.append(
                .insertActivityUpdate(
                    LiveActivityUpdate(
                        source: update.source, activityID: id, outcome: .ignored(.receiverRestarted),
                        why: "the receiver restarted while it waited: what waited is not kept across a restart", at: now)))
        }
        for request in snapshot.taskRequests + relaunches { actions.append(restoreTask(request, now: now)) }
        // Transfers not ended start again (a running try resumes from its bytes kept), and a
        // session that ended without its relaunch asked for relaunches the app.
        actions.append(restoreTransfers(snapshot.transfers, keptParts: snapshot.keptParts, now: now))
        // What the activities put back should have done by now (gone stale, ended at 8 hours,
        // been dismissed) happens now, not at the next event.
        record(activities.advance(to: now), into: &actions)
        return finish(actions)
    }

    /// A broadcast that arrived while no receiver held the device of an activity just put
    /// back with its shard: no decision for that activity was recorded.
    package struct MissedBroadcast: Sendable {
        /// The activity it missed.
        package var activityID: String
        /// The broadcast, as the channel keeps it now (`storedUntil`).
        package var broadcast: LiveActivityPolicy.Broadcast

        package init(activityID: String, broadcast: LiveActivityPolicy.Broadcast) {
            self.activityID = activityID
            self.broadcast = broadcast
        }
    }

    /// The shards whose activities are still to catch up on the broadcasts they missed; empty
    /// when none is.
    package var shardsCatchingUp: Set<Int> {
        if case .reading(let shards, _) = broadcastCatchUp { shards } else { [] }
    }

    /// Broadcasts the activities of adopted shards missed (read once the adoption was
    /// committed) reach them now, in the order they arrived, each as its fan-out would have;
    /// one that arrived here since the adoption reached them by its fan-out and is skipped,
    /// and one older than such an arrival on its channel gives way to it (coalesced into it:
    /// the activity shows the later one). Activities of devices not owned (let go meanwhile)
    /// are left alone. Ends the reading: what was delivered is kept until another member's
    /// fan-out of it arrives (the next adoption forgets the rest).
    package mutating func catchUp(_ missed: [MissedBroadcast], now: DeviceInstant) -> Actions {
        guard case .reading(_, let arrived) = broadcastCatchUp else { return Actions() }
        broadcastCatchUp = .idle
        // Stopping, nothing reaches them here: the next owner finds them still missed.
        guard case .running = lifecycle else { return Actions() }
        var actions = Actions()
        var reached: [String: Set<String>] = [:]
        for entry in missed {
            guard let device = activities.activities[entry.activityID]?.app.device, owns(device) else { continue }
            // What reached this activity by its fan-out: arrivals while its shard was catching up.
            let shard = shards?.map.shard(of: device)
            let fannedOut = arrived.filter { arrival in shard.map { arrival.shards.contains($0) } ?? true }
            if fannedOut.contains(where: { $0.source == entry.broadcast.source }) { continue }
            let newer = fannedOut.last { $0.channel == entry.broadcast.channel && $0.receivedAt >= entry.broadcast.receivedAt }
            record(activities.catchUp(entry.broadcast, activityID: entry.activityID, after: newer?.source, now: now), into: &actions)
            reached[entry.broadcast.source, default: []].insert(entry.activityID)
        }
        if !reached.isEmpty { broadcastCatchUp = .delivered(reached: reached) }
        return finish(actions)
    }

    /// The activities the last catch-up already brought broadcast `source` to, forgotten now
    /// that its fan-out arrived: the fan-out skips them.
    mutating func caughtUp(_ source: String) -> Set<String> {
        guard case .delivered(var reached) = broadcastCatchUp, let activities = reached.removeValue(forKey: source) else { return [] }
        broadcastCatchUp = reached.isEmpty ? .idle : .delivered(reached: reached)
        return activities
    }

    /// The channels' latest broadcasts as the store has them (each with what its channel
    /// keeps) become what the channels keep here: a member that joins again takes what it
    /// missed while it was out.
    package mutating func takeMessages(_ latest: [LiveActivityPolicy.Broadcast], now: DeviceInstant) -> Actions {
        var actions = Actions()
        for message in latest { record(activities.takeMessage(message, now: now), into: &actions) }
        return finish(actions)
    }

    /// Lets every device of every shard go, records untouched: the store session that held
    /// the shards ended, so another receiver may own them and puts their devices back from
    /// the store. Running wakes and task runs are cancelled and transfers stopped, with
    /// nothing recorded (the next owner records them `interrupted`, as a restart does).
    package mutating func releaseShards(now: DeviceInstant) -> Actions {
        guard var owned = shards else { return Actions() }
        guard !owned.owned.isEmpty else {
            // Nothing to let go, but a takeover read under the session that ended is stale.
            owned.removeAll()
            shards = owned
            return Actions()
        }
        let releasing = owned
        // Another owner may forget one of these devices, and its `apps` rows: should its
        // shard come back, its apps are recorded again.
        knownApps.removeAll()
        var actions = Actions()
        apply(policy.forget(now: now) { releasing.owns($0.text) }, to: &actions)
        activities.forget { releasing.owns($0) }
        reloads.forget { releasing.owns($0) }
        // The next owner starts them again from its first byte: what they kept here goes.
        let forgotten = transfers.forget { releasing.owns($0) }
        actions.transferInterrupts += forgotten
        actions.transferDiscards += forgotten
        heldActivityPushes = heldActivityPushes.filter { !releasing.owns($0.value.app.device) }
        owned.removeAll()
        shards = owned
        broadcastCatchUp = .idle
        // Not ours to write any more: the next owner repairs what these would have.
        actions.changes.removeAll()
        return finish(actions)
    }

    /// Numbers everything from `first` on (when past the next ids): a clustered receiver's
    /// new block of ids, which no other receiver numbers from.
    package mutating func continueIDs(from first: UInt64) -> Actions {
        policy.continueIDs(from: first)
        nextTaskRequestID = max(nextTaskRequestID, first)
        return finish(Actions())
    }
}
