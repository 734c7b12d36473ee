/// Background tasks (BackgroundTasks framework) beside pushes: requests submitted, held by the
/// same device factors, budget and fetch slots, launched, expired and terminated.
/// `docs/background-tasks.md` gives each rule's source.
extension WakePolicy {
    /// A request waiting to run, with what the policy last said holds it.
    @usableFromInline struct PendingTask: Sendable {
        @usableFromInline var request: TaskRequest<Instant>
        @usableFromInline var why: WaitReason<Instant>?

        @inlinable init(request: TaskRequest<Instant>) { self.request = request }
    }

    /// A task run in progress.
    @usableFromInline struct RunningTask: Sendable {
        @usableFromInline var start: TaskStart<App, Instant>
        /// When its expiration handler was called, if it was.
        @usableFromInline var expiredAt: Instant?
        /// A continued task's last reported progress.
        @usableFromInline var completed: Int64 = 0
        @usableFromInline var total: Int64 = 0

        @inlinable init(start: TaskStart<App, Instant>) { self.start = start }

        /// Progress as a fraction, for "least progress first".
        @inlinable var progress: Double { total > 0 ? Double(completed) / Double(total) : 0 }
    }

    /// One app's task requests and runs.
    @usableFromInline struct AppTasks: Sendable {
        @usableFromInline var pending: [PendingTask] = []
        @usableFromInline var running: [RunningTask] = []
        /// A task of the app was terminated: launches wait until then.
        @usableFromInline var penaltyUntil: Instant?
        @usableFromInline var timerStamp: UInt32 = 0
        @usableFromInline var armedAt: Instant?
        /// The app is in `tasksWaitingForSlot` (a request was ready when every fetch slot was
        /// taken): queued again only once this is cleared; an entry left by an app whose tasks
        /// were forgotten meanwhile is skipped.
        @usableFromInline var waitingForSlot = false

        @inlinable init() {}

        @inlinable var isEmpty: Bool { pending.isEmpty && running.isEmpty && penaltyUntil == nil }
    }

    /// At most this many requests of a kind may be pending per app (Apple: "an app can have
    /// only one refresh task and up to ten processing tasks scheduled at a time").
    @inlinable static func pendingLimit(_ kind: BackgroundTaskKind) -> Int? {
        switch kind {
        case .refresh: 1
        case .processing: 10
        case .continued, .urlSession: nil
        }
    }

    // MARK: - Events

    /// The app submitted `request` (`BGTaskScheduler.submit`), declared as `declaration`
    /// (nil: the app declares nothing). A request with the same identifier already pending is
    /// replaced. On an error nothing changes but the timers due by `now`, whose actions are
    /// returned either way.
    @inlinable public mutating func submitTask(
        _ request: TaskRequest<Instant>, for app: App, declaration: AppDeclaration?, now: Instant
    ) -> (error: TaskSubmitError?, actions: [WakeAction<App, Instant>]) {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        if let error = submitError(request, for: app, declaration: declaration, now: now) { return (error, actions) }
        let key = Int32(index(of: app))
        var appTasks = tasks[key] ?? AppTasks()
        if let old = appTasks.pending.firstIndex(where: { $0.request.identifier == request.identifier }) {
            let replaced = appTasks.pending.remove(at: old)
            actions.append(.taskRequestEnded(request: replaced.request.id, app: app, outcome: .replaced, at: now))
        }
        appTasks.pending.append(PendingTask(request: request))
        tasks[key] = appTasks
        evaluateTasks(Int(key), now: now, announce: true, into: &actions)
        return (nil, actions)
    }

    /// Why `request` may not be submitted now, if it may not.
    @inlinable func submitError(_ request: TaskRequest<Instant>, for app: App, declaration: AppDeclaration?, now: Instant) -> TaskSubmitError? {
        guard declaration?.permits(request.identifier, kind: request.kind) == true else { return .notPermitted }
        let device = deviceState(app.device)
        if request.kind != .continued, !device.backgroundRefresh, settings.throttling != .off { return .unavailable }
        let slot = apps.index(of: app)
        let pending = slot.flatMap { tasks[Int32($0)]?.pending } ?? []
        if let limit = Self.pendingLimit(request.kind) {
            let others = pending.filter { $0.request.kind == request.kind && $0.request.identifier != request.identifier }
            if others.count >= limit { return .tooManyPendingTaskRequests }
        }
        if request.kind == .continued, request.strategy == .fail, immediateRunHold(request, of: app, at: slot, now: now) != nil {
            return .immediateRunIneligible
        }
        return nil
    }

