/// How iOS decides whether and when a silent push wakes an app, as a state
/// machine: every event method takes the device clock's `now` and returns the actions to
/// carry out; it never sleeps and never reads a clock. Timers live inside it: call
/// `advance(to:)` when `nextDeadline` comes, and every event first fires the timers due
/// before its `now`, each at its own instant, in order.
///
/// Per app it keeps one pending slot (a newer push replaces the older, which is coalesced
/// into whatever later closes the slot), the time of its next allowed wake (minimum interval
/// from wake start to wake start, doubled after an overrun) and its running fetch. A pending
/// push is held by reference: an idle app costs a few dozen bytes.
public struct WakePolicy<App: WakeApp, Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    /// Intervals, deadline and the cap on concurrent fetches.
    public var settings: WakeSettings

    /// Each app at its dense index: hashed once per event; everything else works on indices.
    @usableFromInline var apps = AppTable()
    @usableFromInline var states: [AppState] = []
    @usableFromInline var devices: [App.Device: DeviceRecord] = [:]
    /// When each app was last opened, for the apps whose usage was set (few: kept apart).
    @usableFromInline var lastOpened: [App: Instant] = [:]
    @usableFromInline var timers = InstantHeap<Instant, Timer>()
    @usableFromInline var waitingForSlot: [Int32] = []
    @usableFromInline var waitingHead = 0
    @usableFromInline var runningFetches = 0
    @usableFromInline var _pendingSlotCount = 0
    @usableFromInline var nextWakeID: UInt64 = 1
    /// Background task requests and runs, by app index: only apps that submitted any.
    @usableFromInline var tasks: [Int32: AppTasks] = [:]
    @usableFromInline var tasksWaitingForSlot: [Int32] = []
    @usableFromInline var nextTaskRunID: UInt64 = 1

    @inlinable static var day: Duration { WakeSettings.budgetWindow }

    /// A policy with no app yet; wakes are numbered from `firstWakeID` (a restarted
    /// receiver numbers on from its store).
    @inlinable public init(settings: WakeSettings = WakeSettings(), firstWakeID: UInt64 = 1, firstTaskRunID: UInt64 = 1) {
        self.settings = settings
        self.nextWakeID = max(firstWakeID, 1)
        self.nextTaskRunID = max(firstTaskRunID, 1)
    }

    /// Numbers wakes and task runs on from `first`, when it is past the next ids: a clustered
    /// receiver takes a new block of ids that no other receiver numbers from.
    @inlinable public mutating func continueIDs(from first: UInt64) {
        nextWakeID = max(nextWakeID, first)
        nextTaskRunID = max(nextTaskRunID, first)
    }

    /// Takes the next wake id for a wake the policy does not run itself (a widget or
    /// control reload): every wake is numbered from one sequence.
    @inlinable public mutating func takeWakeID() -> UInt64 {
        defer { nextWakeID += 1 }
        return nextWakeID
    }

    // MARK: - Queries

    /// Apps whose slot holds a push.
    @inlinable public var pendingSlotCount: Int { _pendingSlotCount }

    /// When `advance(to:)` should next be called; nil: no timer.
    @inlinable public var nextDeadline: Instant? { timers.nextDue }

    /// Apps the policy holds state for.
    @inlinable public var appCount: Int { apps.count }

    /// Every app the policy holds anything of (a push, a wake, usage, a task), in the order it
    /// first saw them; a forgotten app is not among them.
    public var knownApps: [App] {
        apps.apps.indices.filter { slot in
            let state = states[slot]
            return state.pending != nil || state.nextWake != nil || state.runningWake != nil || tasks[Int32(slot)] != nil
                || lastOpened[apps[slot]] != nil
        }.map { apps[$0] }
    }

    /// The devices whose state was set (or that hold budget or warm-up records).
    public var devicesWithState: [App.Device] { Array(devices.keys) }

    /// Timers held, stale ones included (each costs memory until its time comes).
    @inlinable public var timerCount: Int { timers.count }

    @inlinable func state(of app: App) -> AppState? { apps.index(of: app).map { states[$0] } }

    @inlinable mutating func index(of app: App) -> Int {
        let (index, inserted) = apps.insert(app)
        if inserted { states.append(AppState()) }
        return index
    }

    /// Fetches running now.
    @inlinable public var runningFetchCount: Int { runningFetches }

    /// The push waiting in `app`'s slot, if any.
    @inlinable public func pendingPush(of app: App) -> UInt64? { state(of: app)?.pending?.push }

    /// Every push waiting in a slot (one per app at most): what the store must keep pending.
    public var pendingPushes: Set<UInt64> {
        var pushes = Set<UInt64>(minimumCapacity: _pendingSlotCount)
        for state in states { if let push = state.pending?.push { pushes.insert(push) } }
        return pushes
    }

    /// Whether APNs holds a push for `device` arriving now (the device is offline, and the
    /// throttling not off): it then expires by `heldExpiry(_:arrivedAt:)`.
    @inlinable package func holdsAtAPNs(_ device: App.Device) -> Bool {
        settings.throttling != .off && deviceState(device).network == .offline
    }

    /// When APNs gives up a push it holds for an offline device: its own expiry (`expiresAt`,
    /// from `apns-expiration`) or `settings.apnsStorageLimit` after it arrived, whichever is
    /// sooner.
    @inlinable package func heldExpiry(_ expiresAt: Instant?, arrivedAt: Instant) -> Instant {
        .apnsHeldExpiry(expiresAt, arrivedAt: arrivedAt, limit: settings.apnsStorageLimit)
    }

    /// Whether `app` has a fetch running.
    @inlinable public func isRunning(_ app: App) -> Bool { state(of: app)?.runningWake != nil }

    /// The earliest instant `app` may start its next wake (nil: never woken).
    @inlinable public func nextAllowedWake(of app: App) -> Instant? { state(of: app)?.nextWake?.at }

    /// `device`'s state.
    @inlinable public func deviceState(_ device: App.Device) -> DeviceState { devices[device]?.state ?? DeviceState() }

    // MARK: - Events

    /// A push arrived for `app` (already accepted by APNs).
    @inlinable public mutating func receive(_ push: IncomingPush<Instant>, for app: App, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        // A push that replaces one says so and then why it waits: room for both at once,
        // not an allocation for each.
        actions.reserveCapacity(actions.count + 2)
        let device = settings.throttling == .off ? DeviceState() : deviceState(app.device)
        if device.forceQuit {
            actions.append(.dropped(push: push.id, app: app, reason: .forceQuit, generation: nil, coalesced: 0))
        } else if !device.backgroundRefresh {
            actions.append(.dropped(push: push.id, app: app, reason: .backgroundAppRefreshOff, generation: nil, coalesced: 0))
        } else if holdsAtAPNs(app.device), heldExpiry(push.expiresAt, arrivedAt: now) <= now {
            // APNs stores no push already expired (`apns-expiration: 0`, or past) for an
            // offline device: it replaces nothing APNs holds.
            actions.append(.expired(push: push.id, app: app, generation: nil, coalesced: 0))
        } else {
            let slot = index(of: app)
            let offline = holdsAtAPNs(app.device)
            if let old = states[slot].pending {
                actions.append(.coalesced(push: old.push, app: app, generation: states[slot].generation, atAPNs: offline))
                // Saturates: a slot held open for ever (no budget left, no expiry) counts on.
                if states[slot].coalesced < .max { states[slot].coalesced += 1 }
            } else {
                _pendingSlotCount += 1
            }
            let expiresAt = offline ? heldExpiry(push.expiresAt, arrivedAt: now) : push.expiresAt
            states[slot].pending = Pending(push: push.id, priority: push.priority, expiresAt: expiresAt)
            evaluate(slot, now: now, announcePending: true, into: &actions)
        }
        return actions
    }

    /// The app's fetch handler answered. Returns false, with no effect on the app, when the
    /// wake was already cancelled at its deadline: a late result is ignored.
    @inlinable public mutating func fetchCompleted(wakeID: UInt64, app: App, now: Instant) -> (accepted: Bool, actions: [WakeAction<App, Instant>]) {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        guard let slot = apps.index(of: app), states[slot].runningWake == wakeID else {
            return (false, actions)
        }
        states[slot].fetch = .idle
        runningFetches -= 1
        evaluate(slot, now: now, announcePending: false, into: &actions)
        startWaiting(now: now, into: &actions)
        return (true, actions)
    }

    /// `device`'s state changed. Turning force-quit on or Background App Refresh off drops
    /// the pushes waiting in its apps' slots; a force-quit also kills its apps' running wakes
    /// and task runs (`kill`). Lifting a restriction lets them wake.
    /// (Scans the apps: device changes are rare, admin-driven events.) `launches`: the
    /// device's background launches of the last day before `through`, as the record has them,
    /// and any known since, when the change gives it a budget: a device keeps its launches
    /// only while one applies, so a budget set now counts those already made, as after a
    /// restart (`countLaunches`).
    @inlinable public mutating func setDeviceState(
        _ new: DeviceState, for device: App.Device, launches: (counted: [(app: App, at: Instant)], through: Instant)? = nil, now: Instant
    ) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        let old = deviceState(device)
        var record = devices[device] ?? DeviceRecord()
        record.state = new
        devices[device] = new.isDefault && record.launches.isEmpty && record.warmUntil == nil ? nil : record
        if let launches { countLaunches(launches, of: device, now: now) }

        let dropReason: DropReason? =
            settings.throttling == .off
            ? nil
            : new.forceQuit && !old.forceQuit
                ? .forceQuit
                : !new.backgroundRefresh && old.backgroundRefresh ? .backgroundAppRefreshOff : nil
        let killed = dropReason == .forceQuit ? kill(appsOf: device, because: .forceQuit, now: now, into: &actions) : []
        for slot in 0..<apps.count where apps[slot].device == device {
            guard let pending = states[slot].pending else { continue }
            if let reason = dropReason {
                let (generation, coalesced) = closeSlot(slot)
                actions.append(.dropped(push: pending.push, app: apps[slot], reason: reason, generation: generation, coalesced: coalesced))
            } else {
                evaluate(slot, now: now, announcePending: true, into: &actions)
            }
        }
        for (slot, run) in killed { runEnded(run, at: slot, now: now, into: &actions) }
        if !tasks.isEmpty { deviceChangedForTasks(device, from: old, to: new, now: now, into: &actions) }
        startWaiting(now: now, into: &actions)
        return actions
    }

    /// The apps of `device` were deleted (a reinstall gives them a new token): each push
    /// waiting in a slot is dropped (`appDeleted`), each pending task request cancelled
    /// (a relaunch for a background session too: the session went with the app), and what
    /// runs is killed (`kill`).
    @inlinable public mutating func appDeleted(device: App.Device, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        let killed = kill(appsOf: device, because: .appDeleted, now: now, into: &actions)
        for slot in 0..<apps.count where apps[slot].device == device {
            if let pending = states[slot].pending {
                let (generation, coalesced) = closeSlot(slot)
                actions.append(.dropped(push: pending.push, app: apps[slot], reason: .appDeleted, generation: generation, coalesced: coalesced))
            }
            // Its relaunches for a `URLSession` too: the session went with the app.
            cancelPendingTasks(at: slot, now: now, into: &actions) { _ in true }
        }
        for (slot, run) in killed { runEnded(run, at: slot, now: now, into: &actions) }
        startWaiting(now: now, into: &actions)
        return actions
    }

    /// The user opened `app` at `opened` (nil: usage unknown, which counts as in use).
    /// Apps not opened for a day, a week, are launched at twice, four times the interval;
    /// past `settings.appUsageThreshold`, not at all. Its waiting push is looked at again.
    @inlinable public mutating func setLastOpened(_ opened: Instant?, for app: App, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        lastOpened[app] = opened
        if let slot = apps.index(of: app), states[slot].pending != nil || tasks[Int32(slot)] != nil {
            evaluate(slot, now: now, announcePending: true, into: &actions)
            evaluateTasks(slot, now: now, announce: true, into: &actions)
            startWaiting(now: now, into: &actions)
        }
        return actions
    }

    /// When `app` was last opened, if known.
    @inlinable public func lastOpened(_ app: App) -> Instant? { lastOpened[app] }

    /// `device` restarted at `now`: what its apps ran is killed (`kill`), and no background
    /// launch starts during the warm-up (`settings.rebootWarmup`); the pushes waiting in its
    /// apps' slots say so and wait it out. (Scans the apps, as a device change does.)
    @inlinable public mutating func reboot(_ device: App.Device, now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        var record = devices[device] ?? DeviceRecord()
        record.warmUntil = now.advanced(by: settings.rebootWarmup)
        devices[device] = record
        let killed = kill(appsOf: device, because: .reboot, now: now, into: &actions)
        for (slot, run) in killed { runEnded(run, at: slot, now: now, into: &actions) }
        for slot in 0..<apps.count where apps[slot].device == device && states[slot].pending != nil {
            evaluate(slot, now: now, announcePending: true, into: &actions)
        }
        for slot in tasks.keys.sorted() where apps[Int(slot)].device == device {
            evaluateTasks(Int(slot), now: now, announce: true, into: &actions)
        }
        startWaiting(now: now, into: &actions)
        return actions
    }

    /// Forgets `device`: its apps' waiting pushes, interval, budget, usage, task requests and
    /// state, as if it was never seen. Its app is gone as if deleted: running wakes are killed
    /// (`.killWake`, `appDeleted`) and task runs too (`.terminateTask`, `.taskKilled` `appDeleted`),
    /// with no penalty and nothing counted as an overrun or a termination; what waited leaves
    /// no action: its records go with the device (deleted by the caller's store change, or, for
    /// a cluster's reset, already deleted by the member asked).
    @inlinable public mutating func forget(_ device: App.Device, now: Instant) -> [WakeAction<App, Instant>] {
        forget(now: now) { $0 == device }
    }

    /// Forgets every device, in one pass over the apps (see `forget(_:now:)`).
    @inlinable public mutating func forgetAll(now: Instant) -> [WakeAction<App, Instant>] {
        forget(now: now) { _ in true }
    }

    /// Forgets the devices `forgetting` selects, in one pass over the apps (see
    /// `forget(_:now:)`): a clustered receiver that lost their shards lets them go so.
    @inlinable public mutating func forget(now: Instant, _ forgetting: (App.Device) -> Bool) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        for slot in 0..<apps.count where forgetting(apps[slot].device) {
            let app = apps[slot]
            if states[slot].pending != nil { _pendingSlotCount -= 1 }
            if let wakeID = states[slot].runningWake {
                actions.append(.killWake(wakeID: wakeID, app: app, cause: .appDeleted, at: now))
                runningFetches -= 1
            }
            var fresh = AppState()
            fresh.timerStamp = states[slot].timerStamp &+ 1  // its timers go stale
            fresh.generation = states[slot].generation &+ 1
            states[slot] = fresh
            lastOpened[app] = nil
            if let appTasks = tasks.removeValue(forKey: Int32(slot)) {
                for run in appTasks.running {
                    if run.start.request.kind != .continued { runningFetches -= 1 }
                    actions.append(.terminateTask(runID: run.start.runID, app: app))
                    actions.append(.taskKilled(runID: run.start.runID, app: app, cause: .appDeleted, at: now))
                }
            }
        }
        devices = devices.filter { !forgetting($0.key) }
        startWaiting(now: now, into: &actions)
        return actions
    }

    /// Puts back an app as a restarted receiver found it in its store: the slot generation
    /// to go on from, when its next wake may start (`overran`: its last wake overran its
    /// deadline, and `nextAllowed` is a doubled interval after it), and the push waiting in
    /// its slot with how many pushes it replaced (`coalesced`: they share its fate, and are
    /// counted with it). The push is looked at at once: it may wake the app now, or have
    /// expired meanwhile.
    @inlinable public mutating func restore(
        app: App, generation: UInt32, nextAllowed: Instant?, overran: Bool = false, pending: IncomingPush<Instant>?, coalesced: UInt32 = 0,
        now: Instant
    ) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        let slot = index(of: app)
        states[slot].generation = generation
        states[slot].nextWake = nextAllowed.map { overran ? .afterOverrun($0) : .afterInterval($0) }
        if let pending {
            if states[slot].pending == nil { _pendingSlotCount += 1 }
            states[slot].pending = Pending(push: pending.id, priority: pending.priority, expiresAt: pending.expiresAt)
            states[slot].coalesced = coalesced
            evaluate(slot, now: now, announcePending: false, into: &actions)
        }
        return actions
    }

    /// Fires every timer due at or before `now`, each at its own instant, in order.
    @inlinable public mutating func advance(to now: Instant) -> [WakeAction<App, Instant>] {
        var actions: [WakeAction<App, Instant>] = []
        fireTimers(upTo: now, into: &actions)
        return actions
    }

    // MARK: - Internals

    @inlinable mutating func fireTimers(upTo now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        while let (at, timer) = timers.popDue(now) {
            let slot = Int(timer.slot)
            switch timer.kind {
            case .evaluate where states[slot].timerStamp == UInt32(truncatingIfNeeded: timer.value):
                states[slot].armedAt = nil
                // The instant it waited for has come: a push that still waits, for the same
                // rule too, waits until a later one, which is said (the rule's code alone
                // would not notice, and its `until` would stay in the past).
                evaluate(slot, now: at, announcePending: true, into: &actions)
            case .deadline where states[slot].runningWake == timer.value:
                overran(slot, wakeID: timer.value, now: at, into: &actions)
            case .taskEvaluate where tasks[timer.slot]?.timerStamp == UInt32(truncatingIfNeeded: timer.value):
                tasks[timer.slot]?.armedAt = nil
                evaluateTasks(slot, now: at, announce: false, into: &actions)
            case .taskDeadline:
                expireTask(slot, runID: timer.value, now: at, into: &actions)
            case .taskGrace:
                terminateTask(slot, runID: timer.value, now: at, into: &actions)
            default:
                continue  // superseded
            }
        }
    }

    /// Starts the app's pending push if it can wake now, else expires it or arms a timer.
    /// `announcePending` says the push's `.pending` action (with why it waits) is due even
    /// if the reason has not changed since it was last said.
    @inlinable mutating func evaluate(_ slot: Int, now: Instant, announcePending: Bool, into actions: inout [WakeAction<App, Instant>]) {
        guard let pending = states[slot].pending else { return }
        let expired = pending.expiresAt.map { $0 <= now } ?? false
        guard states[slot].runningWake == nil else {
            if expired { return expire(slot, pending, into: &actions) }
            announce(slot, pending, .fetchRunning, force: announcePending, into: &actions)
            // With a fetch running, only the pending push's expiry needs a timer.
            arm(slot, at: pending.expiresAt)
            return
        }
        let readiness = readiness(slot, pending, now: now)
        if case .now = readiness {
            // A push due to expire now is delivered only if it can wake the app now.
            if settings.maximumConcurrentFetches.map({ runningFetches < $0 }) ?? true {
                startWake(slot, pending, now: now, into: &actions)
                return
            }
            if expired { return expire(slot, pending, into: &actions) }
            announce(
                slot, pending, .fetchSlots(running: runningFetches, cap: settings.maximumConcurrentFetches ?? 0), force: announcePending,
                into: &actions)
            if case .idle = states[slot].fetch {
                states[slot].fetch = .waitingForSlot
                waitingForSlot.append(Int32(slot))
            }
            // Queued for a slot, it still expires on time.
            arm(slot, at: pending.expiresAt)
            return
        }
        if expired { return expire(slot, pending, into: &actions) }
        // Wake at `ready`, or expire first; a held push only expires.
        let ready: Instant?
        switch readiness {
        case .now: return
        case .at(let at, let why):
            ready = at
            announce(slot, pending, why, force: announcePending, into: &actions)
        case .held(let why):
            ready = nil
            announce(slot, pending, why, force: announcePending, into: &actions)
        }
        let at: Instant? =
            switch (ready, pending.expiresAt) {
            case let (ready?, expires?): min(ready, expires)
            case let (ready?, nil): ready
            case let (nil, expires?): expires
            case (nil, nil): nil
            }
        arm(slot, at: at)
    }

    /// The slot's pending push expired: recorded so with the pushes coalesced before it; the
    /// slot leaves the queue for a fetch slot.
    @inlinable mutating func expire(_ slot: Int, _ pending: Pending, into actions: inout [WakeAction<App, Instant>]) {
        if case .waitingForSlot = states[slot].fetch { states[slot].fetch = .idle }
        let (generation, coalesced) = closeSlot(slot)
        actions.append(.expired(push: pending.push, app: apps[slot], generation: generation, coalesced: coalesced))
    }

    /// Says why the push waits: when asked to, or when the reason is not the one last said.
    @inlinable mutating func announce(
        _ slot: Int, _ pending: Pending, _ why: WaitReason<Instant>, force: Bool, into actions: inout [WakeAction<App, Instant>]
    ) {
        let code = Self.code(of: why)
        guard force || states[slot].waitCode != code else { return }
        states[slot].waitCode = code
        actions.append(.pending(push: pending.push, app: apps[slot], generation: states[slot].generation, why: why))
    }

    /// A reason's rule in one byte (0: none said yet), to notice when it changes.
    @inlinable static func code(of why: WaitReason<Instant>) -> UInt8 {
        switch why {
        case .minimumInterval: 1
        case .dailyBudget: 2
        case .lowPowerMode: 3
        case .battery: 4
        case .thermal(let state): 5 + UInt8(state.order)
        case .priority1: 9
        case .fetchSlots: 10
        case .fetchRunning: 11
        case .offline: 12
        case .rebootWarmup: 13
        case .appUsage: 14
        case .appShare: 15
        case .earliestBegin: 16
        case .forceQuit: 17
        case .backgroundRefreshOff: 18
        case .deviceInUse: 19
        case .externalPower: 20
        case .taskPenalty: 21
        case .continuedSlots: 22
        case .activityBudget: 23
        case .opportunistic: 24
        case .reloadBudget: 25
        case .wifiRequired: 26
        case .discretionary: 27
        case .transferRetry: 28
        }
    }

    /// Makes the app's evaluation timer fire at `at` (never: nil). A live timer already set
    /// for `at` is kept: a stream of pushes to a waiting app leaves one heap entry, not one
    /// per push (they would wait there, stale, until their time, 15 minutes on).
    @inlinable mutating func arm(_ slot: Int, at: Instant?) {
        if let at, states[slot].armedAt == at { return }
        states[slot].timerStamp &+= 1
        states[slot].armedAt = at
        if let at { timers.insert(Timer(slot: Int32(slot), kind: .evaluate, value: UInt64(states[slot].timerStamp)), at: at) }
    }

    /// Empties the app's slot and opens its next generation; returns the generation closed
    /// and how many pushes were coalesced in it.
    @inlinable mutating func closeSlot(_ slot: Int) -> (generation: UInt32, coalesced: Int) {
        let closed = (states[slot].generation, Int(states[slot].coalesced))
        states[slot].pending = nil
        states[slot].coalesced = 0
        states[slot].waitCode = 0
        _pendingSlotCount -= 1
        states[slot].generation &+= 1
        disarm(slot)
        return closed
    }

    /// Makes the app's evaluation timer stale.
    @inlinable mutating func disarm(_ slot: Int) {
        states[slot].timerStamp &+= 1
        states[slot].armedAt = nil
    }

    /// Whether the pending push may wake the app now, from when, or not until something
    /// changes, and why.
    @usableFromInline enum Readiness {
        case now
        case at(Instant, WaitReason<Instant>)
        case held(WaitReason<Instant>)
    }

    /// The rules in the order iOS's documentation gives them weight: a push held by the
    /// device's state waits for that state to change; otherwise the later of the app's
    /// interval and the device's budget says when.
    @inlinable func readiness(_ slot: Int, _ pending: Pending, now: Instant) -> Readiness {
        readiness(states[slot], of: apps[slot], at: slot, pending, now: now)
    }

    /// The same for `key` in state `app` at index `slot` (nil: an app the policy has not seen).
    @inlinable func readiness(_ app: AppState, of key: App, at slot: Int?, _ pending: Pending, now: Instant) -> Readiness {
        guard settings.throttling != .off else { return pending.priority == .low ? .held(.priority1) : .now }
        let device = devices.isEmpty ? nil : devices[key.device]
        if device?.state.network == .offline { return .held(.offline) }  // not even a debugger reaches it
        if pending.priority == .low { return .held(.priority1) }  // never wakes the device; rides the next wake
        guard settings.throttling == .on else { return .now }
        if let state = device?.state {
            if state.debuggerAttached { return .now }
            if state.thermalState == .critical { return .held(.thermal(.critical)) }
            if pending.priority == .normal, let why = discretionaryHold(state) { return .held(why) }
        }
        let usage: Int
        switch usageFactor(of: key, now: now) {
        case .success(let factor): usage = factor
        case .failure(let held): return .held(held.reason)
        }
        return scheduled(app, of: key, at: slot, device: device, usage: usage, interval: true, from: now, why: nil, now: now)
    }

    /// What of the device holds discretionary work (a priority-5 wake, a task): Low Power
    /// Mode, heat from serious up, a low battery that is not charging.
    @inlinable func discretionaryHold(_ state: DeviceState) -> WaitReason<Instant>? {
        if state.lowPowerMode { return .lowPowerMode }
        if state.thermalState >= .serious { return .thermal(state.thermalState) }
        if state.batteryLevel < settings.batteryThreshold, !state.charging {
            return .battery(level: state.batteryLevel, threshold: settings.batteryThreshold)
        }
        return nil
    }

    /// A reason that holds a launch outright (as `Result`'s failure).
    @usableFromInline struct Held: Error {
        @usableFromInline var reason: WaitReason<Instant>
        @inlinable init(_ reason: WaitReason<Instant>) { self.reason = reason }
    }

    /// App usage: an app not opened for a while is launched less (the factor its interval is
    /// multiplied by, its budget share divided by), then not at all.
    @inlinable func usageFactor(of key: App, now: Instant) -> Result<Int, Held> {
        guard !lastOpened.isEmpty, let opened = lastOpened[key] else { return .success(1) }
        let unused = opened.duration(to: now)
        if let threshold = settings.appUsageThreshold, unused >= threshold {
            return .failure(Held(.appUsage(lastOpened: opened, threshold: threshold)))
        }
        return .success(unused < Self.day ? 1 : unused < Self.day * 7 ? settings.appUsageFactors.week : settings.appUsageFactors.older)
    }

    /// When the device's schedule lets `key` launch, starting from `start` (held so far for
    /// `initial`): the app's interval since its last launch (when `interval`), the reboot
    /// warm-up, and the daily budget with the app's share of it.
    @inlinable func scheduled(
        _ app: AppState, of key: App, at slot: Int?, device: DeviceRecord?, usage: Int, interval: Bool, from start: Instant,
        why initial: WaitReason<Instant>?, now: Instant
    ) -> Readiness {
        var at = start
        var why = initial
        if interval, let allowed = app.nextWake {
            let base = settings.interval(afterOverrun: allowed.overran)
            let lastWake = allowed.at.advanced(by: .zero - base)
            let interval = base * usage
            let next = lastWake.advanced(by: interval)
            if next > at {
                at = next
                why = .minimumInterval(lastWake: lastWake, interval: interval, until: next)
            }
        }
        if let warm = device?.warmUntil, warm > now, warm > at {
            at = warm
            why = .rebootWarmup(until: warm)
        }
        if let budget = device?.state.dailyBudget ?? settings.dailyBudget {
            guard budget > 0 else { return .held(.dailyBudget(used: 0, budget: 0, until: nil)) }
            let launches = device?.launches ?? []
            let first = launches.firstIndex { $0.at.advanced(by: Self.day) > now } ?? launches.count
            let recent = launches.count - first
            if recent >= budget {
                // Each launch's share comes back 24 hours after it.
                let refill = launches[launches.count - budget].at.advanced(by: Self.day)
                if refill > at {
                    at = refill
                    why = .dailyBudget(used: recent, budget: budget, until: refill)
                }
            }
            // An app used less gets its share of the budget: 1/factor (a half, a quarter by default).
            if usage > 1, let slot {
                let share = max(1, budget / usage)
                let mine = launches[first...].filter { $0.slot == Int32(slot) }
                if mine.count >= share {
                    let refill = mine[mine.count - share].at.advanced(by: Self.day)
                    if refill > at {
                        at = refill
                        why = .appShare(used: mine.count, share: share, budget: budget, until: refill)
                    }
                }
            }
        }
        if let why { return .at(at, why) }
        return .now
    }

    @inlinable mutating func startWake(_ slot: Int, _ pending: Pending, now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        let app = apps[slot]
        let wakeID = nextWakeID
        nextWakeID += 1
        let deadline = now.advanced(by: settings.deadline)
        let (generation, coalesced) = closeSlot(slot)
        actions.append(
            .startWake(
                WakeStart(
                    wakeID: wakeID, app: app, push: pending.push, generation: generation, coalescedCount: coalesced, startedAt: now,
                    deadline: deadline)))
        states[slot].fetch = .running(wakeID)
        states[slot].nextWake = .afterInterval(now.advanced(by: settings.minimumInterval))
        states[slot].waitCode = 0
        runningFetches += 1
        timers.insert(Timer(slot: Int32(slot), kind: .deadline, value: wakeID), at: deadline)
        recordLaunch(slot, of: app.device, now: now)
    }

    /// After a restart: a background launch of `app` at `at` (a wake, or a task run), as its
    /// device's daily budget counts it. Call them oldest first, after the devices' states.
    @inlinable public mutating func restoreLaunch(of app: App, at: Instant) {
        recordLaunch(index(of: app), of: app.device, now: at)
    }

    /// After a restart: a task run of `app` the system terminated at `at` (it never completed
    /// after its expiration handler), so the app's task launches stay deferred for the rest of
    /// the termination penalty. Call it before putting back the app's pending requests.
    @inlinable package mutating func restoreTermination(of app: App, at: Instant, now: Instant) {
        guard let until = penaltyEnd(terminatedAt: at), until > now else { return }
        let key = Int32(index(of: app))
        if let current = tasks[key]?.penaltyUntil, current >= until { return }
        tasks[key, default: AppTasks()].penaltyUntil = until
    }

    /// Counts `launches.counted` of `device` against its daily budget in place of those it
    /// kept: they are every launch before `launches.through` (read from the record) and any
    /// known since. Of those it kept, only the ones from `through` on are added, once (the
    /// same app at the same instant counts once): the record had not got them.
    @inlinable mutating func countLaunches(_ launches: (counted: [(app: App, at: Instant)], through: Instant), of device: App.Device, now: Instant) {
        let kept = devices[device]?.launches ?? []
        devices[device]?.launches = []
        var merged = launches.counted.map { Launch(at: $0.at, slot: Int32(index(of: $0.app))) }
        for launch in kept where launch.at >= launches.through && !merged.contains(where: { $0.at == launch.at && $0.slot == launch.slot }) {
            merged.append(launch)
        }
        merged.sort { $0.at < $1.at }
        for launch in merged where launch.at <= now { recordLaunch(Int(launch.slot), of: device, now: launch.at) }
    }

    /// Counts a background launch of the app at `slot` against its device's daily budget.
    @inlinable mutating func recordLaunch(_ slot: Int, of device: App.Device, now: Instant) {
        if settings.dailyBudget != nil || !devices.isEmpty {
            var record = devices[device]
            if let budget = record?.state.dailyBudget ?? settings.dailyBudget, settings.throttling == .on, record?.state.debuggerAttached != true {
                if record == nil { record = DeviceRecord() }
                // Only the last `budget` launches can hold a push back.
                record!.launches.removeAll { $0.at.advanced(by: Self.day) <= now }
                if record!.launches.count >= max(budget, 1) { record!.launches.removeFirst(record!.launches.count - max(budget, 1) + 1) }
                record!.launches.append(Launch(at: now, slot: Int32(slot)))
                devices[device] = record
            }
        }
    }

    /// The system killed `device`'s apps at `now` (`cause`): each running wake ends `killed`
    /// (`.killWake`) and each task run too (`.terminateTask`, then `.taskKilled`);
    /// no penalty follows, as the apps did nothing wrong. Returns the runs it ended, whose
    /// slots the event hands on (`runEnded`) once it has done the rest: nothing starts on the
    /// device, to be killed with it, before every app's runs are ended.
    @inlinable mutating func kill(
        appsOf device: App.Device, because cause: AppKill, now: Instant, into actions: inout [WakeAction<App, Instant>]
    ) -> [(slot: Int, run: RunningTask)] {
        var killed: [(slot: Int, run: RunningTask)] = []
        for slot in 0..<apps.count where apps[slot].device == device {
            let app = apps[slot]
            if let wakeID = states[slot].runningWake {
                actions.append(.killWake(wakeID: wakeID, app: app, cause: cause, at: now))
                states[slot].fetch = .idle
                runningFetches -= 1
            }
            for runID in tasks[Int32(slot)]?.running.map(\.start.runID) ?? [] {
                guard let run = removeRun(runID, at: slot) else { continue }
                actions.append(.terminateTask(runID: runID, app: app))
                actions.append(.taskKilled(runID: runID, app: app, cause: cause, at: now))
                killed.append((slot, run))
            }
        }
        return killed
    }

    /// The handler ran past its deadline: cancel it and double the app's next interval.
    @inlinable mutating func overran(_ slot: Int, wakeID: UInt64, now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        actions.append(.cancelWake(wakeID: wakeID, app: apps[slot]))
        states[slot].fetch = .idle
        // From the wake's start, the interval after an overrun (`overrunFactor` times the minimum).
        states[slot].nextWake = states[slot].nextWake.map {
            .afterOverrun($0.at.advanced(by: settings.interval(afterOverrun: true) - settings.minimumInterval))
        }
        runningFetches -= 1
        evaluate(slot, now: now, announcePending: false, into: &actions)
        startWaiting(now: now, into: &actions)
    }

    /// Starts apps that were ready but found every fetch slot taken, first come first served.
    @inlinable mutating func startWaiting(now: Instant, into actions: inout [WakeAction<App, Instant>]) {
        while waitingHead < waitingForSlot.count, settings.maximumConcurrentFetches.map({ runningFetches < $0 }) ?? true {
            let slot = Int(waitingForSlot[waitingHead])
            waitingHead += 1
            guard case .waitingForSlot = states[slot].fetch else { continue }
            states[slot].fetch = .idle
            evaluate(slot, now: now, announcePending: false, into: &actions)
        }
        if waitingHead == waitingForSlot.count {
            waitingForSlot.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
        if !tasksWaitingForSlot.isEmpty { startWaitingTasks(now: now, into: &actions) }
    }
}

