import Logging
import Synchronization
import SilentPushCore
import SilentPushStore

/// The device side: a `PushSink` that drives the pure `WakePolicy` on the
/// device clock, records every push, wake and device change in the store, and runs the
/// app's fetch handler for each wake under its deadline.
///
/// Its decisions live in a `DeviceRecorder`, a state machine whose every event returns the
/// actions it leaves; every entry point is one `modifyStateAndRunActions` call, which steps
/// the recorder under the lock and carries out those actions after releasing it. Store
/// changes go from the step into the store writer's queue, in the recorder's order.
/// It is a `Service`: its `run()` fires the system-clock timers and runs the fetch handlers,
/// and on graceful shutdown drains them (see `DeviceRuntime+Service.swift`).
package final class DeviceRuntime: PushSink, Sendable {
    /// The device clock.
    package let clock: DeviceClock
    /// Intervals, deadline, fetch cap.
    package let settings: WakeSettings
    /// The durable record.
    package let store: PushStore
    /// How long a graceful shutdown may take, counted from `shutdownBegan`: what is left of
    /// it once the server's streams are done is what running fetches get to answer.
    package let shutdownGrace: Duration
    /// When graceful shutdown began (real time); nil until it does.
    let shutdownStart = Mutex<ContinuousClock.Instant?>(nil)
    let handler: any FetchHandler
    let metrics: DeviceMetrics
    let logger: Logger
    /// The recorder, and what the executor keeps beside it under the same lock: the objects
    /// its actions name by id (each wake's cancellation, each task run's `BackgroundTask`)
    /// and the callers waiting for wakes to end.
    private let state: Mutex<Locked>
    /// What store changes no caller waits for report to.
    private let unobserved: PushStore.Completion
    /// The next push's id: taken by the endpoint per request, before the push reaches the lock.
    let nextPushID: Atomic<UInt64>
    /// The next background transfer's id: taken by the handler's hand-over, before the lock.
    let nextTransferID: Atomic<UInt64>
    /// Runs background transfers against their origins.
    let transferClient: TransferClient
    /// Handler tasks running, and who waits for there to be none.
    let handlers = Mutex<(running: Int, idleWaiters: [AsyncSignal])>((0, []))
    /// Raised when the policy's next deadline moves before the armed timer.
    let timerMoved = AsyncSignal()
    /// Steps that changed the record: what the timeline's event stream watches.
    private let changeCount = Atomic<UInt64>(0)
    /// Fetches and task runs for `run()` to start, and the end of them at shutdown.
    let fetches: AsyncStream<Work>
    let fetchQueue: AsyncStream<Work>.Continuation
    /// Which apps may submit which background tasks, by topic.
    let declarations: [String: AppDeclaration]
    /// Broadcast channels: a start may name one (`input-push-channel`); nil: none exist.
    let channels: ChannelDirectory?
    /// Whether the receiver is one of a cluster, owning some shards' devices.
    let clustered: Bool

    /// What the executor's lock guards.
    private struct Locked {
        var recorder: DeviceRecorder
        /// The signal that cancels each running wake's handler, by wake id.
        var cancellations: [UInt64: AsyncSignal] = [:]
        /// Callers waiting for a wake to end, by wake id.
        var waiters: [UInt64: Waiters] = [:]
        var nextWaiterToken: UInt64 = 0
        /// Each running task run's handle, by run id.
        var tasks: [UInt64: BackgroundTask] = [:]
        /// The signal that stops each background transfer's running try, by transfer id.
        var transferTries: [UInt64: AsyncSignal] = [:]
        /// Each transfer's try under way, opened once its end is recorded (or it stopped): what
        /// a move of the manual clock waits for.
        var transferTryEnds: [UInt64: (attempt: Int, ended: AsyncLatch)] = [:]
        /// Transfers whose kept files go once their try, stopped, has ended: deleted at once,
        /// a try still unwinding could write or move them after.
        var pendingDiscards: Set<UInt64> = []
    }

    /// What a step leaves for after the lock: its actions with the objects they name.
    private struct Execution {
        var runs: [Fetch] = []
        var cancels: [AsyncSignal] = []
        var resumes: [Waiters.Continuation] = []
        var metrics = DeviceMetrics.Events()
        var armsTimer = false
        var taskRuns: [BackgroundTask] = []
        var taskExpirations: [BackgroundTask] = []
        var taskTerminations: [BackgroundTask] = []
        var taskInterruptions: [BackgroundTask] = []
        var tasksEnded: [BackgroundTask] = []
        var transferTries: [TransferTry] = []
        var transferStops: [AsyncSignal] = []
        var transferDiscards: [UInt64] = []
        var relaunchesCancelled: [UInt64] = []
    }

    /// An app on a device, as the policy keys it.
    package struct AppKey: WakeApp {
        /// The device's token, compact: one is held for every app the receiver has seen.
        package var device: DeviceKey
        package var topic: String

        package init(device: DeviceKey, topic: String) {
            self.device = device
            self.topic = topic
        }

        package init(device: String, topic: String) {
            self.init(device: DeviceKey(device), topic: topic)
        }

        /// The device's token as text.
        package var deviceToken: String { device.text }
    }

    /// What `run()` starts as a child task: a wake's fetch, or a background task's run.
    enum Work: Sendable {
        case wake(Fetch)
        case task(BackgroundTask)
        case transfer(TransferTry)
        /// Deleting the files of relaunches cancelled before they ran (by request id).
        case relaunchFiles([UInt64])
    }

    /// A try of a background transfer for `run()` to start, and what stops it.
    struct TransferTry: Sendable {
        var start: DeviceRecorder.TransferStart
        var stop: AsyncSignal
        /// Opened once the try is over and its end recorded.
        var ended: AsyncLatch
    }

    /// A fetch for `run()` to start.
    struct Fetch: Sendable {
        var start: DeviceRecorder.Start
        /// The wake, when its push was in hand; else it is read from the store.
        var wake: Wake?
        var cancellation: AsyncSignal
    }

    /// What `open` found in the store and carries on with.
    package let resumed: ResumedState

    init(
        store: PushStore, clock: DeviceClock, settings: WakeSettings, shutdownGrace: Duration, handler: any FetchHandler,
        metrics: DeviceMetrics, recorder: DeviceRecorder, nextPushID: UInt64, nextTransferID: UInt64, transferClient: TransferClient,
        declarations: [String: AppDeclaration], resumed: ResumedState = ResumedState(), channels: ChannelDirectory? = nil, logger: Logger
    ) {
        self.channels = channels
        self.resumed = resumed
        self.nextTransferID = Atomic(nextTransferID)
        self.transferClient = transferClient
        self.store = store
        self.shutdownGrace = shutdownGrace
        self.clock = clock
        self.settings = settings
        self.handler = handler
        self.metrics = metrics
        self.logger = logger
        self.clustered = recorder.shards != nil
        self.state = Mutex(Locked(recorder: recorder))
        unobserved = { [logger] result in
            if case .failure(let error) = result {
                logger.error("cannot record a device change", metadata: ["error": "\(PushStore.describe(error))"])
            }
        }
        self.nextPushID = Atomic(nextPushID)
        (fetches, fetchQueue) = AsyncStream.makeStream(of: Work.self)
        self.declarations = declarations
    }

    // MARK: - The one way in

    /// Steps the recorder with `event` at the device's `now` under the lock, then carries
    /// out the actions it returned after releasing it: store changes first (in the
    /// recorder's order), then ended wakes, fetches, task runs, metrics and the timer.
    /// Returns the event's reply.
    @discardableResult
    func modifyStateAndRunActions(_ event: (inout DeviceRecorder, DeviceInstant) -> DeviceRecorder.Actions) -> DeviceRecorder.Reply {
        let (reply, execution) = step(event)
        run(execution)
        return reply
    }

    /// Steps the recorder with `event`, handing it the completion its changes are committed
    /// with, and returns the event's reply once they are.
    @discardableResult
    func committing(
        _ event: @escaping (inout DeviceRecorder, DeviceInstant, @escaping PushStore.Completion) -> DeviceRecorder.Actions
    ) async throws -> DeviceRecorder.Reply {
        let answer = Mutex<DeviceRecorder.Reply>(.done)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // The event returns before this task goes on, however soon the commit resumes it.
            let reply = modifyStateAndRunActions { recorder, now in event(&recorder, now) { continuation.resume(with: $0) } }
            answer.withLock { $0 = reply }
        }
        return answer.withLock { $0 }
    }

    /// The locked half: steps the recorder, turns the ids its actions name into the objects
    /// the executor keeps, and queues the store changes in the writer's queue (under the
    /// lock, so they are in the recorder's order; the writer is started after it).
    private func step(_ event: (inout DeviceRecorder, DeviceInstant) -> DeviceRecorder.Actions) -> (DeviceRecorder.Reply, Execution?) {
        let (reply, execution, queued) = state.withLock { state -> (DeviceRecorder.Reply, Execution?, PushStore.Queued) in
            let actions = event(&state.recorder, max(clock.now, state.recorder.advancedTo))
            var queued = PushStore.Queued.joined
            if !actions.changes.isEmpty { changeCount.add(1, ordering: .relaxed) }
            if !actions.changes.isEmpty || actions.completion != nil {
                // A caller that changed nothing still waits: an empty write commits nothing
                // and completes once what was queued before it has.
                // Not `??`: a generic operator wraps the closure in two reabstraction thunks,
                // two allocations on every push.
                if let completion = actions.completion {
                    queued = store.queue(actions.changes, completion: completion)
                } else {
                    queued = store.queue(actions.changes, completion: unobserved)
                }
            }
            return (actions.reply, Self.execution(of: actions, in: &state), queued)
        }
        store.start(queued)
        return (reply, execution)
    }

    /// What `actions` leave for after the lock, with the objects they name; nil when they
    /// leave nothing (most pushes: a row and its commit).
    private static func execution(of actions: borrowing DeviceRecorder.Actions, in state: inout Locked) -> Execution? {
        guard
            !actions.metrics.isEmpty || actions.armTimer != nil || !actions.ended.isEmpty || !actions.handlersCancelled.isEmpty
                || !actions.runs.isEmpty
                || !actions.taskRuns.isEmpty || !actions.taskExpirations.isEmpty || !actions.taskTerminations.isEmpty
                || !actions.taskInterruptions.isEmpty
                || !actions.tasksEnded.isEmpty || !actions.transferStarts.isEmpty || !actions.transferInterrupts.isEmpty
                || !actions.transferDiscards.isEmpty || !actions.relaunchesCancelled.isEmpty
        else { return nil }
        var execution = Execution()
        execution.metrics = actions.metrics
        execution.armsTimer = actions.armTimer != nil
        // Runs first: a wake that starts and ends in one event is cancelled before it begins.
        for (start, wake) in actions.runs {
            let cancellation = AsyncSignal()
            state.cancellations[start.wakeID] = cancellation
            execution.runs.append(Fetch(start: start, wake: wake, cancellation: cancellation))
        }
        // The wake runs on: its cancellation is raised, and removed when it ends.
        execution.cancels = actions.handlersCancelled.compactMap { state.cancellations[$0] }
        for (wakeID, cancel) in actions.ended {
            if var waiters = state.waiters.removeValue(forKey: wakeID) { execution.resumes += waiters.removeAll() }
            if let cancellation = state.cancellations.removeValue(forKey: wakeID), cancel { execution.cancels.append(cancellation) }
        }
        for start in actions.taskRuns {
            let task = BackgroundTask(start)
            state.tasks[start.runID] = task
            execution.taskRuns.append(task)
        }
        execution.taskExpirations = actions.taskExpirations.compactMap { state.tasks[$0] }
        execution.taskTerminations = actions.taskTerminations.compactMap { state.tasks[$0] }
        execution.taskInterruptions = actions.taskInterruptions.compactMap { state.tasks[$0] }
        execution.tasksEnded = actions.tasksEnded.compactMap { state.tasks.removeValue(forKey: $0) }
        var stopped: Set<UInt64> = []
        for id in actions.transferInterrupts {
            guard let stop = state.transferTries.removeValue(forKey: id) else { continue }
            execution.transferStops.append(stop)
            stopped.insert(id)
        }
        for start in actions.transferStarts {
            let stop = AsyncSignal()
            if let previous = state.transferTries.updateValue(stop, forKey: start.id) { execution.transferStops.append(previous) }
            let ended = AsyncLatch()
            state.transferTryEnds[start.id] = (start.attempt, ended)
            execution.transferTries.append(TransferTry(start: start, stop: stop, ended: ended))
        }
        for id in actions.transferDiscards {
            if stopped.contains(id) { state.pendingDiscards.insert(id) } else { execution.transferDiscards.append(id) }
        }
        execution.relaunchesCancelled = actions.relaunchesCancelled
        return execution
    }

    /// How many steps have changed the record so far: it moves whenever a push, wake, task
    /// run or device state is recorded (or will be: the change may not be committed yet).
    var changes: UInt64 { changeCount.load(ordering: .relaxed) }

    /// Carries out what a step left to do. A handler that answers as it starts (`noData`)
    /// completes here, and the wakes its answer lets start are run by this loop, not by
    /// recursion.
    private func run(_ execution: consuming Execution?) {
        var later: [Execution] = []
        var next = execution
        while let execution = next.take() {
            metrics.record(execution.metrics)
            for cancellation in execution.cancels { cancellation.raise() }
            for waiter in execution.resumes { waiter.resume() }
            if execution.armsTimer { timerMoved.raise() }
            for task in execution.taskExpirations { task.expire() }
            for task in execution.taskTerminations { task.termination.raise() }
            for task in execution.taskInterruptions { task.interrupt() }
            for task in execution.tasksEnded { task.settled.open() }
            for task in execution.taskRuns { startTask(task) }
            for stop in execution.transferStops { stop.raise() }
            for id in execution.transferDiscards { transferClient.discard(id) }
            for transfer in execution.transferTries { fetchQueue.yield(.transfer(transfer)) }
            if !execution.relaunchesCancelled.isEmpty { fetchQueue.yield(.relaunchFiles(execution.relaunchesCancelled)) }
            for fetch in execution.runs {
                guard let result = handler.immediateResult(topic: fetch.start.app.topic) else {
                    fetchQueue.yield(.wake(fetch))
                    continue
                }
                // Ends as it starts: no task, no read of its push.
                let (reply, more) = step { $0.fetchCompleted(fetch.start, result: result, now: $1) }
                let recorded = reply.recordedResult ?? result
                metrics.handlerRan(.zero)
                logger.debug(
                    "wake ended",
                    metadata: [
                        "wake.id": "\(fetch.start.wakeID)", "wake.result": "\(recorded.name)", "wake.duration_ms": "0",
                        "device.token": Self.shortened(fetch.start.app.deviceToken),
                    ])
                if let more { later.append(more) }
            }
            next = later.popLast()
        }
    }

    // MARK: - PushSink

    package func takePushID() -> UInt64 {
        nextPushID.add(1, ordering: .relaxed).oldValue
    }

    package func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
        guard store.isWritable else {
            // Nothing reaches the policy that the store could not record; a probe finds out
            // when it can again.
            store.probeSoon()
            metrics.rejected(.serviceUnavailable)
            return completion(.failure(APNsRejection(.serviceUnavailable)))
        }
        // A Live Activity push ActivityKit can read goes to its activity, not to a wake.
        if push.pushType == .liveactivity, push.neverWakesReason == nil, case .success(let payload) = LiveActivityPayload.parse(push.body) {
            return submitLiveActivity(push, payload: payload, id: id, completion: completion)
        }
        // A widget or control push with content-changed reloads its extension.
        if WakeKind(reloading: push.pushType) != nil, push.neverWakesReason == nil {
            return submitReload(push, id: id, completion: completion)
        }
        let neverWakes = push.neverFetchesReason
        let recorded = answeringOnceRecorded(push.apnsID, completion)
        let systemNow = DeviceClock.systemNow
        let reply = modifyStateAndRunActions { recorder, now in
            let (record, incoming) = PushRecord.received(push, id: id, neverWakes: neverWakes, systemNow: systemNow, now: now)
            return recorder.receive(record, incoming: incoming, now: now, completion: recorded)
        }
        guard !answeredAtOnce(reply, push, completion) else { return }
        logger.debug(
            "push accepted",
            metadata: [
                "push.apns_id": "\(push.apnsID)", "device.token": Self.shortened(push.deviceToken), "app.topic": "\(push.topic)",
                "push.priority": "\(push.priority.rawValue)",
            ])
    }

    package func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason) {
        reject(id: id, apnsID: apnsID, deviceToken: deviceToken, topic: topic, reason: reason, cause: nil)
    }

    package func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason, cause: String?) {
        let reply = modifyStateAndRunActions { recorder, now in
            recorder.reject(
                .refused(id: id, apnsID: apnsID, deviceToken: deviceToken, topic: topic, fate: .rejected(reason, cause: cause), now: now))
        }
        guard reply != .stopping else { return }
        noteRejected(reason, apnsID: apnsID, deviceToken: deviceToken)
    }

    /// Answers a push whose step replied that it is refused (stopping, another member's
    /// device, or rejected: its row is recorded, and the answer waits for nothing); false
    /// when the reply leaves the answer to the push's commit.
    func answeredAtOnce(
        _ reply: DeviceRecorder.Reply, _ push: ValidatedPush, _ completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) -> Bool {
        switch reply {
        case .stopping: completion(.failure(APNsRejection(.shutdown)))
        case .notOwner: completion(.failure(APNsRejection(.serviceUnavailable)))
        case .rejected(let reason):
            noteRejected(reason, apnsID: push.apnsID, deviceToken: push.deviceToken)
            completion(.failure(APNsRejection(reason)))
        default: return false
        }
        return true
    }

    /// A push refused with Apple's `reason` and recorded so: counted and logged.
    func noteRejected(_ reason: APNsReason, apnsID: String, deviceToken: String?) {
        metrics.rejected(reason)
        logger.debug(
            "push rejected",
            metadata: [
                "push.apns_id": "\(apnsID)", "push.reason": "\(reason.rawValue)",
                "device.token": deviceToken.map(Self.shortened) ?? "-",
            ])
    }

    package func inject(id: UInt64, apnsID: String, deviceToken: String, topic: String?, rule: UInt64, action: FaultAction) {
        let reply = modifyStateAndRunActions { recorder, now in
            recorder.reject(.refused(id: id, apnsID: apnsID, deviceToken: deviceToken, topic: topic, fate: .injected(by: rule, action), now: now))
        }
        guard reply != .stopping else { return }
        logger.debug(
            "fault injected",
            metadata: [
                "push.apns_id": "\(apnsID)", "fault.rule": "\(rule)", "fault.action": "\(action)", "device.token": Self.shortened(deviceToken),
            ])
    }

    package func faultApplied(_ action: FaultAction) {
        metrics.faultApplied(action)
    }

    /// A device token as logs show it: enough to tell devices apart, not the whole token.
    static func shortened(_ token: String) -> Logger.MetadataValue {
        token.count > 12 ? "\(token.prefix(8))…" : "\(token)"
    }

    /// Returns once wake `wakeID` is no longer running, or the caller is cancelled.
    func wakeEnded(_ wakeID: UInt64) async {
        let token = state.withLock { state in
            state.nextWaiterToken += 1
            return state.nextWaiterToken
        }
        await Waiters.suspend { continuation in
            state.withLock { state -> Bool in
                guard !Task.isCancelled, state.recorder.running[wakeID] != nil else { return false }
                state.waiters[wakeID, default: Waiters()].add(continuation, token: token)
                return true
            }
        } cancel: {
            state.withLock { $0.waiters[wakeID]?.remove(token: token) }
        }
    }

    /// A try of a transfer ended: its stop signal goes, unless a later try replaced it, and
    /// what the transfer kept goes too when it ended meanwhile (failed, cancelled, forgotten).
    func transferTryOver(_ transfer: TransferTry) {
        let discard = state.withLock { state in
            if state.transferTries[transfer.start.id] === transfer.stop { state.transferTries[transfer.start.id] = nil }
            return state.pendingDiscards.remove(transfer.start.id) != nil
        }
        if discard { transferClient.discard(transfer.start.id) }
    }

    /// Reads the recorder under the lock.
    func inspect<Result>(_ body: (DeviceRecorder) -> Result) -> Result {
        state.withLock { body($0.recorder) }
    }

    /// Reads the recorder under the lock, with the device time an event would be stepped at.
    func inspect<Result>(_ body: (DeviceRecorder, DeviceInstant) -> Result) -> Result {
        state.withLock { body($0.recorder, max(clock.now, $0.recorder.advancedTo)) }
    }

    /// What opens once each of `tries` is over and its end recorded; none for a try already over.
    func transferTryEnds(_ tries: [DeviceRecorder.TransferTryKey]) -> [AsyncLatch] {
        state.withLock { state in
            tries.compactMap { key in state.transferTryEnds[key.id].flatMap { $0.attempt == key.attempt ? $0.ended : nil } }
        }
    }

    /// Transfer try `transfer` is over, its end recorded: a move of the manual clock waiting
    /// for it goes on.
    func transferTryRecorded(_ transfer: TransferTry) {
        state.withLock { state in
            if state.transferTryEnds[transfer.start.id]?.ended === transfer.ended { state.transferTryEnds[transfer.start.id] = nil }
        }
        transfer.ended.open()
    }

    /// The handles of task runs in progress (`ids`; nil: all).
    func runningTasks(_ ids: [UInt64]? = nil) -> [BackgroundTask] {
        state.withLock { state in ids.map { $0.compactMap { state.tasks[$0] } } ?? Array(state.tasks.values) }
    }
}

extension DeviceRuntime: PushBatching {
    package func holdSubmissions() { store.holdCommits() }

    package func releaseSubmissions() { store.releaseCommits() }
}