    /// What keeps the continued task `request` of `app` from starting at `now` (nil: nothing),
    /// which refuses it `immediateRunIneligible` under the `fail` strategy; read after that
    /// refusal, at the same `now`, to say why.
    @inlinable package func immediateRunHold(_ request: TaskRequest<Instant>, of app: App, now: Instant) -> WaitReason<Instant>? {
        immediateRunHold(request, of: app, at: apps.index(of: app), now: now)
    }

    @inlinable func immediateRunHold(_ request: TaskRequest<Instant>, of app: App, at slot: Int?, now: Instant) -> WaitReason<Instant>? {
        switch taskReadiness(request, of: app, at: slot, now: now) {
        case .at(_, let why), .held(let why): return why
        case .now:
            let running = continuedRunning(on: app.device)
            return running < settings.continuedTaskCapacity ? nil : .continuedSlots(running: running, capacity: settings.continuedTaskCapacity)
        }
    }

    /// The app cancelled the pending request `identifier` (`cancel(taskRequestWithIdentifier:)`).
    /// Returns whether one was pending. A relaunch for a `URLSession` (kind `urlSession`) is
    /// the system's, not `BGTaskScheduler`'s: no cancel reaches it.
    @inlinable public mutating func cancelTask(identifier: String, for app: App, now: Instant) -> (found: Bool, actions: [WakeAction<App, Instant>]) {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        guard let slot = apps.index(of: app),
            let found = tasks[Int32(slot)]?.pending.firstIndex(where: { $0.request.identifier == identifier && $0.request.kind != .urlSession })
        else { return (false, actions) }
        let cancelled = tasks[Int32(slot)]!.pending.remove(at: found)
        actions.append(.taskRequestEnded(request: cancelled.request.id, app: app, outcome: .cancelled, at: now))
        evaluateTasks(slot, now: now, announce: false, into: &actions)
        return (true, actions)
    }

    /// The app cancelled every pending request (`cancelAllTaskRequests()`), but the system's
    /// relaunches for its `URLSession`s.
    @inlinable public mutating func cancelAllTasks(for app: App, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        if let slot = apps.index(of: app) { cancelPendingTasks(at: slot, now: now, into: &actions) { $0.kind != .urlSession } }
        return actions
    }

    /// Cancels the pending requests of the app at `slot` that `cancels` selects.
    @inlinable mutating func cancelPendingTasks(
        at slot: Int, now: Instant, into actions: inout [WakeAction<App, Instant>], _ cancels: (TaskRequest<Instant>) -> Bool
    ) {
        guard let pending = tasks[Int32(slot)]?.pending else { return }
        tasks[Int32(slot)]!.pending = pending.filter { !cancels($0.request) }
        for task in pending where cancels(task.request) {
            actions.append(.taskRequestEnded(request: task.request.id, app: apps[slot], outcome: .cancelled, at: now))
        }
        evaluateTasks(slot, now: now, announce: false, into: &actions)
    }

    /// The handler called `setTaskCompleted(success:)`. Returns false, changing nothing,
    /// when the run already ended (terminated, or never started).
    @inlinable public mutating func taskCompleted(
        runID: UInt64, app: App, success: Bool, now: Instant
    ) -> (accepted: Bool, actions: [WakeAction<App, Instant>]) {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        guard let slot = apps.index(of: app), let run = removeRun(runID, at: slot) else { return (false, actions) }
        let outcome = TaskOutcome.completion(success: success, expired: run.expiredAt != nil)
        actions.append(.taskEnded(runID: runID, app: app, outcome: outcome, at: now))
        runEnded(run, at: slot, now: now, into: &actions)
        return (true, actions)
    }