extension WakePolicy {
    @usableFromInline struct Pending: Sendable {
        @usableFromInline var push: UInt64
        @usableFromInline var priority: APNsPriority
        @usableFromInline var expiresAt: Instant?

        @inlinable init(push: UInt64, priority: APNsPriority, expiresAt: Instant?) {
            self.push = push
            self.priority = priority
            self.expiresAt = expiresAt
        }
    }

    @usableFromInline struct AppState: Sendable {
        @usableFromInline var pending: Pending?
        /// When its next wake may start (nil: never woken).
        @usableFromInline var nextWake: NextWake?
        @usableFromInline var fetch = Fetch.idle
        @usableFromInline var generation: UInt32 = 0
        /// Pushes coalesced in this generation: they share the fate of whatever closes it.
        @usableFromInline var coalesced: UInt32 = 0
        /// Timers armed with an older stamp are stale.
        @usableFromInline var timerStamp: UInt32 = 0
        /// When the live evaluation timer fires, if one is armed.
        @usableFromInline var armedAt: Instant?
        /// The rule last said for the pending push (`WakePolicy.code(of:)`); 0: none yet.
        @usableFromInline var waitCode: UInt8 = 0

        @inlinable init() {}

        /// The wake that runs for the app, if one does.
        @inlinable var runningWake: UInt64? {
            if case .running(let wakeID) = fetch { wakeID } else { nil }
        }
    }

