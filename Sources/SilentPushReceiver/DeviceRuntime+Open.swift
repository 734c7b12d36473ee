import CoreMetrics
import Logging
import NIOCore
import NIOPosix
import SilentPushCore
import SilentPushStore

extension DeviceRuntime {
    /// Opens the device side on `store`, putting back what a previous run left: device
    /// states, each app's pending push, slot generation and minimum interval, pending task
    /// requests, Live Activities, the last day's widget and control reloads and the pushes
    /// their extensions hold, and ids that number on. Wakes that were running when that run stopped are recorded `failed`
    /// (`interrupted`). A manual clock starts no earlier than the latest time recorded.
    /// Fetch handlers and system-clock timers run while `run()` does.
    package static func open(
        store: PushStore, clock mode: DeviceClock.Mode, settings: WakeSettings, shutdownGrace: Duration = .seconds(30),
        handler: any FetchHandler = NoDataFetchHandler(), declarations: [String: AppDeclaration] = [:],
        liveActivities: LiveActivitySettings = LiveActivitySettings(), transfers transferSettings: TransferPolicy.Settings = .init(),
        channels: ChannelDirectory? = nil, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance, logger: Logger = Logger(label: "silentpushd.device")
    ) async throws -> DeviceRuntime {
        let ids = try await store.lastIDs()
        let taskIDs = try await store.lastTaskIDs()
        var start = DeviceClock.systemNow
        if mode == .manual, let latest = try await store.latestDeviceTime() {
            start = max(start, DeviceInstant(millisecondsSinceEpoch: latest))
        }
        let clock = DeviceClock(mode, start: start)
        let now = clock.now
        var policy = DeviceRecorder.Policy(settings: settings, firstWakeID: ids.wake + 1, firstTaskRunID: taskIDs.run + 1)
        var changes: [StoreChange] = []
        var resumed = ResumedState()
        var devices = Set<String>()

        for (token, device) in try await store.deviceRecords() where device.state != DeviceState() {
            devices.insert(token)
            _ = policy.setDeviceState(device.state, for: token, now: now)
        }
        for app in try await store.appUsage() {
            _ = policy.setLastOpened(
                DeviceInstant(millisecondsSinceEpoch: app.lastOpenedAt), for: AppKey(device: app.deviceToken, topic: app.topic), now: now)
        }
        for wake in try await store.unfinishedWakes() {
            resumed.interruptedWakes += 1
            changes.append(
                .finishWake(
                    id: wake.id, finishedAt: min(now, wake.deadline).millisecondsSinceEpoch, result: .interrupted))
        }
        // A task run the previous process did not see end ended with it, as on a device that shut down.
        for run in try await store.unfinishedTaskRuns() {
            changes.append(
                .finishTaskRun(id: run.id, at: max(run.startedAt, min(now, run.deadline ?? now)).millisecondsSinceEpoch, outcome: .terminated))
        }

        var apps: [AppKey: (nextAllowed: DeviceInstant?, generation: UInt32, pending: PushRecord?)] = [:]
        for wake in try await store.lastWakes() {
            let started = DeviceInstant(millisecondsSinceEpoch: wake.startedAt)
            apps[AppKey(device: wake.deviceToken, topic: wake.topic)] = (started.advanced(by: settings.minimumInterval), wake.generation &+ 1, nil)
        }
        // A Live Activity push an activity held waits in no app slot, nor does a widget or
        // control push its extension held.
        var heldReloads: [ReloadPolicy.Push] = []
        for push in try await store.pendingPushes() where push.pushType != APNsPushType.liveactivity.rawValue {
            if let type = APNsPushType(rawValue: push.pushType), WakeKind(reloading: type) != nil {
                heldReloads.append(
                    ReloadPolicy.Push(
                        id: push.id, target: ReloadPolicy.Target(device: push.deviceToken, topic: push.topic),
                        expiresAt: push.expiresAt.map(DeviceInstant.init(millisecondsSinceEpoch:))))
                continue
            }
            let key = AppKey(device: push.deviceToken, topic: push.topic)
            var app = apps[key] ?? (nil, 0, nil)
            app.pending = push
            if let generation = push.generation { app.generation = generation }
            apps[key] = app
        }

        devices.formUnion(apps.keys.map(\.device))
        resumed.devices = devices.count
        resumed.pendingPushes = apps.values.count { $0.pending != nil }

        var activities = LiveActivityPolicy(settings: liveActivities)
        for (topic, declaration) in declarations where declaration.frequentUpdates {
            activities.setFrequentUpdates(true, bundleID: topic)
        }
        for activity in try await store.activities() { activities.restore(activity, now: now) }
        var reloads = ReloadPolicy(dailyBudget: settings.effectiveReloadBudget)
        var reloadTimes: [ReloadPolicy.Target: [DeviceInstant]] = [:]
        for reload in try await store.reloads(since: now.advanced(by: .seconds(-86_400)).millisecondsSinceEpoch) {
            reloadTimes[ReloadPolicy.Target(device: reload.deviceToken, topic: reload.topic), default: []].append(
                DeviceInstant(millisecondsSinceEpoch: reload.startedAt))
        }
        for (target, times) in reloadTimes { reloads.restore(reloads: times, of: target, now: now) }
        var recorder = DeviceRecorder(
            policy: policy, activities: activities, reloads: reloads, transfers: TransferPolicy(settings: transferSettings),
            firstTaskRequestID: taskIDs.request + 1, armsTimers: mode == .system)
        // The restart's repairs and what each restoring step decided, carried out as one step.
        var startup = DeviceRecorder.Actions()
        startup.changes = changes
        for (key, app) in apps {
            let pending = app.pending.map { push in
                IncomingPush(
                    id: push.id, priority: APNsPriority(rawValue: push.priority) ?? .high,
                    expiresAt: push.expiresAt.map { DeviceInstant(millisecondsSinceEpoch: $0) })
            }
            startup.append(recorder.restore(app: key, generation: app.generation, nextAllowed: app.nextAllowed, pending: pending, now: now))
        }
        for push in heldReloads {
            resumed.pendingPushes += 1
            startup.append(recorder.restoreReload(push, now: now))
        }
        for request in try await store.pendingTaskRequests() {
            resumed.taskRequests += 1
            startup.append(recorder.restoreTask(request, now: now))
        }
        // Transfers not ended start again (a running try resumes from its bytes kept), and a
        // session that ended without its relaunch asked for relaunches the app.
        let transfers = try await store.openTransfers()
        resumed.transfers = transfers.count { $0.finishedAt == nil }
        startup.append(recorder.restoreTransfers(transfers, now: now))
        let runtime = DeviceRuntime(
            store: store, clock: clock, settings: settings, shutdownGrace: shutdownGrace, handler: handler,
            metrics: DeviceMetrics(factory: metrics), recorder: recorder, nextPushID: ids.push + 1,
            nextTransferID: try await store.lastTransferID() + 1,
            transferClient: TransferClient(group: group, directory: store.transfersDirectory), declarations: declarations, resumed: resumed,
            channels: channels, logger: logger)
        // What the restore decided (repairs, expiries, wakes due now) is carried out now.
        runtime.modifyStateAndRunActions { [startup] _, _ in startup }
        store.observeWritability { [logger] writable, error in
            if writable {
                logger.notice("the store takes writes again: pushes are accepted")
            } else {
                logger.error(
                    "the store cannot be written: pushes are answered 503 ServiceUnavailable until it can (free disk space or make it writable; no restart needed)",
                    metadata: [
                        "error": "\(error.map { "\($0)" } ?? "-")"
                    ])
            }
        }
        return runtime
    }
}