    /// Run `runID`'s grace after its expiration handler is over in real time, and its handler
    /// is gone without completing (a manual clock, where the grace's timer waits for the clock
    /// to move): it is terminated now, as the timer would. Nothing when it is not an expired
    /// run still running.
    @inlinable public mutating func taskGraceOver(runID: UInt64, app: App, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        guard let slot = apps.index(of: app), tasks[Int32(slot)]?.running.contains(where: { $0.start.runID == runID && $0.expiredAt != nil }) == true
        else { return actions }
        terminateTask(slot, runID: runID, now: now, into: &actions)
        return actions
    }

    /// A continued task reported progress (`completed` of `total` units). Returns false when
    /// the run is not running.
    @inlinable public mutating func taskProgress(runID: UInt64, app: App, completed: Int64, total: Int64) -> Bool {
        guard let slot = apps.index(of: app), let index = tasks[Int32(slot)]?.running.firstIndex(where: { $0.start.runID == runID }) else {
            return false
        }
        tasks[Int32(slot)]!.running[index].completed = max(0, min(completed, total))
        tasks[Int32(slot)]!.running[index].total = max(0, total)
        return true
    }

    /// The debugger's `_simulateLaunchForTaskWithIdentifier`: launches the pending request
    /// `identifier` now, whatever holds it. Returns whether one was pending.
    @inlinable public mutating func simulateTaskLaunch(
        identifier: String, for app: App, now: Instant
    ) -> (found: Bool, actions: [WakeAction<App, Instant>]) {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        guard let slot = apps.index(of: app), let found = tasks[Int32(slot)]?.pending.firstIndex(where: { $0.request.identifier == identifier })
        else { return (false, actions) }
        let task = tasks[Int32(slot)]!.pending.remove(at: found)
        startTask(slot, task.request, now: now, simulated: true, into: &actions)
        evaluateTasks(slot, now: now, announce: false, into: &actions)
        return (true, actions)
    }

    /// The debugger's `_simulateExpirationForTaskWithIdentifier`: the running task
    /// `identifier`'s time is up now. Returns whether one was running (and not yet expired).
    @inlinable public mutating func simulateTaskExpiration(
        identifier: String, for app: App, now: Instant
    ) -> (found: Bool, actions: [WakeAction<App, Instant>]) {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        guard let slot = apps.index(of: app),
            let run = tasks[Int32(slot)]?.running.first(where: { $0.start.request.identifier == identifier && $0.expiredAt == nil })
        else { return (false, actions) }
        expireTask(slot, runID: run.start.runID, now: now, into: &actions)
        return (true, actions)
    }

    /// Every transfer of the app's background `URLSession` `session` has ended: the app is to
    /// be relaunched for it (`handleEventsForBackgroundURLSession`), as request `requestID`
    /// of kind `urlSession`. The relaunch is a background launch like any other: held by
    /// force-quit, Background App Refresh off, heat, Low Power Mode and a low battery, the
    /// app's usage and the device's budget, but not by the app's fetch interval.
    @inlinable public mutating func relaunch(session: String, requestID: UInt64, for app: App, now: Instant) -> [WakeAction<App, Instant>] {
        restoreTask(TaskRequest(id: requestID, identifier: session, kind: .urlSession), for: app, now: now)
    }

    /// Puts back a request a restarted receiver found pending in its store.
    @inlinable public mutating func restoreTask(_ request: TaskRequest<Instant>, for app: App, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        let key = Int32(index(of: app))
        tasks[key, default: AppTasks()].pending.append(PendingTask(request: request))
        evaluateTasks(Int(key), now: now, announce: true, into: &actions)
        return actions
    }

    // MARK: - Reading

    /// The app's pending requests, oldest first, each with what holds it.
    @inlinable public func pendingTasks(of app: App) -> [(request: TaskRequest<Instant>, why: WaitReason<Instant>?)] {
        guard let slot = apps.index(of: app) else { return [] }
        return tasks[Int32(slot)]?.pending.map { ($0.request, $0.why) } ?? []
    }

    /// The app's running tasks.
    @inlinable public func runningTasks(of app: App) -> [TaskStart<App, Instant>] {
        guard let slot = apps.index(of: app) else { return [] }
        return tasks[Int32(slot)]?.running.map(\.start) ?? []
    }