    /// Where an app's fetch stands.
    @usableFromInline enum Fetch: Sendable {
        /// No wake runs, and the app is not queued for a fetch slot.
        case idle
        /// Its pending push was ready when every fetch slot was taken: the app is in
        /// `waitingForSlot`, looked at again when a slot frees.
        case waitingForSlot
        /// This wake runs.
        case running(UInt64)
    }

    /// When an app's next wake may start, and which interval sets it.
    @usableFromInline enum NextWake: Sendable {
        /// The minimum interval after its last launch (a wake, or a refresh task's run).
        case afterInterval(Instant)
        /// The longer interval after a wake that overran its deadline (`overrunFactor` times
        /// the minimum).
        case afterOverrun(Instant)

        @inlinable var at: Instant {
            switch self {
            case .afterInterval(let at), .afterOverrun(let at): at
            }
        }

        @inlinable var overran: Bool {
            if case .afterOverrun = self { true } else { false }
        }
    }

    @usableFromInline struct DeviceRecord: Sendable {
        @usableFromInline var state = DeviceState()
        /// Background launches in the last 24 hours (at most the budget's worth), oldest
        /// first, kept while the device has a budget.
        @usableFromInline var launches: [Launch] = []
        /// After a restart, no background launch before this.
        @usableFromInline var warmUntil: Instant?

