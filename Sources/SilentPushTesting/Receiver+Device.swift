import SilentPushCore
import SilentPushReceiver
import SilentPushStore

extension Receiver {
    /// Moves the manual device clock forward (see `DeviceControl.advance(by:)`): timers in
    /// the span fire at their exact device time, in order. Returns the clock's new time.
    @discardableResult
    public func advanceClock(by duration: Duration) async throws(DeviceClockError) -> DeviceInstant {
        try await device.advance(by: duration)
    }

    /// Waits until no fetch or task handler is running and every record is committed: then
    /// fates and wakes can be asserted. The running fetches (and any that start meanwhile),
    /// then the task handlers, then the handlers of wakes cut at their deadline are each given
    /// at most `timeout` of real time, so it can take several times `timeout`. Returns false when it gave up (a handler
    /// still ran after `timeout`, or the last records could not be committed):
    /// `#expect(await receiver.settle())`.
    @discardableResult
    public func settle(timeout: Duration = .seconds(10)) async -> Bool {
        await device.settle(timeout: timeout)
    }

    /// The user opens the app (at `opened`; nil: now). Apps not opened for a day or a week
    /// are launched at twice or four times the interval; past `WakeSettings.appUsageThreshold`,
    /// not at all.
    public func openApp(
        _ topic: String = SamplePush.topic, on deviceToken: String = SamplePush.deviceToken, at opened: DeviceInstant? = nil
    ) async throws {
        try await device.setLastOpened(opened, device: deviceToken, topic: topic)
    }

    /// Restarts the device: what its apps ran is killed (recorded `killed`), and no
    /// background launch starts during the warm-up (`WakeSettings.rebootWarmup`, zero unless
    /// set). Returns at once, with the device time the warm-up ends (move the clock there).
    @discardableResult
    public func reboot(_ deviceToken: String = SamplePush.deviceToken) async throws -> DeviceInstant {
        try await device.reboot(deviceToken)
    }

    /// The app submits a background task request (`BGTaskScheduler.submit`); throws Apple's
    /// `TaskSubmitError` when iOS would refuse it. Returns the request's record, committed.
    @discardableResult
    public func submitTask(
        _ submission: DeviceControl.TaskSubmission, topic: String = SamplePush.topic, on deviceToken: String = SamplePush.deviceToken
    ) async throws -> TaskRequestRecord {
        try await device.submitTask(submission, device: deviceToken, topic: topic)
    }

    /// Task runs of `topic`'s app on `deviceToken`, oldest first: the newest `limit`.
    public func taskRuns(
        topic: String = SamplePush.topic, on deviceToken: String = SamplePush.deviceToken, limit: Int = 1000
    ) async throws -> [TaskRunRecord] {
        try await device.taskRuns(device: deviceToken, topic: topic, limit: limit).reversed()
    }

    /// The task requests of `topic`'s app on `deviceToken`, oldest first: the newest 100.
    public func taskRequests(topic: String = SamplePush.topic, on deviceToken: String = SamplePush.deviceToken) async throws -> [TaskRequestRecord] {
        try await device.taskRequests(device: deviceToken, topic: topic).reversed()
    }

    /// If a push of `priority` came now for `topic` on `deviceToken`: when it would wake the
    /// app, and what holds it until then. Changes nothing.
    public func forecast(
        for deviceToken: String = SamplePush.deviceToken, topic: String = SamplePush.topic, priority: APNsPriority = .normal
    ) -> WakeForecast<DeviceInstant> {
        device.forecast(device: deviceToken, topic: topic, priority: priority)
    }

    /// The fate of the push with this `apns-id`, once committed; nil if unknown.
    public func fate(of apnsID: String) async throws -> PushFate? {
        try await device.push(apnsID: apnsID)?.fate
    }

    /// The fate of the push APNs answered with this `apns-unique-id` (the development
    /// environment's; ``TestPushResponse/uniqueID``), once committed; nil if unknown. Unlike an
    /// `apns-id`, which a provider may send twice, it names one push.
    public func fate(uniqueID: String) async throws -> PushFate? {
        try await device.push(uniqueID: uniqueID)?.fate
    }

