import SilentPushCore
import SilentPushStore

/// The device side's decisions and what they leave to do, as one state machine: the wake
/// policy, the wakes running, and the store changes queued in the policy's order.
///
/// Every event method is `mutating`, takes the device time as `now`, and adds what must
/// happen to `actions` (store changes, fetches to start or cancel, callers to resume, metric
/// events, a timer to arm). It does no I/O, reads no clock and takes no lock:
/// `DeviceRuntime` calls it under its lock and carries the actions out after releasing it.
struct DeviceRecorder {
    typealias App = DeviceRuntime.AppKey
    typealias Policy = WakePolicy<App, DeviceInstant>
    typealias Action = WakeAction<App, DeviceInstant>
    typealias Start = WakeStart<App, DeviceInstant>

    /// A wake whose fetch runs.
    struct Running {
        var start: Start
        /// Raised to cancel its handler (deadline passed, or the receiver stops).
        let cancellation = AsyncSignal()
        /// Callers waiting for the wake to end (a manual-clock advance about to cross its
        /// deadline, a shutdown).
        var waiters = Waiters()
    }

    /// Where the recorder is in its life.
    enum Lifecycle {
        /// Takes pushes and starts wakes.
        case running
        /// Shutting down: takes no push and starts no wake; running fetches may still answer.
        case stopping
    }

    /// What an event leaves to do once the lock is released, in this order: hand the store
    /// changes over, then start and cancel fetches, resume callers, count.
    struct Actions {
        /// Store changes, in the order they happened.
        var changes: [StoreChange] = []
        /// Called once `changes` are committed: the caller of the event, or (by default)
        /// the runtime's logging of a failure. One event per step, so one caller at most.
        private(set) var completion: PushStore.Completion
        /// A caller waits for `completion`: it is handed to the store even when the step
        /// changed nothing, and runs once what was queued before is committed.
        private(set) var awaitsCommit = false
        /// Fetches to start; with the `Wake` when the push was in hand, and the signal that
        /// cancels the handler.
        var runs: [(start: Start, wake: Wake?, cancellation: AsyncSignal)] = []
        /// Handlers to cancel (their wake passed its deadline, or the receiver stops).
        var cancels: [AsyncSignal] = []
        /// Callers waiting for wakes that ended.
        var resumes: [CheckedContinuation<Void, Never>] = []
        var metrics = DeviceMetrics.Events()
        /// The earliest policy deadline, when it moved before the timer armed (system clock).
        var armTimer: DeviceInstant?
        /// Background task runs to start, to expire (expiration handler, then cancellation),
        /// to terminate, and that ended.
        var taskRuns: [BackgroundTask] = []
        var taskExpirations: [BackgroundTask] = []
        var taskTerminations: [BackgroundTask] = []
        var tasksEnded: [BackgroundTask] = []

        init(completion: @escaping PushStore.Completion) {
            self.completion = completion
        }

        /// The event's caller waits for its changes with `completion`.
        mutating func observe(_ completion: @escaping PushStore.Completion) {
            self.completion = completion
            awaitsCommit = true
        }

        var isEmpty: Bool {
            changes.isEmpty && runs.isEmpty && cancels.isEmpty && resumes.isEmpty && metrics.isEmpty && armTimer == nil
                && taskRuns.isEmpty && taskExpirations.isEmpty && taskTerminations.isEmpty && tasksEnded.isEmpty
        }
    }

    private(set) var policy: Policy
    private(set) var running: [UInt64: Running] = [:]
    /// Background task runs in progress, by run id.
    private(set) var runningTasks: [UInt64: BackgroundTask] = [:]
    private(set) var lifecycle = Lifecycle.running
    /// When the system-clock timer fires next; nil: not armed (or a manual clock).
    private var armedTimer: DeviceInstant?
    private let armsTimers: Bool
    private var nextWaiterToken: UInt64 = 0
    /// What the pending-slots gauge shows: it is set only when the count moves.
    private var reportedPendingSlots = 0
    private var actions: Actions
    /// What store changes no caller waits for report to.
    private let unobserved: PushStore.Completion