        @inlinable init() {}
    }

    /// A background launch: when, and which app (its index).
    @usableFromInline struct Launch: Sendable {
        @usableFromInline var at: Instant
        @usableFromInline var slot: Int32

        @inlinable init(at: Instant, slot: Int32) {
            self.at = at
            self.slot = slot
        }
    }

    @usableFromInline enum TimerKind: UInt8, Sendable {
        case evaluate
        case deadline
        /// The app's pending task requests are looked at again (value: its tasks' timer stamp).
        case taskEvaluate
        /// A task run's time is up (value: the run id).
        case taskDeadline
        /// A task run's grace after its expiration handler is over (value: the run id).
        case taskGrace
    }

    /// What a timer is for: the app (its index), its kind, and the value it is checked
    /// against when it fires.
    @usableFromInline struct Timer: Sendable {
        /// The app's index.
        @usableFromInline var slot: Int32
        @usableFromInline var kind: TimerKind
        /// The app's timer stamp (`evaluate`, `taskEvaluate`), the wake id (`deadline`) or
        /// the task run's id (`taskDeadline`, `taskGrace`).
        @usableFromInline var value: UInt64

        @inlinable init(slot: Int32, kind: TimerKind, value: UInt64) {
            self.slot = slot
            self.kind = kind
            self.value = value
        }
    }
}
