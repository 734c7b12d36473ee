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
    /// (`interrupted`). A manual clock starts no earlier than the latest time recorded (a
    /// clustered one at that time: the cluster's one clock).
    /// With `shards` (clustered) it puts back no device: each shard's are put back when it is
    /// claimed (`adopt(shards:)`). Fetch handlers and system-clock timers run while `run()` does.
    ///
    /// Returns the runtime with the tokens the snapshot found unregistered (and when), read
    /// once with the rest, for the endpoint's registry to answer 410 from the first push.
    package static func open(
        store: PushStore, clock mode: DeviceClock.Mode, settings: WakeSettings, shutdownGrace: Duration = .seconds(30),
        handler: any FetchHandler = NoDataFetchHandler(), declarations: [String: AppDeclaration] = [:],
        liveActivities: LiveActivitySettings = LiveActivitySettings(), transfers transferSettings: TransferPolicy.Settings = .init(),
        channels: ChannelDirectory? = nil, shards: ShardMap? = nil, originTrust: OriginTrust = .system,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance, logger: Logger = Logger(label: "silentpushd.device")
    ) async throws -> (runtime: DeviceRuntime, unregistered: [(token: String, at: Int64)], registered: [(token: String, topics: [String])]) {
        let ids = try await store.lastIDs()
        let taskIDs = try await store.lastTaskIDs()
        var start = DeviceClock.systemNow
        if mode == .manual, let latest = try await store.latestDeviceTime() {
            // A manual clock resumes where it stood: real time that passed while the receiver
            // was down plays no timer. A cluster has one clock, the stored one: a member joins
            // at its time.
            start = DeviceInstant(millisecondsSinceEpoch: latest)
        }
        // Where it starts is stored, so a restart resumes here though nothing else was
        // recorded (a task submitted, a device changed) and no move stored the clock.
        if mode == .manual { try await store.write([.setManualClock(at: start.millisecondsSinceEpoch)]) }
        let clock = DeviceClock(mode, start: start)
        let now = clock.now
        // Clustered, no device is this receiver's until it claims its shard.
        let snapshot = shards == nil ? try await DeviceSnapshot.read(from: store, settings: settings, now: now) : DeviceSnapshot()
        var activities = LiveActivityPolicy(settings: liveActivities)
        for (topic, declaration) in declarations where declaration.frequentUpdates {
            activities.setFrequentUpdates(true, bundleID: topic)
        }
        // What each Most Recent Message Stored channel keeps outlives the restart, for the rest
        // of its lifetime (or to its apns-expiration).
        if let channels {
            for message in try await DeviceSnapshot.keptMessages(
                in: store, channels: channels, lifetime: liveActivities.storedMessageLifetime, now: now)
            {
                activities.restoreMessage(message, now: now)
            }
        }
        var recorder = DeviceRecorder(
            policy: DeviceRecorder.Policy(settings: settings, firstWakeID: ids.wake + 1, firstTaskRunID: taskIDs.run + 1),
            activities: activities, reloads: ReloadPolicy(settings: settings),
            transfers: TransferPolicy(settings: transferSettings), firstTaskRequestID: taskIDs.request + 1,
            shards: shards.map(DeviceRecorder.Shards.init), armsTimers: mode == .system)
        // The restart's repairs and what each restoring step decided, carried out as one step.
        let startup = recorder.adopt(snapshot, now: now)
        let resumed = snapshot.resumed
        let runtime = DeviceRuntime(
            store: store, clock: clock, settings: settings, shutdownGrace: shutdownGrace, handler: handler,
            metrics: DeviceMetrics(factory: metrics), recorder: recorder, nextPushID: ids.push + 1,
            nextTransferID: try await store.lastTransferID() + 1,
            transferClient: TransferClient(
                group: group, directory: store.transfersDirectory, requestTimeout: transferSettings.requestTimeout,
                resourceTimeout: transferSettings.resourceTimeout, trust: originTrust), declarations: declarations, resumed: resumed,
            channels: channels, logger: logger)
        // What the restore decided (repairs, expiries, wakes due now) is carried out now.
        runtime.modifyStateAndRunActions { [startup] _, _ in startup }
        let remedy = store.unwritableRemedy
        store.observeWritability { [logger, weak store, weak runtime] writable, error in
            // What was recorded known meanwhile may have gone with a batch that failed.
            runtime?.modifyStateAndRunActions { recorder, _ in recorder.storeWritabilityChanged() }
            if store?.wasAbandoned ?? true {
                return  // `DeviceStoreService` gave up on it as the receiver stopped, and said so
            } else if writable {
                logger.notice("the store takes writes again: pushes are accepted")
            } else if case .takenOver? = error as? PushStoreError {
                return  // `DeviceStoreService` says so, whichever failure came first, and stops the receiver
            } else {
                logger.error(
                    "the store cannot be written: pushes are answered 503 ServiceUnavailable until it can (\(remedy); no restart needed)",
                    metadata: [
                        "error": "\(error.map(PushStore.describe) ?? "-")"
                    ])
            }
        }
        return (runtime, snapshot.unregistered, snapshot.registered)
    }
}