    /// A recorder over `policy`; `armsTimers`: the device runs on the system clock, so policy
    /// deadlines need a timer. `unobserved` is told the outcome of changes no caller waits for.
    init(policy: Policy, armsTimers: Bool, unobserved: @escaping PushStore.Completion) {
        self.policy = policy
        self.armsTimers = armsTimers
        self.unobserved = unobserved
        actions = Actions(completion: unobserved)
    }

    /// Hands over what the events since the last call left to do.
    mutating func takeActions() -> Actions {
        if armsTimers, let next = policy.nextDeadline, armedTimer.map({ next < $0 }) ?? true {
            armedTimer = next
            actions.armTimer = next
        }
        if policy.pendingSlotCount != reportedPendingSlots {
            reportedPendingSlots = policy.pendingSlotCount
            actions.metrics.pendingSlots = reportedPendingSlots
        }
        // Swapped out, not copied: a copy retains each of the actions' arrays, once per step.
        var taken = Actions(completion: unobserved)
        swap(&taken, &actions)
        return taken
    }

    // MARK: - Events

    /// A push APNs accepted, recorded as `record`; `incoming` is what the policy sees (nil:
    /// it can never wake the app and is recorded dropped as it is). `completion` runs once
    /// its row is committed. Returns false, doing nothing, while stopping.
    mutating func receive(
        _ record: consuming PushRecord, incoming: IncomingPush<DeviceInstant>?, now: DeviceInstant,
        completion: @escaping PushStore.Completion
    ) -> Bool {
        guard case .running = lifecycle else { return false }
        actions.observe(completion)
        guard let incoming else {
            if let reason = record.fate.dropReason { actions.metrics.dropped(reason) }
            actions.changes.append(.insertPush(record))
            apply(policy.advance(to: now))
            return true
        }
        // The push's own row comes first, written with the fate its actions give it: its slot
        // is held by a placeholder meanwhile, so the record is moved, not copied.
        let row = actions.changes.count
        actions.changes.reserveCapacity(row + 4)  // the row, a wake, its push's fate, the slot's close
        actions.changes.append(.probe(at: 0))
        let app = App(device: record.deviceToken, topic: record.topic)
        var inserting: PushRecord? = consume record
        var policyActions = policy.receive(incoming, for: app, now: now)
        apply(policyActions, inserting: &inserting)
        policy.recycle(&policyActions)
        if let pushRow = inserting.take() { actions.changes[row] = .insertPush(pushRow) }
        return true
    }

    /// A request APNs refused, as its row. Returns false, doing nothing, while stopping.
    mutating func reject(_ record: PushRecord) -> Bool {
        guard case .running = lifecycle else { return false }
        actions.changes.append(.insertPush(record))
        return true
    }

    /// The handler of `start` answered `result`. Returns the result the wake ends with:
    /// `deadlineExceeded` when it was already cancelled at its deadline (the answer is ignored).
    mutating func fetchCompleted(_ start: Start, result: FetchResult, now: DeviceInstant) -> FetchResult {
        guard running[start.wakeID] != nil else { return .deadlineExceeded }
        switch lifecycle {
        case .stopping:
            // Record the answer but start nothing new: what waits stays pending in the store
            // for the next run.
            end(start.wakeID)
            actions.changes.append(.finishWake(id: start.wakeID, finishedAt: now.millisecondsSinceEpoch, result: result.name, reason: result.reason))
            return result
        case .running:
            let (accepted, policyActions) = policy.fetchCompleted(wakeID: start.wakeID, app: start.app, now: now)
            if accepted {
                end(start.wakeID)
                actions.changes.append(
                    .finishWake(id: start.wakeID, finishedAt: now.millisecondsSinceEpoch, result: result.name, reason: result.reason))
            }
            apply(policyActions)
            return accepted ? result : .deadlineExceeded
        }
    }