    // MARK: - Internals

    /// Continued tasks running on `device`.
    @inlinable func continuedRunning(on device: App.Device) -> Int {
        var count = 0
        for (slot, appTasks) in tasks where apps[Int(slot)].device == device {
            count += appTasks.running.count { $0.start.request.kind == .continued }
        }
        return count
    }

    /// Whether `request` may launch now, from when, or not until something changes, and why.
    /// The order follows the pushes': what the app declared and the device allow first,
    /// then the throttling rules, then the schedule (interval, warm-up, budget).
    @inlinable func taskReadiness(_ request: TaskRequest<Instant>, of key: App, at slot: Int?, now: Instant) -> Readiness {
        var at = now
        var why: WaitReason<Instant>?
        if let earliest = request.earliestBegin, earliest > now {
            at = earliest
            why = .earliestBegin(until: earliest)
        }
        let soon: Readiness = why.map { .at(at, $0) } ?? .now
        guard settings.throttling != .off else { return soon }
        let device = devices.isEmpty ? nil : devices[key.device]
        let state = device?.state ?? DeviceState()
        if request.kind == .continued {
            // Started by the user in the foreground: only a critical device holds it, an app
            // force-quit (its process is gone until it is opened again), or a restart's
            // warm-up (nothing of the app runs before it).
            if state.forceQuit { return .held(.forceQuit) }
            if state.thermalState == .critical { return .held(.thermal(.critical)) }
            if let warm = device?.warmUntil, warm > now, warm > at { return .at(warm, .rebootWarmup(until: warm)) }
            return soon
        }
        if !state.backgroundRefresh { return .held(.backgroundRefreshOff) }
        if state.forceQuit { return .held(.forceQuit) }
        if state.network == .offline, request.kind == .refresh || request.requiresNetworkConnectivity { return .held(.offline) }
        if request.kind == .processing {
            if request.requiresExternalPower, !state.charging { return .held(.externalPower) }
            if !state.idle { return .held(.deviceInUse) }
        }
        if settings.throttling == .debugger || state.debuggerAttached { return soon }
        if state.thermalState == .critical { return .held(.thermal(.critical)) }
        if let why = discretionaryHold(state) { return .held(why) }
        let usage: Int
        switch usageFactor(of: key, now: now) {
        case .success(let factor): usage = factor
        case .failure(let held): return .held(held.reason)
        }
        if let slot, let penalty = tasks[Int32(slot)]?.penaltyUntil, penalty > at {
            at = penalty
            why = .taskPenalty(until: penalty)
        }
        let app = slot.map { states[$0] } ?? AppState()
        // A refresh is a background launch like a wake: the app's interval applies to both.
        return scheduled(app, of: key, at: slot, device: device, usage: usage, interval: request.kind == .refresh, from: at, why: why, now: now)
    }

    /// Launches what of the app's pending requests may launch now, says why the others wait,
    /// and arms the app's task timer for the earliest of them.
    @inlinable mutating func evaluateTasks(_ slot: Int, now: Instant, announce force: Bool, into actions: inout [WakeAction<App, Instant>]) {
        let key = Int32(slot)
        guard tasks[key] != nil else { return }
        var next: Instant?
        var index = 0
        while let count = tasks[key]?.pending.count, index < count {
            let request = tasks[key]!.pending[index].request
            switch taskReadiness(request, of: apps[slot], at: slot, now: now) {
            case .now:
                if request.kind == .continued {
                    let running = continuedRunning(on: apps[slot].device)
                    if running < settings.continuedTaskCapacity {
                        tasks[key]!.pending.remove(at: index)
                        startTask(slot, request, now: now, simulated: false, into: &actions)
                        continue
                    }
                    announceTask(
                        key, index, .continuedSlots(running: running, capacity: settings.continuedTaskCapacity), force: force, into: &actions)
                } else if settings.maximumConcurrentFetches.map({ runningFetches < $0 }) ?? true {
                    tasks[key]!.pending.remove(at: index)
                    startTask(slot, request, now: now, simulated: false, into: &actions)
                    continue
                } else {
                    announceTask(
                        key, index, .fetchSlots(running: runningFetches, cap: settings.maximumConcurrentFetches ?? 0), force: force, into: &actions)
                    if !tasks[key]!.waitingForSlot {
                        tasks[key]!.waitingForSlot = true
                        tasksWaitingForSlot.append(key)
                    }
                }
            case .at(let at, let why):
                announceTask(key, index, why, force: force, into: &actions)
                next = next.map { min($0, at) } ?? at
            case .held(let why):
                announceTask(key, index, why, force: force, into: &actions)
            }
            index += 1
        }
        armTasks(key, at: next)
        if tasks[key]!.isEmpty { tasks[key] = nil }
    }

