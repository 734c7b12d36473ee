import SilentPushCore
import SilentPushStore

/// What the store holds of some devices' state, read back as a restart does: their states
/// and unregistered tokens,
/// apps' last launches, wakes and task runs a stopped process left open, each app's slot
/// (generation, minimum interval, pending push), pending task requests, Live Activities, the
/// last day's reloads, reload pushes held, and transfers not ended.
///
/// A receiver reads one of every device when it opens; a clustered receiver reads one of
/// the devices of each shard it claims (`DeviceRecorder.adopt`), so taking over a shard
/// puts its devices back exactly as a restart would.
package struct DeviceSnapshot: Sendable {
    /// Device states other than the default.
    package var states: [(token: String, state: DeviceState)] = []
    /// Tokens the app gave up, with when (ms since 1970): they answer 410 `Unregistered`.
    package var unregistered: [(token: String, at: Int64)] = []
    /// Tokens registered at run time, with their topics (none: any): registered again.
    package var registered: [(token: String, topics: [String])] = []
    package var lastOpened: [(app: DeviceRecorder.App, at: DeviceInstant)] = []
    /// Background launches in the last day, oldest first: what each device's budget counts.
    package var launches: [(app: DeviceRecorder.App, at: DeviceInstant)] = []
    /// Each app's last task run the system terminated within the termination penalty: its
    /// task launches stay deferred.
    package var terminations: [(app: DeviceRecorder.App, at: DeviceInstant)] = []
    /// Fetch wakes still running when the process that ran them stopped.
    package var unfinishedWakes: [WakeRecord] = []
    package var unfinishedTaskRuns: [TaskRunRecord] = []
    /// The relaunch requests of those runs whose handler had not settled a file: run again.
    package var relaunchesToRunAgain: Set<UInt64> = []
    /// Each app's slot: the minimum interval from its last wake, its generation, its pending
    /// push and how many pushes it replaced ride its wake.
    package var apps:
        [DeviceRecorder.App: (nextAllowed: DeviceInstant?, overran: Bool, generation: UInt32, pending: PushRecord?, coalesced: UInt32)] = [:]
    /// Widget and control pushes an extension held.
    package var heldReloads: [ReloadPolicy.Push] = []
    /// Live Activity pushes that waited (for budget, their opportunity, or an offline device):
    /// not kept across a restart, each ends `dropped`.
    package var heldActivityPushes: [PushRecord] = []
    /// Live Activity updates whose last decision was `waiting`.
    package var waitingActivityUpdates: [LiveActivityUpdate] = []
    package var taskRequests: [TaskRequestRecord] = []
    package var activities: [LiveActivity] = []
    /// Reload times in the last day, by extension.
    package var reloadTimes: [ReloadPolicy.Target: [DeviceInstant]] = [:]
    package var transfers: [TransferRecord] = []
    /// The bytes on disk of the part of each download among `transfers` not ended (0: none).
    package var keptParts: [UInt64: Int64] = [:]

    /// Nothing: what a clustered receiver starts from.
    package init() {}

    /// The background launches of the last day before `now` the store has, oldest first (of
    /// `device` only, when given): what a device's budget counts, at a restart and when a
    /// change gives it one.
    package static func launches(
        in store: PushStore, before now: DeviceInstant, device: String? = nil
    ) async throws -> [(app: DeviceRecorder.App, at: DeviceInstant)] {
        try await store.launches(since: now.advanced(by: .zero - WakeSettings.budgetWindow).millisecondsSinceEpoch, device: device).map {
            (DeviceRecorder.App(device: $0.deviceToken, topic: $0.topic), DeviceInstant(millisecondsSinceEpoch: $0.startedAt))
        }
    }

    /// Reads the state of the devices `includes` selects, as of `now`.
    package static func read(
        from store: PushStore, settings: WakeSettings, now: DeviceInstant, includes: @Sendable (String) -> Bool = { _ in true }
    ) async throws -> DeviceSnapshot {
        var snapshot = DeviceSnapshot()
        for (token, device) in try await store.deviceRecords() where includes(token) {
            if let topics = device.registeredTopics { snapshot.registered.append((token, topics)) }
            if device.state != DeviceState() { snapshot.states.append((token, device.state)) }
            if let at = device.unregisteredAt { snapshot.unregistered.append((token, at)) }
        }
        for app in try await store.appUsage() where includes(app.deviceToken) {
            snapshot.lastOpened.append(
                (DeviceRecorder.App(device: app.deviceToken, topic: app.topic), DeviceInstant(millisecondsSinceEpoch: app.lastOpenedAt)))
        }
        snapshot.unfinishedWakes = try await store.unfinishedWakes().filter { includes($0.deviceToken) }
        snapshot.unfinishedTaskRuns = try await store.unfinishedTaskRuns().filter { includes($0.deviceToken) }
        // A relaunch is run again unless its handler had returned: then it had settled its
        // files, and a fate of one says so (a relaunch with no file to settle runs again).
        for run in snapshot.unfinishedTaskRuns where run.kind == .urlSession {
            let transfers = try await store.transfers(relaunchRequestID: run.requestID, limit: TransferPolicy.Settings.maximumCap)
            if !transfers.contains(where: { $0.fileFate != nil }) { snapshot.relaunchesToRunAgain.insert(run.requestID) }
        }
        snapshot.launches = try await launches(in: store, before: now).filter { includes($0.app.deviceToken) }
        if settings.taskTerminationPenalty > .zero {
            let since = now.advanced(by: .zero - settings.taskTerminationPenalty).millisecondsSinceEpoch
            for run in try await store.lastTerminations(since: since) where includes(run.deviceToken) {
                snapshot.terminations.append(
                    (DeviceRecorder.App(device: run.deviceToken, topic: run.topic), DeviceInstant(millisecondsSinceEpoch: run.finishedAt)))
            }
        }
        // Each app's interval runs from its later launch, its last wake or its last refresh run
        // (doubled after a wake that overran, as `WakePolicy` does); generations from its wakes.
        var lastLaunch: [DeviceRecorder.App: (at: DeviceInstant, overran: Bool, generation: UInt32)] = [:]
        for wake in try await store.lastWakes() where includes(wake.deviceToken) {
            lastLaunch[DeviceRecorder.App(device: wake.deviceToken, topic: wake.topic)] = (
                DeviceInstant(millisecondsSinceEpoch: wake.startedAt), wake.overran, wake.generation &+ 1
            )
        }
        for run in try await store.lastRefreshRuns() where includes(run.deviceToken) {
            let app = DeviceRecorder.App(device: run.deviceToken, topic: run.topic)
            let started = DeviceInstant(millisecondsSinceEpoch: run.startedAt)
            if let wake = lastLaunch[app], wake.at >= started { continue }
            lastLaunch[app] = (started, false, lastLaunch[app]?.generation ?? 0)
        }
        for (app, launch) in lastLaunch {
            snapshot.apps[app] = (launch.at.advanced(by: settings.interval(afterOverrun: launch.overran)), launch.overran, launch.generation, nil, 0)
        }
        // Each push waiting to ride another's wake, and the push it replaced in turn.
        var coalesced: [UInt64: UInt64] = [:]
        var waiting = Set<UInt64>()
        for push in try await store.coalescedWaiting() {
            waiting.insert(push.id)
            if let replaced = push.replaced { coalesced[push.id] = replaced }
        }
        for push in try await store.pendingPushes() where includes(push.deviceToken) {
            // A Live Activity push an activity held waits in no app slot, nor does a widget
            // or control push its extension held.
            guard push.pushType != APNsPushType.liveactivity.rawValue else {
                snapshot.heldActivityPushes.append(push)
                continue
            }
            if let type = APNsPushType(rawValue: push.pushType), WakeKind(reloading: type) != nil {
                snapshot.heldReloads.append(
                    ReloadPolicy.Push(
                        id: push.id, target: ReloadPolicy.Target(device: push.deviceToken, topic: push.topic),
                        expiresAt: push.expiresAt.map(DeviceInstant.init(millisecondsSinceEpoch:)),
                        receivedAt: DeviceInstant(millisecondsSinceEpoch: push.receivedAt)))
                continue
            }
            let key = DeviceRecorder.App(device: push.deviceToken, topic: push.topic)
            var app = snapshot.apps[key] ?? (nil, false, 0, nil, 0)
            app.pending = push
            // Back along the chain of pushes it replaced, each waiting to ride its wake.
            var replaced = push.replaced
            while let id = replaced, waiting.contains(id), app.coalesced < UInt32(clamping: waiting.count) {
                app.coalesced += 1
                replaced = coalesced[id]
            }
            if let generation = push.generation { app.generation = generation }
            snapshot.apps[key] = app
        }
        snapshot.taskRequests = try await store.pendingTaskRequests().filter { includes($0.deviceToken) }
        snapshot.activities = try await store.activities().filter { includes($0.app.device) }
        // The last decision for each of these activities' updates, where it says `waiting`.
        let ids = Set(snapshot.activities.map(\.id))
        snapshot.waitingActivityUpdates = try await store.lastWaitingActivityUpdates().filter { $0.activityID.map(ids.contains) ?? false }
        for reload in try await store.reloads(since: now.advanced(by: .zero - WakeSettings.budgetWindow).millisecondsSinceEpoch)
        where includes(reload.deviceToken) {
            snapshot.reloadTimes[ReloadPolicy.Target(device: reload.deviceToken, topic: reload.topic), default: []].append(
                DeviceInstant(millisecondsSinceEpoch: reload.startedAt))
        }
        snapshot.transfers = try await store.openTransfers().filter { includes($0.deviceToken) }
        // A receiver that ended without a stop (kill -9) recorded nothing of a running try's
        // part: what is on disk is what the next try resumes from.
        for transfer in snapshot.transfers where transfer.finishedAt == nil && transfer.fromFile == nil {
            snapshot.keptParts[transfer.id] = TransferClient.partSize(of: transfer.id, in: store.transfersDirectory) ?? 0
        }
        return snapshot
    }

    /// What a receiver that puts this back carries on with.
    var resumed: ResumedState {
        var resumed = ResumedState()
        resumed.devices = Set(states.map(\.token)).union(apps.keys.map(\.deviceToken)).union(activities.map(\.app.device)).count
        resumed.pendingPushes = apps.values.count { $0.pending != nil } + heldReloads.count
        resumed.taskRequests = taskRequests.count
        resumed.interruptedWakes = unfinishedWakes.count
        resumed.transfers = transfers.count { $0.finishedAt == nil }
        resumed.liveActivities = activities.count { if case .dismissed = $0.state { false } else { true } }
        resumed.droppedActivityPushes = heldActivityPushes.count
        return resumed
    }
}
