import SilentPushCore
import SilentPushStore

/// What a test, the admin API or `pushsend` changes and asks on the device side: the manual
/// clock, device state, apps, background tasks, reset and reinstall, and the records. Every
/// change is one event of the device side's executor (`DeviceRuntime`), which decides and
/// records it; this type only turns a request into that event and waits for its commit.
///
/// `Receiver.device` is one; the admin API serves another over the same executor.
public struct DeviceControl: Sendable {
    /// The executor every change steps.
    let runtime: DeviceRuntime
    /// The APNs endpoint, whose registry reset and reinstall change with the device.
    let endpoint: APNsEndpoint

    init(runtime: DeviceRuntime, endpoint: APNsEndpoint) {
        self.runtime = runtime
        self.endpoint = endpoint
    }

    /// The device clock.
    public var clock: DeviceClock { runtime.clock }

    /// Intervals, deadline, fetch cap.
    public var settings: WakeSettings { runtime.settings }

    /// What the store held at start-up and the device side carries on with.
    public var resumed: ResumedState { runtime.resumed }

    /// The durable record, for the admin API's export and health.
    package var store: PushStore { runtime.store }

    /// Throws `AppNotInstalled` when `device`'s token is unregistered: the app was deleted,
    /// and nothing of it runs to ask the system for anything.
    func requireInstalled(_ device: String) throws(AppNotInstalled) {
        if case .unregistered? = endpoint.withDevices({ $0.entry(device)?.state }) { throw AppNotInstalled(deviceToken: device) }
    }

    /// Which apps may submit which background tasks, by topic.
    var declarations: [String: AppDeclaration] { runtime.declarations }

    /// How many steps have changed the record so far (what the timeline's event stream watches).
    var changes: UInt64 { runtime.changes }

    // MARK: - Devices and apps

    /// Sets `device`'s whole state: dropping or releasing the pushes waiting in its apps'
    /// slots; a force-quit also kills what its apps run (recorded `killed`). Returns once the
    /// change is committed.
    public func setDeviceState(_ new: DeviceState, for device: String) async throws {
        let device = Self.stored(device)
        // The channels of the starts APNs kept for it and of its activities' kept messages,
        // looked up before the step (the channel table's lock is not taken under the runtime's):
        // back online, each start subscribes, and a deleted channel gives nothing.
        var reply = DeviceRecorder.Reply.channelsChanged
        while reply == .channelsChanged || reply == .launchesChanged {
            // Looked up again if a start was kept for it in between.
            let lookedUp = Set(runtime.inspect { $0.activities.channelsToLookUp(device: device) })
            let existing = lookedUp.filter { runtime.channels?.exists($0.channel, bundleID: $0.bundleID) ?? false }
            // A budget the device had not counts the launches of the last day, read from the
            // store once what is queued is committed, as a restart reads them.
            let (old, profile, now) = runtime.inspect { ($0.policy.deviceState(DeviceKey(device)), $0.policy.settings.dailyBudget, $1) }
            var launches: (read: [(app: DeviceRecorder.App, at: DeviceInstant)], readAt: DeviceInstant)?
            if DeviceRecorder.budgetCounts(from: old, to: new, profile: profile) {
                try await store.flush()
                launches = (try await DeviceSnapshot.launches(in: store, before: now, device: device), now)
            }
            reply = try await committingUnlessStopping { recorder, now, completion in
                recorder.setDeviceState(new, for: device, startChannels: (lookedUp, existing), launches: launches, now: now, completion: completion)
            }
        }
    }

    /// The user opened `topic`'s app on `device` at `opened` (nil: now). An app not opened
    /// for a while is launched less, then not at all (`WakeSettings.appUsageThreshold`).
    /// Returns once the change is committed.
    public func setLastOpened(_ opened: DeviceInstant? = nil, device: String, topic: String) async throws {
        let device = Self.stored(device)
        try await committingUnlessStopping { recorder, now, completion in
            recorder.setLastOpened(opened ?? now, for: DeviceRuntime.AppKey(device: device, topic: topic), now: now, completion: completion)
        }
    }

    /// Forgets when the app was last opened: its usage is unknown, which counts as in use.
    public func clearLastOpened(device: String, topic: String) async throws {
        let device = Self.stored(device)
        try await committingUnlessStopping { recorder, now, completion in
            recorder.setLastOpened(nil, for: DeviceRuntime.AppKey(device: device, topic: topic), now: now, completion: completion)
        }
    }

    /// Whether the device side is shutting down (SIGTERM's drain): it takes no change then.
    package var isStopping: Bool {
        runtime.inspect { $0.lifecycle == .stopping }
    }

    /// `DeviceRuntime.committing` for an event the recorder refuses while stopping (it replies
    /// `stopping`, changing nothing): that reply throws `DeviceStopping`.
    @discardableResult
    private func committingUnlessStopping(
        _ event: @escaping (inout DeviceRecorder, DeviceInstant, @escaping PushStore.Completion) -> DeviceRecorder.Actions
    ) async throws -> DeviceRecorder.Reply {
        let reply = try await runtime.committing(event)
        if reply == .stopping { throw DeviceStopping() }
        return reply
    }