    /// Says why the request waits: when asked to, or when the reason is not the one last
    /// said (requests are few, so every change is said, not only a change of rule).
    @inlinable mutating func announceTask(
        _ key: Int32, _ index: Int, _ why: WaitReason<Instant>, force: Bool, into actions: inout [WakeAction<App, Instant>]
    ) {
        let said = tasks[key]!.pending[index]
        guard force || said.why != why else { return }
        tasks[key]!.pending[index].why = why
        actions.append(.taskPending(request: said.request.id, app: apps[Int(key)], why: why))
    }

    @inlinable mutating func armTasks(_ key: Int32, at: Instant?) {
        if let at, tasks[key]!.armedAt == at { return }
        tasks[key]!.timerStamp &+= 1
        tasks[key]!.armedAt = at
        if let at { timers.insert(Timer(slot: key, kind: .taskEvaluate, value: UInt64(tasks[key]!.timerStamp)), at: at) }
    }

    @inlinable mutating func startTask(
        _ slot: Int, _ request: TaskRequest<Instant>, now: Instant, simulated: Bool, into actions: inout [WakeAction<App, Instant>]
    ) {
        let key = Int32(slot)
        let runID = nextTaskRunID
        nextTaskRunID += 1
        let deadline: Instant? =
            switch request.kind {
            case .refresh: now.advanced(by: settings.refreshTaskTime)
            case .processing: now.advanced(by: settings.processingTaskTime)
            case .urlSession: now.advanced(by: settings.relaunchTime)
            case .continued: nil
            }
        let start = TaskStart(runID: runID, app: apps[slot], request: request, startedAt: now, deadline: deadline, simulated: simulated)
        tasks[key, default: AppTasks()].running.append(RunningTask(start: start))
        actions.append(.startTask(start))
        if request.kind != .continued { runningFetches += 1 }
        if let deadline { timers.insert(Timer(slot: key, kind: .taskDeadline, value: runID), at: deadline) }
        guard !simulated, request.kind != .continued else { return }
        recordLaunch(slot, of: apps[slot].device, now: now)
        if request.kind == .refresh {
            states[slot].nextWake = .afterInterval(now.advanced(by: settings.minimumInterval))
            // A push waiting for the app now waits for the interval from this launch.
            if states[slot].pending != nil, states[slot].runningWake == nil { evaluate(slot, now: now, announcePending: false, into: &actions) }
        }
    }

    /// The run's time is up: its expiration handler is called, and it has the grace period
    /// to complete.
    @inlinable mutating func expireTask(_ slot: Int, runID: UInt64, now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        let key = Int32(slot)
        guard let index = tasks[key]?.running.firstIndex(where: { $0.start.runID == runID }), tasks[key]!.running[index].expiredAt == nil
        else { return }
        tasks[key]!.running[index].expiredAt = now
        actions.append(.expireTask(runID: runID, app: apps[slot], at: now))
        timers.insert(Timer(slot: key, kind: .taskGrace, value: runID), at: now.advanced(by: settings.taskExpirationGrace))
    }

    /// The run never completed after its expiration handler: it is terminated, and the
    /// app's task launches are deferred.
    @inlinable mutating func terminateTask(_ slot: Int, runID: UInt64, now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        guard let run = removeRun(runID, at: slot) else { return }
        actions.append(.terminateTask(runID: runID, app: apps[slot]))
        actions.append(.taskEnded(runID: runID, app: apps[slot], outcome: .terminated, at: now))
        if let until = penaltyEnd(terminatedAt: now) { tasks[Int32(slot), default: AppTasks()].penaltyUntil = until }
        runEnded(run, at: slot, now: now, into: &actions)
    }