    /// Waits until the push's fate satisfies `condition`, for at most `timeout` of real
    /// time, and returns the last fate seen. The fate is read again as each of the store's
    /// transactions ends, not polled.
    @discardableResult
    public func waitForFate(
        of apnsID: String, timeout: Duration = .seconds(10), until condition: (PushFate?) -> Bool
    ) async throws -> PushFate? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let seen = device.transactionsEnded
            let fate = try await fate(of: apnsID)
            if condition(fate) || ContinuousClock.now >= deadline { return fate }
            await waitForTransaction(after: seen, until: deadline)
        }
    }

    /// Waits until the push with this `apns-id` has a fate of `kind` (`.delivered`, say,
    /// whichever wake delivers it) and returns it; throws ``FateWaitTimeout``, with the last
    /// fate seen, when `timeout` of real time passes first, or at once when the push can no
    /// longer become `kind`: its fate is final (delivered, expired, dropped, rejected,
    /// injected, coalesced into a wake), or it is coalesced and `kind` is `.delivered`.
    @discardableResult
    public func fate(of apnsID: String, becomes kind: PushFate.Kind, within timeout: Duration = .seconds(10)) async throws -> PushFate {
        let started = ContinuousClock.now
        let fate = try await waitForFate(of: apnsID, timeout: timeout) { $0?.kind == kind || $0?.canStillBecome(kind) == false }
        guard let fate, fate.kind == kind else {
            let waited = fate?.canStillBecome(kind) == false ? ContinuousClock.now - started : timeout
            throw FateWaitTimeout(apnsID: apnsID, expected: kind, last: fate, waited: waited)
        }
        return fate
    }

    private func waitForTransaction(after count: Int, until deadline: ContinuousClock.Instant) async {
        let device = device
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await device.waitForTransaction(after: count) }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Background transfers, oldest first, for a device, topic and/or session: the newest `limit`.
    public func transfers(
        deviceToken: String? = nil, topic: String? = nil, session: String? = nil, limit: Int = 1000
    ) async throws -> [TransferRecord] {
        try await device.transfers(device: deviceToken, topic: topic, session: session, limit: limit).reversed()
    }

    /// Waits until the transfers (oldest first, for a device, topic and/or session) satisfy
    /// `condition`, for at most `timeout` of real time, and returns the last seen. They are
    /// read again as each of the store's transactions ends, not polled.
    @discardableResult
    public func waitForTransfers(
        deviceToken: String? = nil, topic: String? = nil, session: String? = nil, timeout: Duration = .seconds(10),
        until condition: ([TransferRecord]) -> Bool
    ) async throws -> [TransferRecord] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let seen = device.transactionsEnded
            let transfers = try await transfers(deviceToken: deviceToken, topic: topic, session: session)
            if condition(transfers) || ContinuousClock.now >= deadline { return transfers }
            await waitForTransaction(after: seen, until: deadline)
        }
    }

    /// The pushes recorded, oldest first, for a device and/or topic (those APNs refused too,
    /// fate `rejected`): the newest `limit`. For a provider under test, which pushes reached
    /// a device, with what headers, and what became of each.
    public func pushes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 1000) async throws -> [ReceivedPush] {
        try await device.receivedPushes(deviceToken: deviceToken, topic: topic, limit: limit).reversed()
    }

    /// Wakes, oldest first, for a device and/or topic: the newest `limit`.
    public func wakes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 1000) async throws -> [WakeRecord] {
        try await device.wakes(deviceToken: deviceToken, topic: topic, limit: limit).reversed()
    }

    /// The `apns-id`s coalesced into wake `wakeID`, oldest first.
    public func coalesced(into wakeID: UInt64) async throws -> [String] {
        try await device.coalescedAPNsIDs(wakeID: wakeID)
    }

    /// Sets a device's whole state (force-quit, Background App Refresh, Low Power Mode,
    /// budget, battery, network…): fields left out of `state` take their defaults. To change
    /// one, start from `device.deviceState(of:)`.
    public func setDeviceState(_ state: DeviceState, for deviceToken: String = SamplePush.deviceToken) async throws {
        try await device.setDeviceState(state, for: deviceToken)
    }
}