    /// Keeps what wake `wakeID`'s handler wrote to stderr with the wake.
    mutating func recordErrorOutput(_ text: String, wakeID: UInt64) {
        actions.changes.append(.setWakeErrorOutput(id: wakeID, text: text))
    }

    /// Fires the policy's timers due by `now`.
    mutating func advance(to now: DeviceInstant) {
        guard case .running = lifecycle else { return }
        apply(policy.advance(to: now))
    }

    /// The system-clock timer for `at` fired. Before `at` (the sleep ended early, or was cut
    /// short to look at the clock again) the timer stays armed for it: re-arming would wake
    /// the timer at once, which would find it early again, without end.
    mutating func timerFired(at: DeviceInstant, now: DeviceInstant) {
        if armedTimer == at, now >= at { armedTimer = nil }
        advance(to: now)
    }

    /// `device`'s state changed; `completion` runs once the change is committed.
    mutating func setDeviceState(_ new: DeviceState, for device: String, now: DeviceInstant, completion: @escaping PushStore.Completion) {
        actions.observe(completion)
        actions.changes.append(.setDevice(token: device, state: new))
        apply(policy.setDeviceState(new, for: device, now: now))
    }

    /// The user opened the app at `opened` (see `WakePolicy.setLastOpened`).
    mutating func setLastOpened(_ opened: DeviceInstant?, for app: App, now: DeviceInstant, completion: @escaping PushStore.Completion) {
        actions.observe(completion)
        actions.changes.append(.setLastOpened(deviceToken: app.device, topic: app.topic, at: opened?.millisecondsSinceEpoch))
        apply(policy.setLastOpened(opened, for: app, now: now))
    }

    /// `device` restarted (see `WakePolicy.reboot`).
    mutating func reboot(_ device: String, now: DeviceInstant, completion: @escaping PushStore.Completion) {
        actions.observe(completion)
        apply(policy.reboot(device, now: now))
    }

    /// Forgets `device` (nil: every device), its records with it.
    mutating func forget(_ device: String?, now: DeviceInstant, completion: @escaping PushStore.Completion) {
        actions.observe(completion)
        guard case .running = lifecycle else { return }
        if let device {
            apply(policy.forget(device, now: now))
            actions.changes.append(.forgetDevice(token: device))
        } else {
            apply(policy.forgetAll(now: now))
            actions.changes.append(.forgetEverything)
        }
    }

    // MARK: Background tasks