    /// When the penalty for a run terminated at `at` ends (the app's task launches wait until
    /// then); nil when there is none (no penalty, or throttling not on).
    @inlinable func penaltyEnd(terminatedAt at: Instant) -> Instant? {
        guard settings.taskTerminationPenalty > .zero, settings.throttling == .on else { return nil }
        return at.advanced(by: settings.taskTerminationPenalty)
    }

    @inlinable mutating func removeRun(_ runID: UInt64, at slot: Int) -> RunningTask? {
        let key = Int32(slot)
        guard let index = tasks[key]?.running.firstIndex(where: { $0.start.runID == runID }) else { return nil }
        return tasks[key]!.running.remove(at: index)
    }

    /// A run ended: its fetch slot (or continued slot) goes to what waits for one.
    @inlinable mutating func runEnded(_ run: RunningTask, at slot: Int, now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        if let penalty = tasks[Int32(slot)]?.penaltyUntil, penalty <= now { tasks[Int32(slot)]!.penaltyUntil = nil }
        if run.start.request.kind == .continued {
            let device = apps[slot].device
            for key in tasks.keys.sorted() where apps[Int(key)].device == device {
                evaluateTasks(Int(key), now: now, announce: false, into: &actions)
            }
        } else {
            runningFetches -= 1
            evaluateTasks(slot, now: now, announce: false, into: &actions)
            startWaiting(now: now, into: &actions)
        }
        if tasks[Int32(slot)]?.isEmpty == true { tasks[Int32(slot)] = nil }
    }

    /// Starts the apps' tasks that were ready but found every fetch slot taken.
    @inlinable mutating func startWaitingTasks(now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        var head = 0
        while head < tasksWaitingForSlot.count, settings.maximumConcurrentFetches.map({ runningFetches < $0 }) ?? true {
            let key = tasksWaitingForSlot[head]
            head += 1
            guard tasks[key]?.waitingForSlot == true else { continue }
            tasks[key]!.waitingForSlot = false
            evaluateTasks(Int(key), now: now, announce: false, into: &actions)
        }
        tasksWaitingForSlot.removeFirst(min(head, tasksWaitingForSlot.count))
    }

    /// `device` changed: resource pressure stops continued tasks (serious heat the one with
    /// the least progress, critical all of them), a device in use again stops processing
    /// tasks, and every request of its apps is looked at again.
    @inlinable mutating func deviceChangedForTasks(
        _ device: App.Device, from old: DeviceState, to new: DeviceState, now: Instant, into actions: inout [WakeAction<App, Instant>]
    ) {
        let keys = tasks.keys.sorted().filter { apps[Int($0)].device == device }
        if settings.throttling != .off, new.thermalState > old.thermalState, new.thermalState >= .serious {
            var continued: [(slot: Int, run: RunningTask)] = []
            for key in keys {
                for run in tasks[key]?.running ?? [] where run.start.request.kind == .continued && run.expiredAt == nil {
                    continued.append((Int(key), run))
                }
            }
            continued.sort { $0.run.progress < $1.run.progress || ($0.run.progress == $1.run.progress && $0.run.start.runID < $1.run.start.runID) }
            for (slot, run) in new.thermalState == .critical ? continued[...] : continued.prefix(1) {
                expireTask(slot, runID: run.start.runID, now: now, into: &actions)
            }
        }
        // Apple: "The system terminates any background processing tasks running when the user
        // starts using the device"; each is expired first, as its expiration handler is due.
        if old.idle, !new.idle, settings.throttling != .off {
            for key in keys {
                for run in tasks[key]?.running ?? [] where run.start.request.kind == .processing && !run.start.simulated {
                    expireTask(Int(key), runID: run.start.runID, now: now, into: &actions)
                }
            }
        }
        for key in keys { evaluateTasks(Int(key), now: now, announce: true, into: &actions) }
    }
}
