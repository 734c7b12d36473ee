import Logging
import Synchronization
import SilentPushCore
import SilentPushStore

/// The device side: a `PushSink` that drives the pure `WakePolicy` on the
/// device clock, records every push, wake and device change in the store, and runs the
/// app's fetch handler for each wake under its deadline.
///
/// Its decisions live in a `DeviceRecorder`, a state machine; every entry point is one
/// `modify` call, which steps the recorder under the lock and carries out the actions it
/// returns after releasing it. Store changes are handed to the store in the recorder's order.
/// It is a `Service`: its `run()` fires the system-clock timers and runs the fetch handlers,
/// and on graceful shutdown drains them (see `DeviceRuntime+Service.swift`).
public final class DeviceRuntime: PushSink, Sendable {
    /// The device clock.
    public let clock: DeviceClock
    /// Intervals, deadline, fetch cap.
    public let settings: WakeSettings
    /// The durable record.
    package let store: PushStore
    /// How long a graceful shutdown lets running fetches answer.
    public let shutdownGrace: Duration
    let handler: any FetchHandler
    let metrics: DeviceMetrics
    let logger: Logger
    private let recorder: Mutex<DeviceRecorder>
    private let outbox = Mutex(Outbox())
    /// The next push's id: taken by the endpoint per request, before the push reaches the lock.
    private let nextPushID: Atomic<UInt64>
    /// The next task request's id.
    let nextTaskRequestID: Atomic<UInt64>
    let advancing = Mutex(false)
    /// Handler tasks running, and who waits for there to be none.
    private let handlers = Mutex<(running: Int, idleWaiters: [AsyncSignal])>((0, []))
    /// Raised when the policy's next deadline moves before the armed timer.
    let timerMoved = AsyncSignal()
    /// Steps that changed the record: what the timeline's event stream watches.
    private let changeCount = Atomic<UInt64>(0)
    /// Fetches and task runs for `run()` to start, and the end of them at shutdown.
    let fetches: AsyncStream<Work>
    let fetchQueue: AsyncStream<Work>.Continuation
    /// Which apps may submit which background tasks, by topic.
    let declarations: [String: AppDeclaration]

    /// An app on a device, as the policy keys it.
    struct AppKey: WakeApp {
        var device: String
        var topic: String
    }

    /// What `run()` starts as a child task: a wake's fetch, or a background task's run.
    enum Work: Sendable {
        case wake(Fetch)
        case task(BackgroundTask)
    }

    /// A fetch for `run()` to start.
    struct Fetch: Sendable {
        var start: DeviceRecorder.Start
        /// The wake, when its push was in hand; else it is read from the store.
        var wake: Wake?
        var cancellation: AsyncSignal
    }

    /// Store writes taken from the recorder while another thread hands earlier ones to the
    /// store: that thread hands these over too, so they reach the store in the recorder's
    /// order. Its own lock, taken inside the recorder's when a step ends and alone by the
    /// thread handing over, so that thread never waits for the policy.
    private struct Outbox {
        var writes: [Write] = []
        var handingOver = false
    }

    /// Changes for the store and what to call once they are committed.
    private struct Write {
        var changes: [StoreChange]
        var completion: PushStore.Completion
    }

    /// What `open` found in the store and carries on with.
    package let resumed: ResumedState

    init(
        store: PushStore, clock: DeviceClock, settings: WakeSettings, shutdownGrace: Duration, handler: any FetchHandler,
        metrics: DeviceMetrics, recorder: DeviceRecorder, nextPushID: UInt64, nextTaskRequestID: UInt64, declarations: [String: AppDeclaration],
        resumed: ResumedState = ResumedState(), logger: Logger
    ) {
        self.resumed = resumed
        self.nextTaskRequestID = Atomic(nextTaskRequestID)
        self.store = store
        self.shutdownGrace = shutdownGrace
        self.clock = clock
        self.settings = settings
        self.handler = handler
        self.metrics = metrics
        self.logger = logger
        self.recorder = Mutex(recorder)
        self.nextPushID = Atomic(nextPushID)
        (fetches, fetchQueue) = AsyncStream.makeStream(of: Work.self)
        self.declarations = declarations
    }

    // MARK: - The one way in

    /// Steps the recorder with the device's `now` under the lock, then carries out the
    /// actions the step left: store changes first (in the recorder's order), then fetches,
    /// cancellations, resumed callers, metrics and the timer.
    @discardableResult
    func modify<Result>(_ body: (inout DeviceRecorder, DeviceInstant) -> Result) -> Result {
        let (result, actions) = step(body)
        run(actions)
        return result
    }