    /// The app submitted a task request (`record`, declared as `declaration`). Returns
    /// Apple's error when it is refused; nothing is recorded then. `completion` runs once
    /// the accepted request is committed.
    mutating func submitTask(
        _ record: TaskRequestRecord, declaration: AppDeclaration?, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> TaskSubmitError? {
        guard case .running = lifecycle else { return .unavailable }
        let app = App(device: record.deviceToken, topic: record.topic)
        let (error, policyActions) = policy.submitTask(record.request, for: app, declaration: declaration, now: now)
        if error == nil {
            actions.observe(completion)
            actions.changes.append(.insertTaskRequest(record))
        }
        apply(policyActions)
        return error
    }

    /// The app cancelled its request `identifier` (nil: every request). Returns how many
    /// were pending.
    mutating func cancelTasks(identifier: String?, for app: App, now: DeviceInstant, completion: @escaping PushStore.Completion) -> Int {
        actions.observe(completion)
        guard case .running = lifecycle else { return 0 }
        if let identifier {
            let (found, policyActions) = policy.cancelTask(identifier: identifier, for: app, now: now)
            apply(policyActions)
            return found ? 1 : 0
        }
        let count = policy.pendingTasks(of: app).count
        apply(policy.cancelAllTasks(for: app, now: now))
        return count
    }

    /// The debugger launches (`expire` false) or expires the task `identifier`. Returns
    /// whether there was one to launch (pending) or to expire (running).
    mutating func simulateTask(
        _ identifier: String, expire: Bool, for app: App, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Bool {
        actions.observe(completion)
        guard case .running = lifecycle else { return false }
        let (found, policyActions) =
            expire
            ? policy.simulateTaskExpiration(identifier: identifier, for: app, now: now)
            : policy.simulateTaskLaunch(identifier: identifier, for: app, now: now)
        apply(policyActions)
        return found
    }

    /// What a running task's handler reported.
    mutating func taskReport(_ report: BackgroundTask.Report, runID: UInt64, app: App, now: DeviceInstant) {
        // Stopping, the runs still going were recorded ended (`cutRunningTasks`).
        guard case .running = lifecycle else { return }
        switch report {
        case .completed(let success):
            apply(policy.taskCompleted(runID: runID, app: app, success: success, now: now).actions)
        case .progress(let completed, let total):
            guard policy.taskProgress(runID: runID, app: app, completed: completed, total: total) else { return }
            actions.changes.append(.setTaskProgress(id: runID, completed: max(0, min(completed, total)), total: max(0, total)))
        }
    }

    /// Puts back a request a restarted receiver found pending.
    mutating func restoreTask(_ record: TaskRequestRecord, now: DeviceInstant) {
        apply(policy.restoreTask(record.request, for: App(device: record.deviceToken, topic: record.topic), now: now))
    }

    /// Puts back an app as a restarted receiver found it (see `WakePolicy.restore`).
    mutating func restore(app: App, generation: UInt32, nextAllowed: DeviceInstant?, pending: IncomingPush<DeviceInstant>?, now: DeviceInstant) {
        apply(policy.restore(app: app, generation: generation, nextAllowed: nextAllowed, pending: pending, now: now))
    }

    /// Changes that need no policy step (a restart's repairs); nothing waits on them.
    mutating func write(_ changes: [StoreChange]) {
        actions.changes.append(contentsOf: changes)
    }

    /// A token for `addWaiter`.
    mutating func makeWaiterToken() -> UInt64 {
        nextWaiterToken += 1
        return nextWaiterToken
    }

    /// Resumes `continuation` when `wakeID` ends. Returns false when it is not running.
    mutating func addWaiter(_ continuation: Waiters.Continuation, token: UInt64, for wakeID: UInt64) -> Bool {
        guard running[wakeID] != nil else { return false }
        running[wakeID]?.waiters.add(continuation, token: token)
        return true
    }

    /// The waiter `token` gave up (cancelled): its continuation, to resume.
    mutating func removeWaiter(token: UInt64, for wakeID: UInt64) -> Waiters.Continuation? {
        running[wakeID]?.waiters.remove(token: token)
    }

    /// One step of moving a manual clock to `target`.
    enum AdvanceStep {
        /// The clock moved to `to`, where the policy's next timer fired; step again.
        case fired(to: DeviceInstant)
        /// Before the next timer, these running wakes reach their deadline: give their
        /// handlers time to answer, then step again.
        case wait([UInt64])
        /// Before the next timer, these task runs may expire or be terminated: give their
        /// handlers time to end, then step again.
        case waitTasks([BackgroundTask])
        /// The clock reached the target.
        case done
    }

    /// A task run an advance has waited for, in the phase it waited in: a run waited for
    /// before its expiry is waited for again before its termination, for its grace.
    struct TaskWait: Hashable {
        var runID: UInt64
        var expired: Bool

        init(_ task: BackgroundTask) {
            runID = task.runID
            expired = task.isExpired
        }
    }

    /// Moves toward `target`: up to the next timer inside the span, unless a running wake
    /// not yet `waited` for would pass its deadline there.
    mutating func advanceStep(toward target: DeviceInstant, waited: Set<UInt64>, waitedTasks: Set<TaskWait> = []) -> AdvanceStep {
        guard let next = policy.nextDeadline, next <= target else {
            advance(to: target)
            return .done
        }
        let due = running.values.filter { $0.start.deadline <= next && !waited.contains($0.start.wakeID) }
        if !due.isEmpty { return .wait(due.map(\.start.wakeID)) }
        // A task about to expire or be terminated: its handler first gets real time to end.
        let dueTasks = runningTasks.values.filter { task in
            guard !waitedTasks.contains(TaskWait(task)) else { return false }
            if task.isExpired { return true }  // its grace ends at the next timer or later
            return task.deadline.map { $0 <= next } ?? false
        }
        if !dueTasks.isEmpty { return .waitTasks(dueTasks) }
        advance(to: next)
        return .fired(to: next)
    }

    /// Ends every task run still running at `now` (the receiver stops): each is recorded
    /// `terminated` and its handler stopped, as a device shutting down ends it.
    mutating func cutRunningTasks(now: DeviceInstant) {
        for (runID, task) in runningTasks {
            actions.changes.append(.finishTaskRun(id: runID, at: now.millisecondsSinceEpoch, outcome: .terminated))
            actions.taskTerminations.append(task)
            actions.tasksEnded.append(task)
        }
        runningTasks = [:]
    }

    /// Stops taking pushes and starting wakes; returns the wakes still running.
    mutating func beginShutdown() -> [UInt64] {
        lifecycle = .stopping
        return Array(running.keys)
    }

    /// Ends every wake still running at `now` (a shutdown's grace is over): each is recorded
    /// failed, `deadlineExceeded` if past its deadline, else `shutdown`, and its task cancelled.
    mutating func cutRunning(now: DeviceInstant) {
        for wakeID in Array(running.keys) {
            guard let wake = end(wakeID, cancelling: true) else { continue }
            // Timers no longer fire while stopping: a wake past its deadline overran.
            let overran = now >= wake.start.deadline
            actions.changes.append(
                .finishWake(
                    id: wakeID, finishedAt: min(now, wake.start.deadline).millisecondsSinceEpoch,
                    result: FetchResult.failed(reason: "").name, reason: overran ? FetchResult.deadlineExceeded.reason : "shutdown"))
        }
    }

    // MARK: - Policy actions

    /// The wake leaves `running`: its waiters are resumed and, when `cancelling`, its
    /// handler is cancelled. Returns it, if it was running.
    @discardableResult
    private mutating func end(_ wakeID: UInt64, cancelling: Bool = false) -> Running? {
        guard var wake = running.removeValue(forKey: wakeID) else { return nil }
        actions.resumes.append(contentsOf: wake.waiters.removeAll())
        if cancelling { actions.cancels.append(wake.cancellation) }
        return wake
    }

    private mutating func apply(_ policyActions: [Action]) {
        var none: PushRecord?
        apply(policyActions, inserting: &none)
    }

    /// Turns the policy's actions into store changes, fetches and metric events. The fate of
    /// `inserting`, a push not yet written, goes into its row instead of an update after it
    /// (one statement fewer per push).
    private mutating func apply(_ policyActions: [Action], inserting: inout PushRecord?) {
        func settle(_ push: UInt64, _ fate: PushFate, generation: UInt32?) {
            if inserting?.id == push {
                inserting?.fate = fate
                if let generation { inserting?.generation = generation }
            } else {
                actions.changes.append(.setFate(push: push, fate: fate, generation: generation))
            }
        }
        /// Closes the slot generation `head` waited last in, unless `head` is the push in
        /// hand and replaced none (nothing was coalesced before it).
        func close(_ head: UInt64, _ fate: PushFate) {
            if inserting?.id == head, inserting?.replaced == nil { return }
            actions.changes.append(.closeGeneration(head: head, fate: fate))
        }
        for action in policyActions {
            switch action {
            case .pending(let push, _, let generation, let why):
                settle(push, .pending(why), generation: generation)
            case .coalesced(let push, _, let generation, let atAPNs):
                // Only an arriving push replaces the one waiting: it heads the slot's chain,
                // which records the coalescing; the replaced push's row is left as it is,
                // unless APNs replaced it (offline), which its row says.
                if inserting != nil {
                    inserting?.replaced = push
                } else {
                    settle(push, .coalesced, generation: generation)
                }
                if atAPNs { actions.changes.append(.setCoalescedByAPNs(push: push)) }
            case .startWake(let start):
                actions.changes.append(
                    .insertWake(
                        WakeRecord(
                            id: start.wakeID, deviceToken: start.app.device, topic: start.app.topic, pushID: start.push,
                            generation: start.generation, startedAt: start.startedAt, deadline: start.deadline)))
                settle(start.push, .delivered(by: start.wakeID), generation: nil)
                close(start.push, .delivered(by: start.wakeID))
                let wake = Running(start: start)
                running[start.wakeID] = wake
                // The push in hand, with nothing coalesced, needs no read from the store.
                var delivery: Wake?
                if let push = inserting, push.id == start.push, push.replaced == nil {
                    delivery = Wake(start, delivering: push, coalesced: [])
                }
                actions.runs.append((start, delivery, wake.cancellation))
                actions.metrics.wakesStarted += 1
                actions.metrics.delivered += 1
                actions.metrics.coalesced += start.coalescedCount
            case .expired(let push, _, _, let coalesced):
                settle(push, .expired, generation: nil)
                actions.metrics.expired += 1 + coalesced
                close(push, .expired)
            case .dropped(let push, _, let reason, let generation, let coalesced):
                settle(push, .dropped(reason), generation: nil)
                actions.metrics.dropped(reason, count: 1 + coalesced)
                if generation != nil { close(push, .dropped(reason)) }
            case .cancelWake(let wakeID, _):
                guard let wake = end(wakeID, cancelling: true) else { continue }
                actions.changes.append(
                    .finishWake(
                        id: wakeID, finishedAt: wake.start.deadline.millisecondsSinceEpoch,
                        result: FetchResult.deadlineExceeded.name, reason: FetchResult.deadlineExceeded.reason))
            case .taskPending(let request, _, let why):
                actions.changes.append(.setTaskRequest(id: request, state: .pending, why: why.stored, at: nil))
            case .startTask(let start):
                actions.changes.append(
                    .setTaskRequest(id: start.request.id, state: .launched, why: nil, at: start.startedAt.millisecondsSinceEpoch))
                actions.changes.append(
                    .insertTaskRun(
                        TaskRunRecord(
                            id: start.runID, requestID: start.request.id, deviceToken: start.app.device, topic: start.app.topic,
                            identifier: start.request.identifier, kind: start.request.kind, startedAt: start.startedAt,
                            deadline: start.deadline, simulated: start.simulated)))
                let task = BackgroundTask(start)
                runningTasks[start.runID] = task
                actions.taskRuns.append(task)
                actions.metrics.taskRunsStarted += 1
            case .expireTask(let runID, _, let at):
                actions.changes.append(.expireTaskRun(id: runID, at: at.millisecondsSinceEpoch))
                if let task = runningTasks[runID] { actions.taskExpirations.append(task) }
            case .terminateTask(let runID, _):
                if let task = runningTasks[runID] { actions.taskTerminations.append(task) }
            case .taskEnded(let runID, _, let outcome, let at):
                actions.changes.append(.finishTaskRun(id: runID, at: at.millisecondsSinceEpoch, outcome: outcome))
                if let task = runningTasks.removeValue(forKey: runID) { actions.tasksEnded.append(task) }
                actions.metrics.taskEnded(outcome)
            case .taskRequestEnded(let request, _, let outcome, let at):
                actions.changes.append(
                    .setTaskRequest(id: request, state: outcome == .replaced ? .replaced : .cancelled, why: nil, at: at.millisecondsSinceEpoch))
                actions.metrics.taskEnded(outcome)
            }
        }
    }
}

extension Wake {
    /// What the handler gets for `start`, which delivers `push`.
    init(_ start: DeviceRecorder.Start, delivering push: PushRecord, coalesced: [String]) {
        self.init(
            id: start.wakeID, deviceToken: start.app.device, topic: start.app.topic, apnsID: push.apnsID,
            payload: push.payload, priority: APNsPriority(rawValue: push.priority) ?? .high, coalescedAPNsIDs: coalesced,
            startedAt: start.startedAt, deadline: start.deadline)
    }
}