    /// When the user last opened `topic`'s app on `device`, if known.
    public func lastOpened(device: String, topic: String) -> DeviceInstant? {
        let device = Self.stored(device)
        return runtime.inspect { $0.policy.lastOpened(DeviceRuntime.AppKey(device: device, topic: topic)) }
    }

    /// Restarts `device`: what its apps run is killed (recorded `killed`), a force-quit ends,
    /// and no background launch starts during the warm-up (`--reboot-warmup`). Returns the
    /// warm-up's end, once what it changed is committed.
    @discardableResult
    public func reboot(_ device: String) async throws -> DeviceInstant {
        let device = Self.stored(device)
        let reply = try await committingUnlessStopping { recorder, now, completion in
            recorder.reboot(device, now: now, completion: completion)
        }
        guard case .warmingUp(let end) = reply else { preconditionFailure("a reboot replies with its warm-up's end, not \(reply)") }
        return end
    }

    /// Forgets `device` (nil: every device): what waits for it, its state, its registration
    /// and every record of it; running wakes and task runs are stopped. Returns once committed.
    public func forget(device: String?) async throws {
        try await forget(device: device, records: .deleted)
    }

    /// Forgets `device` (nil: every device); its records are deleted unless `records` says
    /// another member of the cluster deleted them.
    package func forget(device: String?, records: DeviceRecorder.ForgottenRecords) async throws {
        let device = device.map(Self.stored)
        // The files its records name go with them: done transfers no relaunch has settled
        // (the policy no longer holds them), and the validators' cache; the fetched bodies
        // once no other device's row names them (retention's next pass). Records left to the
        // cluster member that deleted them take no file here: those now on record are newer
        // than the reset (the store's sweep takes files no record names).
        let transfers = records == .deleted ? try await store.transfers(deviceToken: device, limit: .max) : []
        let contents = records == .deleted ? try await store.contents(deviceToken: device, limit: .max) : []
        try await runtime.committing { recorder, now, completion in recorder.forget(device, records: records, now: now, completion: completion) }
        await runtime.transferClient.forgetFiles(of: transfers)
        for content in contents { store.contentSuperseded(sha256: content.sha256) }
        endpoint.withDevices { registry in
            if let device { registry.forget(device) } else { registry.forgetAll() }
        }
    }

    /// Forgets everything but the clock (`POST /v1/reset`): devices, records, registrations
    /// and fault rules.
    public func reset() async throws {
        try await reset(records: .deleted)
    }

    /// Forgets everything but the clock; the records only when `records` says they are this
    /// member's to delete (a cluster member ordered to reset leaves them to the sender).
    package func reset(records: DeviceRecorder.ForgottenRecords) async throws {
        try await forget(device: nil, records: records)
        endpoint.removeFault(nil)
    }

    /// The app on `token` is deleted and installed again: iOS gives it a new device token
    /// (registered to the same topics; the phone's state carries over), and APNs answers the
    /// old one `410 Unregistered` with the time of the change. Returns the new token and
    /// that time (ms since the epoch).
    public func reinstall(_ token: String) async throws -> (token: String, unregisteredAt: Int64) {
        let token = Self.stored(token)
        return try await DeviceReinstall.reinstall(token, endpoint: endpoint, device: self)
    }

    /// Every device the store knows, with the bundle ids of its apps. An app is known once
    /// a push was accepted for it, or a Live Activity, a task request or its usage recorded
    /// for it; a device, also once its state was set or its token registered at run time (a
    /// start-up registry's tokens, which `GET /v1/devices` lists too, are not the store's).
    /// Every member of a cluster reads the same: retention prunes none of it, forgetting the
    /// device does.
    public func knownDevices() async throws -> [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: try await store.knownDevices(after: nil, limit: .max).map { ($0.token, $0.topics) })
    }

    /// `device`'s state as the policy holds it.
    public func deviceState(of device: String) -> DeviceState {
        let device = Self.stored(device)
        return runtime.inspect { $0.policy.deviceState(DeviceKey(device)) }
    }

    /// If a push of `priority` came now for `topic` on `device`: when it would wake the app,
    /// and what holds it until then. Changes nothing.
    public func forecast(device: String, topic: String, priority: APNsPriority = .normal) -> WakeForecast<DeviceInstant> {
        let device = Self.stored(device)
        return runtime.inspect { recorder, now in
            recorder.policy.forecast(for: DeviceRuntime.AppKey(device: device, topic: topic), priority: priority, now: now)
        }
    }

    /// A device token as the store and the policy key it: lower-case, as the APNs path
    /// takes it. Every entry point that names a device goes through it.
    static func stored(_ token: String) -> String { token.lowercased() }

    // MARK: - Waiting

    /// Waits until no fetch or task handler is running and every change so far is committed:
    /// the running fetches (and any that start meanwhile), then the task handlers, then the
    /// handlers of wakes cut at their deadline each get at most `timeout` of real time.
    /// Returns false when it gave up: a fetch or task handler still ran after `timeout`, or
    /// the last changes could not be committed.
    @discardableResult
    public func settle(timeout: Duration) async -> Bool {
        await runtime.settle(timeout: timeout)
    }

    /// Fetches running now.
    public var runningWakeCount: Int { runtime.inspect { $0.running.count } }
}