    /// The locked half of `modify`: steps the recorder and hands its store changes over.
    private func step<Result>(_ body: (inout DeviceRecorder, DeviceInstant) -> Result) -> (Result, DeviceRecorder.Actions) {
        let (result, actions, write) = recorder.withLock { recorder in
            let result = body(&recorder, clock.now)
            var actions = recorder.takeActions()
            var write: Write?
            if !actions.changes.isEmpty { changeCount.add(1, ordering: .relaxed) }
            if !actions.changes.isEmpty || actions.awaitsCommit {
                // A caller that changed nothing still waits: an empty write commits nothing
                // and completes once what was queued before it has.
                var changes: [StoreChange] = []
                swap(&changes, &actions.changes)
                let taken = Write(changes: changes, completion: actions.completion)
                // Queued or taken while the recorder's lock holds: the order is the recorder's.
                write = outbox.withLock { outbox in
                    if outbox.handingOver {
                        outbox.writes.append(taken)
                        return nil
                    }
                    outbox.handingOver = true
                    return taken
                }
            }
            return (result, actions, write)
        }
        if let write { handOver(write) }
        return (result, actions)
    }

    /// How many steps have changed the record so far: it moves whenever a push, wake, task
    /// run or device state is recorded (or will be: the change may not be committed yet).
    var changes: UInt64 { changeCount.load(ordering: .relaxed) }

    /// Gives `write` to the store, then whatever other threads queued meanwhile.
    private func handOver(_ write: Write) {
        store.write(write.changes, completion: write.completion)
        while true {
            let more = outbox.withLock { outbox -> [Write] in
                if outbox.writes.isEmpty { outbox.handingOver = false }
                defer { outbox.writes = [] }
                return outbox.writes
            }
            if more.isEmpty { return }
            for write in more { store.write(write.changes, completion: write.completion) }
        }
    }

    /// Carries out what a step left to do. A handler that answers as it starts (`noData`)
    /// completes here, and the wakes its answer lets start are run by this loop, not by
    /// recursion.
    private func run(_ actions: consuming DeviceRecorder.Actions) {
        guard !actions.isEmpty else { return }
        var later: [DeviceRecorder.Actions] = []
        var next: DeviceRecorder.Actions? = consume actions
        while let actions = next.take() {
            metrics.record(actions.metrics)
            for cancellation in actions.cancels { cancellation.raise() }
            for waiter in actions.resumes { waiter.resume() }
            if actions.armTimer != nil { timerMoved.raise() }
            for task in actions.taskExpirations { task.expire() }
            for task in actions.taskTerminations { task.termination.raise() }
            for task in actions.tasksEnded { task.settled.open() }
            for task in actions.taskRuns { startTask(task) }
            for run in actions.runs {
                guard let result = handler.immediateResult(topic: run.start.app.topic) else {
                    fetchQueue.yield(.wake(Fetch(start: run.start, wake: run.wake, cancellation: run.cancellation)))
                    continue
                }
                // Ends as it starts: no task, no read of its push.
                let (recorded, more) = step { $0.fetchCompleted(run.start, result: result, now: $1) }
                metrics.record(recorded, duration: .zero)
                logger.debug(
                    "wake ended",
                    metadata: [
                        "wake.id": "\(run.start.wakeID)", "wake.result": "\(recorded.name)", "wake.duration_ms": "0",
                        "device.token": Self.shortened(run.start.app.device),
                    ])
                if !more.isEmpty { later.append(more) }
            }
            next = later.popLast()
        }
    }

    // MARK: - PushSink

    public func takePushID() -> UInt64 {
        nextPushID.add(1, ordering: .relaxed).oldValue
    }

    public func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
        guard store.isWritable else {
            // Nothing reaches the policy that the store could not record; a probe finds out
            // when it can again.
            store.probeSoon()
            metrics.rejected(.serviceUnavailable)
            return completion(.failure(APNsRejection(.serviceUnavailable)))
        }
        let neverWakes = Self.neverWakesReason(push)
        // Captures the runtime, not its logger and metrics: one reference to retain per push.
        let recorded: PushStore.Completion = { [self, apnsID = push.apnsID] result in
            switch result {
            case .success: metrics.accepted()
            case .failure(let error):
                logger.debug("cannot record a push", metadata: ["push.apns_id": "\(apnsID)", "error": "\(error)"])
            }
            // Not recorded, so not accepted: 503, and the provider retries.
            completion(result.mapError { _ in APNsRejection(.serviceUnavailable) })
        }
        let queued = modify { recorder, now in
            let expiresAt = DeviceInstant.expiry(ofAPNsExpiration: push.expiration, systemNow: DeviceClock.systemNow, deviceNow: now)
            let record = PushRecord(
                id: id, apnsID: push.apnsID, deviceToken: push.deviceToken, topic: push.topic, pushType: push.pushType.rawValue,
                priority: push.priority.rawValue, receivedAt: now.millisecondsSinceEpoch, expiresAt: expiresAt?.millisecondsSinceEpoch,
                collapseID: push.collapseID, payload: push.body, warnings: push.warnings,
                fate: neverWakes.map { .dropped($0) } ?? .pending)
            let incoming = neverWakes == nil ? IncomingPush(id: id, priority: push.priority, expiresAt: expiresAt) : nil
            return recorder.receive(record, incoming: incoming, now: now, completion: recorded)
        }
        guard queued else { return completion(.failure(APNsRejection(.shutdown))) }
        logger.debug(
            "push accepted",
            metadata: [
                "push.apns_id": "\(push.apnsID)", "device.token": Self.shortened(push.deviceToken), "app.topic": "\(push.topic)",
                "push.priority": "\(push.priority.rawValue)",
            ])
    }

    public func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason) {
        reject(id: id, apnsID: apnsID, deviceToken: deviceToken, topic: topic, reason: reason, cause: nil)
    }

    public func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason, cause: String?) {
        let queued = modify { recorder, now in
            recorder.reject(
                PushRecord(
                    id: id, apnsID: apnsID, deviceToken: deviceToken ?? "", topic: topic ?? "", pushType: "", priority: 0,
                    receivedAt: now.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil, payload: [], warnings: [],
                    fate: .rejected(reason, cause: cause)))
        }
        guard queued else { return }
        metrics.rejected(reason)
        logger.debug(
            "push rejected",
            metadata: [
                "push.apns_id": "\(apnsID)", "push.reason": "\(reason.rawValue)",
                "device.token": deviceToken.map(Self.shortened) ?? "-",
            ])
    }

    public func inject(id: UInt64, apnsID: String, deviceToken: String, topic: String?, rule: UInt64, action: FaultAction) {
        let queued = modify { recorder, now in
            recorder.reject(
                PushRecord(
                    id: id, apnsID: apnsID, deviceToken: deviceToken, topic: topic ?? "", pushType: "", priority: 0,
                    receivedAt: now.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil, payload: [], warnings: [],
                    fate: .injected(by: rule, action)))
        }
        guard queued else { return }
        logger.debug(
            "fault injected",
            metadata: [
                "push.apns_id": "\(apnsID)", "fault.rule": "\(rule)", "fault.action": "\(action)", "device.token": Self.shortened(deviceToken),
            ])
    }

    public func faultApplied(_ action: FaultAction) {
        metrics.faultApplied(action)
    }

    /// A device token as logs show it: enough to tell devices apart, not the whole token.
    static func shortened(_ token: String) -> Logger.MetadataValue {
        token.count > 12 ? "\(token.prefix(8))…" : "\(token)"
    }

    /// Why a push accepted by APNs can never start a background fetch.
    static func neverWakesReason(_ push: ValidatedPush) -> DropReason? {
        if let reason = push.neverWakesReason { return reason }
        guard push.pushType == .background || push.pushType == .alert else { return .pushTypeNeverWakes(push.pushType) }
        return push.payload.contentAvailable ? nil : .noContentAvailable
    }

    // MARK: - Wakes

    /// Runs one wake's handler (a child task of `run()`), racing its cancellation.
    func runWake(_ fetch: Fetch) async {
        await countingHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.runHandler(fetch) }
                group.addTask { await fetch.cancellation.wait() }
                await group.next()
                group.cancelAll()
                await group.waitForAll()
            }
        }
    }

    /// Runs `body`, a handler's task, counted so a shutdown can wait for none to be left.
    func countingHandler(_ body: () async -> Void) async {
        handlers.withLock { $0.running += 1 }
        defer {
            let idle = handlers.withLock { handlers -> [AsyncSignal] in
                handlers.running -= 1
                guard handlers.running == 0 else { return [] }
                defer { handlers.idleWaiters = [] }
                return handlers.idleWaiters
            }
            for waiter in idle { waiter.raise() }
        }
        await body()
    }

    private func runHandler(_ fetch: Fetch) async {
        let start = fetch.start
        let wake: Wake
        do {
            if let ready = fetch.wake { wake = ready } else { wake = try await readWake(start) }
        } catch {
            logger.error("cannot read a wake's push", metadata: ["wake.id": "\(start.wakeID)", "error": "\(error)"])
            metrics.record(modify { $0.fetchCompleted(start, result: .failed(reason: "store: \(error)"), now: $1) }, duration: .zero)
            return
        }
        let began = ContinuousClock.now
        logger.debug(
            "wake started",
            metadata: [
                "wake.id": "\(start.wakeID)", "push.apns_id": "\(wake.apnsID)", "device.token": Self.shortened(wake.deviceToken),
                "app.topic": "\(wake.topic)", "wake.coalesced": "\(wake.coalescedAPNsIDs.count)",
            ])
        let errorOutput = FetchErrorOutput()
        let result =
            Task.isCancelled ? FetchResult.deadlineExceeded : await FetchErrorOutput.$current.withValue(errorOutput) { await handler.fetch(wake) }
        let recorded = modify { $0.fetchCompleted(start, result: result, now: $1) }
        if let text = errorOutput.text {
            modify { recorder, _ in recorder.recordErrorOutput(text, wakeID: start.wakeID) }
            logger.debug(
                "fetch handler stderr",
                // One log line however many lines it wrote.
                metadata: ["wake.id": "\(start.wakeID)", "wake.stderr": "\(text.replacing("\n", with: "\\n"))"])
        }
        let duration = ContinuousClock.now - began
        metrics.record(recorded, duration: duration)
        logger.log(
            level: recorded == .deadlineExceeded ? .notice : .debug, "wake ended",
            metadata: [
                "wake.id": "\(start.wakeID)", "wake.result": "\(recorded.name)", "wake.reason": "\(recorded.reason ?? "-")",
                "wake.duration_ms": "\(duration.nanosecondCount / 1_000_000)", "device.token": Self.shortened(wake.deviceToken),
            ])
    }

    /// The wake's push and the apns-ids coalesced into it, from the store.
    private func readWake(_ start: DeviceRecorder.Start) async throws -> Wake {
        // The wake's own changes were handed over before it started; once they are committed
        // its push and the pushes coalesced into it are readable.
        try await store.flush()
        guard let (push, coalesced) = try store.delivery(push: start.push, wakeID: start.wakeID) else {
            throw WakeReadError(push: start.push)
        }
        return Wake(start, delivering: push, coalesced: coalesced)
    }

    /// Waits until each of `wakes` ends, or `timeout` of real time passes for it; in parallel.
    func waitForWakes(_ wakes: [UInt64], timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for wake in wakes { group.addTask { await self.waitForWake(wake, timeout: timeout) } }
        }
    }

    /// Waits until wake `wakeID` ends, or `timeout` of real time passes.
    func waitForWake(_ wakeID: UInt64, timeout: Duration) async {
        await waitAtMost(timeout) { await self.wakeEnded(wakeID) }
    }

    /// Runs `body` for at most `timeout` of real time (it is cancelled then).
    func waitAtMost(_ timeout: Duration, _ body: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await body() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func wakeEnded(_ wakeID: UInt64) async {
        let token = recorder.withLock { $0.makeWaiterToken() }
        await Waiters.suspend { continuation in
            recorder.withLock { recorder -> Bool in
                guard !Task.isCancelled else { return false }
                return recorder.addWaiter(continuation, token: token, for: wakeID)
            }
        } cancel: {
            recorder.withLock { $0.removeWaiter(token: token, for: wakeID) }
        }
    }

    /// Ends the fetch queue: `run()` returns once the fetches under way end.
    func endFetches() {
        fetchQueue.finish()
    }

    /// Returns once no handler task is running, cancelled ones included (they may still be
    /// unwinding after their wake ended), or when the caller is cancelled.
    func handlersIdle() async {
        let idle = AsyncSignal()
        let registered = handlers.withLock { handlers -> Bool in
            if handlers.running == 0 { return false }
            handlers.idleWaiters.append(idle)
            return true
        }
        if registered { await idle.wait() }
    }

    /// Reads the recorder under the lock.
    func inspect<Result>(_ body: (DeviceRecorder) -> Result) -> Result {
        recorder.withLock { body($0) }
    }
}

/// A wake's push was not in the store.
struct WakeReadError: Error, CustomStringConvertible {
    let push: UInt64
    var description: String { "push \(push) is missing from the store" }
}

extension DeviceRuntime: PushBatching {
    package func holdSubmissions() { store.holdCommits() }

    package func releaseSubmissions() { store.releaseCommits() }
}
