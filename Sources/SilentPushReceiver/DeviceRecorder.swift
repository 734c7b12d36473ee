import SilentPushCore
import SilentPushStore

/// The device side's decisions, as one state machine: the wake policy, the wakes and task
/// runs under way, and where the device side is in its life.
///
/// Every event is a `mutating` method that takes its time as a parameter and returns an
/// ``Actions`` value: what the executor must do once it has released its lock (store changes
/// in order, fetches and task runs to start, handlers to cancel, expire or terminate, metric
/// events, the timer to arm) and the event's ``Reply``. Nothing accumulates inside it between
/// events, its state holds no reference, and it does no I/O, reads no clock and takes no
/// lock: `DeviceRuntime.modifyStateAndRunActions` steps it under its lock and carries out the
/// actions after releasing it (AsyncHTTPClient's `HTTPConnectionPool` shape).
package struct DeviceRecorder {
    /// An app on a device, as the wake policy keys it.
    package typealias App = DeviceRuntime.AppKey
    /// The wake policy, on the device clock.
    package typealias Policy = WakePolicy<App, DeviceInstant>
    /// What the wake policy asks for.
    package typealias Action = WakeAction<App, DeviceInstant>
    /// A wake the policy starts.
    package typealias Start = WakeStart<App, DeviceInstant>
    /// A background task run the policy starts.
    package typealias RunStart = TaskStart<App, DeviceInstant>

    /// Where the recorder is in its life.
    package enum Lifecycle {
        /// Takes pushes and starts wakes.
        case running
        /// Shutting down: takes no push and starts no wake; running fetches may still answer.
        case stopping
    }

    /// A background task run in progress.
    package struct RunningTask: Equatable {
        /// Where the run is: before its deadline, or expired and in its grace.
        package enum Phase: Equatable {
            /// Before its deadline.
            case running
            /// Its expiration handler was called at this time; it has the grace to end.
            case expired(at: DeviceInstant)
        }

        package var start: RunStart
        package var phase: Phase
    }

    /// What one event asks of its caller, beside the actions.
    package enum Reply: Equatable {
        /// Done; nothing to tell.
        case done
        /// Refused: the device side is stopping.
        case stopping
        /// The handler's answer was recorded as this result (`deadlineExceeded` when the wake
        /// had already been cancelled at its deadline).
        case fetchRecorded(FetchResult)
        /// A task request was refused with Apple's error (and what held a continued task
        /// that had to start at once); nothing was recorded.
        case taskRefused(TaskRefusal)
        /// A task request was taken, numbered `id`.
        case taskSubmitted(id: UInt64)
        /// Refused: a move of the manual clock is under way.
        case clockBusy
        /// How many pending task requests were cancelled.
        case cancelledTasks(Int)
        /// Whether there was a task to launch or expire.
        case found(Bool)
        /// One step of moving a manual clock.
        case advance(AdvanceStep)
        /// Shutting down: the wakes still running.
        case stoppingWith(running: [UInt64])
        /// Rebooted: no background launch starts on the device before this instant.
        case warmingUp(until: DeviceInstant)
        /// A Live Activity the app asked for did not start, for this reason.
        case activityRefused(LiveActivityIgnored)
        /// A broadcast has subscribers left to reach (`continueBroadcast`).
        case fanningOut
        /// A background transfer the app handed over was refused, for this reason (recorded).
        case transferRefused(TransferRefusal)
        /// Refused: the device belongs to a shard of the cluster this receiver does not own
        /// (any more); nothing was recorded.
        case notOwner
        /// Refused with Apple's reason, as APNs would; the push is recorded `rejected`.
        case rejected(APNsReason)
        /// Nothing done: a Live Activity start was kept for the device on a channel not looked
        /// up before the step; look the channels up again.
        case channelsChanged
        /// Nothing done: the change gives the device a budget, and the launches it counts were
        /// not read (another change came between); read them and step again.
        case launchesChanged

        /// The result a `fetchRecorded` reply names.
        package var recordedResult: FetchResult? {
            if case .fetchRecorded(let result) = self { return result }
            return nil
        }
    }

    /// What an event leaves to do once the lock is released, in this order: hand the store
    /// changes over, then end, start and cancel, count, arm the timer.
    package struct Actions {
        /// Store changes, in the order they happened.
        package var changes: [StoreChange] = []
        /// Called once `changes` are committed: the event's caller. Nil: nobody waits, and
        /// the executor reports a failure itself. A caller that waits is handed to the store
        /// even when the event changed nothing, and called once what was queued before is.
        package var completion: PushStore.Completion?
        /// Fetches to start; with the `Wake` when the push was in hand.
        package var runs: [(start: Start, wake: Wake?)] = []
        /// Wakes that left `running`: their waiters are resumed and, with `cancel`, their
        /// handlers cancelled (deadline passed, or the receiver stops).
        package var ended: [(wakeID: UInt64, cancel: Bool)] = []
        /// Wakes whose handlers are cancelled while the wakes still run (until their deadline).
        package var handlersCancelled: [UInt64] = []
        var metrics = DeviceMetrics.Events()
        /// The earliest policy deadline, when it moved before the timer armed (system clock).
        package var armTimer: DeviceInstant?
        /// Background task runs to start.
        package var taskRuns: [RunStart] = []
        /// Task runs to expire (expiration handler, then cancellation), to terminate, and that
        /// ended (by run id).
        package var taskExpirations: [UInt64] = []
        package var taskTerminations: [UInt64] = []
        /// Runs the receiver's stop cut short: their handlers are stopped, files left.
        package var taskInterruptions: [UInt64] = []
        package var tasksEnded: [UInt64] = []
        /// Tries of background transfers to run against their origin, and transfers whose
        /// running try to stop (by id).
        package var transferStarts: [TransferStart] = []
        package var transferInterrupts: [UInt64] = []
        /// Transfers that failed, were cancelled or were forgotten: what they kept is deleted
        /// (the system discards a cancelled download's data; nothing will hand it to the app).
        package var transferDiscards: [UInt64] = []
        /// Relaunches for a background session cancelled before they ran (by request id): the
        /// files their transfers kept are deleted once the cancellation is committed.
        package var relaunchesCancelled: [UInt64] = []
        /// What the event tells its caller.
        package var reply = Reply.done

        package init(completion: PushStore.Completion? = nil) {
            self.completion = completion
        }

        /// Writes `push`'s `fate` (and slot `generation`): into `arriving`'s row when that is
        /// the push, not yet written (one statement fewer), else as an update after it.
        mutating func settle(_ push: UInt64, _ fate: PushFate, generation: UInt32? = nil, arriving: inout PushRecord?) {
            if arriving?.id == push {
                arriving?.fate = fate
                if let generation { arriving?.generation = generation }
            } else {
                changes.append(.setFate(push: push, fate: fate, generation: generation))
            }
        }

        /// The pushes `head` replaced, back along its chain, take `fate` (coalesced into its
        /// wake, or its own end), unless `head` is the push in hand and replaced none.
        mutating func close(_ head: UInt64, _ fate: PushFate, arriving: PushRecord?) {
            if arriving?.id == head, arriving?.replaced == nil { return }
            changes.append(.closeGeneration(head: head, fate: fate))
        }

        /// Adds what `later` leaves to do after this (a restart's many steps, carried out as
        /// one); its completion and reply, if any, replace these.
        package mutating func append(_ later: Actions) {
            changes += later.changes
            if let completion = later.completion { self.completion = completion }
            runs += later.runs
            ended += later.ended
            handlersCancelled += later.handlersCancelled
            metrics.add(later.metrics)
            armTimer = later.armTimer ?? armTimer
            taskRuns += later.taskRuns
            taskExpirations += later.taskExpirations
            taskTerminations += later.taskTerminations
            taskInterruptions += later.taskInterruptions
            tasksEnded += later.tasksEnded
            transferStarts += later.transferStarts
            transferInterrupts += later.transferInterrupts
            transferDiscards += later.transferDiscards
            relaunchesCancelled += later.relaunchesCancelled
            if later.reply != .done { reply = later.reply }
        }
    }

    package internal(set) var policy: Policy
    /// The devices' Live Activities.
    package internal(set) var activities: LiveActivityPolicy
    /// The devices' widget and control reloads by push.
    package internal(set) var reloads: ReloadPolicy
    /// The apps' background `URLSession` transfers.
    package internal(set) var transfers: TransferPolicy
    /// The next task request's id: the app's submissions and the system's relaunches share it.
    package internal(set) var nextTaskRequestID: UInt64
    /// Live Activity pushes an activity holds back, by apns-id and activity (a provider may
    /// send several pushes with one apns-id): their row's id and priority, so the fate the row
    /// shows follows the update when it is released or replaced, and whether APNs keeps it for
    /// the offline device (a push replaced there says so).
    var heldActivityPushes: [HeldActivityPush: (id: UInt64, priority: APNsPriority, app: LiveActivityApp, atAPNs: Bool)] = [:]

    /// The apps recorded as known in this run (`StoreChange.knowApp`): devices are listed
    /// from the store's record of them.
    var knownApps = KnownAppCache()

    /// Which held push an activity's update decides: its source (the apns-id) and activity.
    struct HeldActivityPush: Hashable {
        var source: String
        var activityID: String?
    }
    /// Wakes whose fetch runs, by wake id.
    package private(set) var running: [UInt64: Start] = [:]
    /// Wakes recorded ended without their handler's answer, other than at their deadline
    /// (killed with the app, or cut at the shutdown grace's end), with the result recorded,
    /// until their handlers return: what those say then is not what was recorded.
    private var unanswered: [UInt64: FetchResult] = [:]
    /// The running wakes and task runs (before their expiry, or their termination) whose
    /// handlers a move of the manual clock has given their real time (`advanceStep`): each is
    /// given it once, in the first move that starts past it or crosses its deadline. A wake's
    /// says whether that time passed unanswered (`realTimeSpent`).
    private var realTimeGiven: [UInt64: RealTime] = [:]
    private var realTimeGivenTasks: Set<TaskWait> = []
    /// Whether a move of the manual clock is under way, and to where: one at a time.
    package private(set) var clockMove = ClockMove.idle

    /// A move of the manual clock.
    package enum ClockMove: Equatable, Sendable {
        case idle
        /// Toward `to`; `tries`: the transfer tries its timers started, which the move lets
        /// end before it passes them (their retry is timed from where they began).
        case moving(to: DeviceInstant, tries: Set<TransferTryKey>)
    }

    /// Where a running wake's handler is in the real time a move of the manual clock gives it.
    enum RealTime: Equatable {
        /// The move waits for its answer.
        case waiting
        /// It passed unanswered: the handler is cancelled, and the wake ends at its deadline.
        case spent
    }

    /// One try of a transfer.
    package struct TransferTryKey: Hashable, Sendable {
        package var id: UInt64
        package var attempt: Int

        package init(id: UInt64, attempt: Int) {
            self.id = id
            self.attempt = attempt
        }
    }
    /// Background task runs in progress, by run id.
    package private(set) var runningTasks: [UInt64: RunningTask] = [:]
    package private(set) var lifecycle = Lifecycle.running
    /// A clustered receiver's shards (nil: not clustered, every device is its own).
    package internal(set) var shards: Shards?
    /// Where the catch-up of adopted activities on the broadcasts they missed is.
    package internal(set) var broadcastCatchUp = BroadcastCatchUp.idle

    /// The catch-up of the Live Activities of adopted shards on the broadcasts they missed
    /// while no receiver held them (`DeviceRecorder+Cluster`).
    package enum BroadcastCatchUp: Equatable, Sendable {
        case idle
        /// From the adoption to `catchUp`: the shards adopted whose activities are still to
        /// catch up (a read that failed is tried again at the next claim), and the broadcasts
        /// that arrived here meanwhile. Their fan-out reaches the adopted activities, so the
        /// catch-up skips them, and a missed one older on the same channel gives way to them.
        case reading(shards: Set<Int>, arrived: [Arrival])
        /// After `catchUp`: the activities each broadcast it delivered reached. Another
        /// member's fan-out of one of them, arriving later, skips those activities.
        case delivered(reached: [String: Set<String>])
    }

    /// A broadcast that arrived while the catch-up read and fanned out: its source, channel,
    /// arrival, and the shards then catching up, whose activities it reached.
    package struct Arrival: Equatable, Sendable {
        package var source: String
        package var channel: LiveActivityPolicy.ChannelKey
        package var receivedAt: DeviceInstant
        package var shards: Set<Int>

        package init(source: String, channel: LiveActivityPolicy.ChannelKey, receivedAt: DeviceInstant, shards: Set<Int>) {
            self.source = source
            self.channel = channel
            self.receivedAt = receivedAt
            self.shards = shards
        }
    }
    /// The device time a manual clock's advance has reached: the executor moves the clock
    /// there after releasing its lock, and steps every event at this time at least, so an
    /// event that reads the clock before it moves is not stepped in the past.
    package private(set) var advancedTo = DeviceInstant(nanosecondsSinceEpoch: .min)
    /// When the system-clock timer fires next; nil: not armed (or a manual clock).
    private var armedTimer: DeviceInstant?
    private let armsTimers: Bool
    /// What the pending-slots gauge shows: it is set only when the count moves.
    private var reportedPendingSlots = 0

    /// A recorder over `policy`; `shards`: a clustered receiver's (it owns none yet); `armsTimers`: the device runs on the system clock, so policy
    /// deadlines need a timer.
    package init(
        policy: Policy, activities: LiveActivityPolicy = LiveActivityPolicy(), reloads: ReloadPolicy? = nil,
        transfers: TransferPolicy = TransferPolicy(), firstTaskRequestID: UInt64 = 1, shards: Shards? = nil, armsTimers: Bool
    ) {
        self.policy = policy
        self.shards = shards
        self.transfers = transfers
        nextTaskRequestID = firstTaskRequestID
        self.activities = activities
        self.reloads = reloads ?? ReloadPolicy(settings: policy.settings)
        self.armsTimers = armsTimers
    }

    /// The earliest timer of the wake policy, the Live Activities and the reloads.
    package var nextDeadline: DeviceInstant? {
        // Read on every event: no array built.
        func earlier(_ a: DeviceInstant?, _ b: DeviceInstant?) -> DeviceInstant? {
            guard let a else { return b }
            guard let b else { return a }
            return min(a, b)
        }
        return earlier(earlier(earlier(policy.nextDeadline, activities.nextDeadline), reloads.nextDeadline), transfers.nextDeadline)
    }

    /// Takes the next task request id (inside an event: the ids are the recorder's to give).
    mutating func takeTaskRequestID() -> UInt64 {
        defer { nextTaskRequestID += 1 }
        return nextTaskRequestID
    }

    /// When the system-clock timer fires next: the next deadline, while running (timers no
    /// longer fire while stopping: one left armed at a past instant woke the timer at once,
    /// without end, for the whole shutdown grace).
    package var timerDeadline: DeviceInstant? {
        guard case .running = lifecycle else { return nil }
        return nextDeadline
    }

    /// What every event ends with: the timer to arm when the policy's next deadline moved
    /// before it, and the pending-slots gauge when the count moved.
    mutating func finish(_ actions: consuming Actions) -> Actions {
        if armsTimers {
            let next = timerDeadline
            // Another step fired the armed instant (or timers stopped): forgotten, so that a
            // later deadline is armed, and the timer told, again.
            if let armed = armedTimer, next.map({ $0 > armed }) ?? true { armedTimer = nil }
            if let next, armedTimer.map({ next < $0 }) ?? true {
                armedTimer = next
                actions.armTimer = next
            }
        }
        if policy.pendingSlotCount != reportedPendingSlots {
            reportedPendingSlots = policy.pendingSlotCount
            actions.metrics.pendingSlots = reportedPendingSlots
        }
        return actions
    }

    /// An event that does nothing but answer `reply` (by default, a refusal while stopping).
    static func replying(_ reply: Reply = .stopping, completion: PushStore.Completion? = nil) -> Actions {
        var actions = Actions(completion: completion)
        actions.reply = reply
        return actions
    }

    /// Records the app `topic` names on `device` as known (`StoreChange.knowApp`, by its
    /// bundle id) unless this run did already. `topic` is the cache's key as sent, so a push
    /// to an app already known maps nothing.
    mutating func know(_ device: String, topic: String, bundleID: @autoclosure () -> String, into actions: inout Actions) {
        guard knownApps.insert(device: device, topic: topic) else { return }
        actions.changes.append(.knowApp(deviceToken: device, topic: bundleID()))
    }

    /// Records the app of an accepted push as known (see `know(_:topic:bundleID:into:)`),
    /// but a Live Activity push's: its token is a push-to-start or an activity's token, not
    /// a device's (its activity records the app).
    mutating func know(_ record: borrowing PushRecord, into actions: inout Actions) {
        let (device, topic, type) = (record.deviceToken, record.topic, APNsPushType(rawValue: record.pushType))
        guard type != .liveactivity else { return }
        know(device, topic: topic, bundleID: type?.bundleID(ofTopic: topic) ?? topic, into: &actions)
    }

    /// The store's writes failed, or succeed again: an app recorded known meanwhile may have
    /// gone with a batch that failed, so each is recorded again at its next push.
    package mutating func storeWritabilityChanged() -> Actions {
        knownApps.removeAll()
        return finish(Actions())
    }

    // MARK: - Events

    /// A push APNs accepted, recorded as `record`; `incoming` is what the policy sees (nil:
    /// it can never wake the app and is recorded dropped as it is). `completion` runs once
    /// its row is committed. Replies `stopping`, doing nothing, while stopping.
    package mutating func receive(
        _ record: consuming PushRecord, incoming: IncomingPush<DeviceInstant>?, now: DeviceInstant,
        completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying() }
        guard owns(record.deviceToken) else { return Self.replying(.notOwner) }
        if let refused = refusingLiveActivityToken(record, now: now) { return refused }
        var actions = Actions(completion: completion)
        guard let incoming else {
            if let reason = record.fate.dropReason { actions.metrics.dropped(reason) }
            know(record, into: &actions)
            actions.changes.append(.insertPush(record))
            apply(policy.advance(to: now), to: &actions)
            return finish(actions)
        }
        // The push's own row comes first, written with the fate its actions give it: its slot
        // is held by a placeholder meanwhile, so the record is moved, not copied.
        actions.changes.reserveCapacity(4)  // the row, a wake, its push's fate, the slot's close
        actions.changes.append(.probe(at: 0))
        let app = App(device: record.deviceToken, topic: record.topic)
        var inserting: PushRecord? = consume record
        apply(policy.receive(incoming, for: app, now: now), to: &actions, inserting: &inserting)
        if var pushRow = inserting.take() {
            // For an offline device APNs holds it: its storage limit counts from its arrival,
            // after a restart too (a restart reads the mark of a pending row), and says why one
            // expired as it arrived (`--apns-storage-limit 0`). One dropped APNs never held.
            pushRow.heldAtAPNs = pushRow.fate.kind != .dropped && policy.holdsAtAPNs(app.device)
            // A push that replaced the one waiting in its app's slot is for an app recorded
            // known already (when that one arrived, or in the run that restored it): no lookup.
            if pushRow.replaced == nil { know(pushRow, into: &actions) }
            actions.changes[0] = .insertPush(pushRow)
        }
        return finish(actions)
    }

    /// A request APNs refused, or a fault rule answered, as its row. Replies `stopping`,
    /// doing nothing, while stopping.
    package mutating func reject(_ record: PushRecord) -> Actions {
        guard case .running = lifecycle else { return Self.replying() }
        guard record.deviceToken.isEmpty || owns(record.deviceToken) else { return Self.replying(.notOwner) }
        var actions = Actions()
        actions.changes.append(.insertPush(record))
        return finish(actions)
    }

    /// The handler of `start` answered `result`. Replies with the result the wake ends with:
    /// `deadlineExceeded` when it was already cancelled at its deadline, `killed` when the
    /// device killed the app meanwhile (the answer is ignored).
    package mutating func fetchCompleted(_ start: Start, result: FetchResult, now: DeviceInstant) -> Actions {
        var actions = Actions()
        guard running[start.wakeID] != nil else {
            // Ended without it: at its deadline, or as `unanswered` says.
            actions.reply = .fetchRecorded(unanswered.removeValue(forKey: start.wakeID) ?? .deadlineExceeded)
            return finish(actions)
        }
        // Its real time passed unanswered: what it says now comes too late, and the wake
        // ends at its deadline.
        guard realTimeGiven[start.wakeID] != .spent else {
            actions.reply = .fetchRecorded(.deadlineExceeded)
            return finish(actions)
        }
        switch lifecycle {
        case .stopping:
            // Record the answer but start nothing new: what waits stays pending in the store
            // for the next run.
            end(start.wakeID, &actions)
            finishWake(start.wakeID, at: now, result: result, &actions)
            actions.reply = .fetchRecorded(result)
        case .running:
            let (accepted, policyActions) = policy.fetchCompleted(wakeID: start.wakeID, app: start.app, now: now)
            if accepted {
                end(start.wakeID, &actions)
                finishWake(start.wakeID, at: now, result: result, &actions)
            }
            apply(policyActions, to: &actions)
            actions.reply = .fetchRecorded(accepted ? result : .deadlineExceeded)
        }
        return finish(actions)
    }

    /// Keeps what wake `wakeID`'s handler wrote to stderr with the wake.
    package mutating func recordErrorOutput(_ text: String, wakeID: UInt64) -> Actions {
        var actions = Actions()
        actions.changes.append(.setWakeErrorOutput(id: wakeID, text: text))
        return finish(actions)
    }

    /// Fires the policy's timers due by `now`.
    package mutating func advance(to now: DeviceInstant) -> Actions {
        var actions = Actions()
        if case .running = lifecycle {
            apply(policy.advance(to: now), to: &actions)
            record(activities.advance(to: now), into: &actions)
            record(reloads.advance(to: now), into: &actions)
            record(transfers.advance(to: now), into: &actions, now: now)
        }
        return finish(actions)
    }

    /// The system-clock timer for `at` fired. Before `at` (the sleep ended early, or was cut
    /// short to look at the clock again) the timer stays armed for it: re-arming would wake
    /// the timer at once, which would find it early again, without end.
    package mutating func timerFired(at: DeviceInstant, now: DeviceInstant) -> Actions {
        if armedTimer == at, now >= at { armedTimer = nil }
        return advance(to: now)
    }

    /// `device`'s state changed; `completion` runs once the change is committed. Back online,
    /// a Live Activity start APNs kept for it subscribes to its channel if that is among
    /// `startChannels.existing`; replies `channelsChanged`, changing nothing, when a start was
    /// kept on a channel not among `startChannels.lookedUp` (look them up again). `launches`:
    /// the device's launches of the last day as the store had them at `readAt` (read once what
    /// was queued then was committed), which a budget the change gives counts; replies
    /// `launchesChanged`, changing nothing, when the change gives one and they were not read.
    package mutating func setDeviceState(
        _ new: DeviceState, for device: String,
        startChannels: (lookedUp: Set<LiveActivityPolicy.ChannelKey>, existing: Set<LiveActivityPolicy.ChannelKey>) = ([], []),
        launches: (read: [(app: App, at: DeviceInstant)], readAt: DeviceInstant)? = nil, now: DeviceInstant,
        completion: @escaping PushStore.Completion
    ) -> Actions {
        // While stopping nothing starts: a change that would start or kill work waits for the
        // next run.
        guard case .running = lifecycle else { return Self.replying(.stopping, completion: completion) }
        let old = policy.deviceState(DeviceKey(device))
        let wasOnline = old.network == .online
        if new.network == .online, !wasOnline, !Set(activities.channelsToLookUp(device: device)).isSubset(of: startChannels.lookedUp) {
            return Self.replying(.channelsChanged, completion: completion)
        }
        var counted: (counted: [(app: App, at: DeviceInstant)], through: DeviceInstant)?
        if Self.budgetCounts(from: old, to: new, profile: policy.settings.dailyBudget) {
            guard let launches else { return Self.replying(.launchesChanged, completion: completion) }
            counted = launchesCounted(launches, of: device)
        }
        var actions = Actions(completion: completion)
        changeDeviceState(
            device, from: old, to: new, channelExists: startChannels.existing.contains, launches: counted, now: now, into: &actions)
        return finish(actions)
    }

    /// Whether the change from `old` to `new` changes the budget in force (`profile`'s where
    /// the device has none) to one, which counts the launches of the last day: the device kept
    /// them only under a budget, and only that budget's worth.
    package static func budgetCounts(from old: DeviceState, to new: DeviceState, profile: Int?) -> Bool {
        let budget = new.dailyBudget ?? profile
        return budget != nil && budget != (old.dailyBudget ?? profile)
    }

    /// The launches a new budget counts: those the store had before the first whole
    /// millisecond after `readAt` (it keeps milliseconds), and the wakes and task runs of
    /// `device` running now that began from then on (a launch since that also ended is
    /// counted only if the policy kept it).
    private func launchesCounted(
        _ launches: (read: [(app: App, at: DeviceInstant)], readAt: DeviceInstant), of device: String
    ) -> (counted: [(app: App, at: DeviceInstant)], through: DeviceInstant) {
        let through = DeviceInstant(millisecondsSinceEpoch: launches.readAt.millisecondsSinceEpoch + 1)
        let key = DeviceKey(device)
        var counted = launches.read.filter { $0.at < through }
        for start in running.values where start.app.device == key && start.startedAt >= through { counted.append((start.app, start.startedAt)) }
        for task in runningTasks.values
        where task.start.app.device == key && !task.start.simulated && task.start.request.kind != .continued && task.start.startedAt >= through {
            counted.append((task.start.app, task.start.startedAt))
        }
        return (counted, through)
    }

    /// Records `device`'s new state and what it changes for each policy.
    private mutating func changeDeviceState(
        _ device: String, from old: DeviceState, to new: DeviceState, channelExists: (LiveActivityPolicy.ChannelKey) -> Bool,
        launches: (counted: [(app: App, at: DeviceInstant)], through: DeviceInstant)? = nil, now: DeviceInstant, into actions: inout Actions
    ) {
        actions.changes.append(.setDevice(token: device, state: new))
        apply(policy.setDeviceState(new, for: DeviceKey(device), launches: launches, now: now), to: &actions)
        deviceChangedForTransfers(device, from: old, to: new, now: now, into: &actions)
        if (old.network == .online) != (new.network == .online) {
            let changed =
                new.network == .online
                ? activities.setOnline(device: device, channelExists: channelExists, now: now)
                : activities.setOffline(device: device, now: now)
            record(changed, into: &actions)
            if new.network == .online { record(reloads.deviceOnline(device, now: now), into: &actions) }
        }
    }

    /// The user opened the app at `opened` (see `WakePolicy.setLastOpened`), which ends a
    /// force-quit of its device's app.
    package mutating func setLastOpened(
        _ opened: DeviceInstant?, for app: App, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying(.stopping, completion: completion) }
        var actions = Actions(completion: completion)
        // Opening the app now ends a force-quit: background launches resume (a time in the
        // past, as a usage test sets, says nothing of when the force-quit was).
        if let opened, opened >= now { endForceQuit(app.deviceToken, now: now, into: &actions) }
        actions.changes.append(.setLastOpened(deviceToken: app.deviceToken, topic: app.topic, at: opened?.millisecondsSinceEpoch))
        apply(policy.setLastOpened(opened, for: app, now: now), to: &actions)
        return finish(actions)
    }

    /// A force-quit of `device`'s app ends (Apple: "the user must relaunch your app or restart
    /// the device before the system attempts to launch your app automatically again").
    private mutating func endForceQuit(_ device: String, now: DeviceInstant, into actions: inout Actions) {
        let old = policy.deviceState(DeviceKey(device))
        guard old.forceQuit else { return }
        var new = old
        new.forceQuit = false
        changeDeviceState(device, from: old, to: new, channelExists: { _ in false }, now: now, into: &actions)
    }

    /// The apps of `device` were deleted (a reinstall gave them a new token): the push each
    /// slot holds is dropped, pending task requests are cancelled (relaunches for a background
    /// session too, their files deleted) and background transfers cancelled, as for a
    /// force-quit (`WakePolicy.appDeleted`), and their Live Activities dismissed
    /// (`LiveActivityPolicy.appDeleted`).
    /// `recording`: changes to commit with these (an uninstall's unregistration), so a crash
    /// leaves neither without the other.
    package mutating func appDeleted(
        _ device: String, recording: [StoreChange] = [], now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else {
            var actions = Self.replying(completion: completion)
            actions.changes = recording
            return actions
        }
        var actions = Actions(completion: completion)
        actions.changes = recording
        // The relaunches waiting for its sessions go with it (`WakePolicy.appDeleted`), and
        // with them the files their transfers kept.
        let key = DeviceKey(device)
        actions.relaunchesCancelled = policy.knownApps.filter { $0.device == key }.flatMap { app in
            policy.pendingTasks(of: app).filter { $0.request.kind == .urlSession }.map(\.request.id)
        }
        apply(policy.appDeleted(device: key, now: now), to: &actions)
        record(transfers.forceQuit(device: device, now: now), into: &actions, now: now, cancelledBecause: .appDeleted)
        record(activities.appDeleted(device: device, now: now), into: &actions)
        record(reloads.appDeleted(device: device), into: &actions)
        return finish(actions)
    }

    /// `device` restarted (see `WakePolicy.reboot`), which also ends a force-quit: after the
    /// restart has killed what ran and begun the warm-up, so nothing the force-quit held
    /// starts before them.
    package mutating func reboot(_ device: String, now: DeviceInstant, completion: @escaping PushStore.Completion) -> Actions {
        guard case .running = lifecycle else { return Self.replying(.stopping, completion: completion) }
        var actions = Actions(completion: completion)
        apply(policy.reboot(DeviceKey(device), now: now), to: &actions)
        endForceQuit(device, now: now, into: &actions)
        actions.reply = .warmingUp(until: now.advanced(by: policy.settings.rebootWarmup))
        return finish(actions)
    }

    /// Whose a forget's records are to delete.
    package enum ForgottenRecords: Sendable, Equatable {
        /// This forget deletes them.
        case deleted
        /// Another member of the cluster deleted them before it ordered this one to forget:
        /// the order, carried out late (by a member that was frozen), must not delete what
        /// the cluster recorded since.
        case deletedByTheSender
    }

    /// Forgets `device` (nil: every device), and its records unless another member deleted them.
    package mutating func forget(
        _ device: String?, records: ForgottenRecords = .deleted, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying(.done, completion: completion) }
        var actions = Actions(completion: completion)
        if let device {
            apply(policy.forget(DeviceKey(device), now: now), to: &actions)
            if records == .deleted { actions.changes.append(.forgetDevice(token: device)) }
        } else {
            apply(policy.forgetAll(now: now), to: &actions)
            // Another member's reset deleted every row before its order: a push this one
            // recorded since, its app cached as known, named no `apps` row.
            actions.changes.append(records == .deleted ? .forgetEverything : .knowAppsFromRecords)
        }
        knownApps.removeAll()
        activities.forget(device: device)
        reloads.forget(device: device)
        // Forgotten with the device: their tries stop and what they kept goes.
        let forgotten = transfers.forget(device: device)
        actions.transferInterrupts += forgotten
        actions.transferDiscards += forgotten
        heldActivityPushes = heldActivityPushes.filter { device != nil && $0.value.app.device != device }
        return finish(actions)
    }

    // MARK: Background tasks

    /// The app submitted a task request (`record`, declared as `declaration`). Replies
    /// `taskRefused` with Apple's error when it is refused; nothing is recorded then.
    /// `completion` runs once the accepted request is committed.
    package mutating func submitTask(
        _ record: TaskRequestRecord, declaration: AppDeclaration?, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying(.stopping) }
        var record = record
        // Numbered here: the system's relaunches take ids from the same sequence.
        record.request.id = takeTaskRequestID()
        let app = App(device: record.deviceToken, topic: record.topic)
        let (error, policyActions) = policy.submitTask(record.request, for: app, declaration: declaration, now: now)
        var actions = Actions()
        if let error {
            let why = error == .immediateRunIneligible ? policy.immediateRunHold(record.request, of: app, now: now) : nil
            actions.reply = .taskRefused(TaskRefusal(error: error, why: why))
        } else {
            actions.completion = completion
            actions.changes.append(.insertTaskRequest(record))
            know(app.deviceToken, topic: app.topic, bundleID: app.topic, into: &actions)
            actions.reply = .taskSubmitted(id: record.request.id)
        }
        apply(policyActions, to: &actions)
        return finish(actions)
    }

    /// The app cancelled its request `identifier` (nil: every request). Replies how many
    /// were pending.
    package mutating func cancelTasks(identifier: String?, for app: App, now: DeviceInstant, completion: @escaping PushStore.Completion) -> Actions {
        guard case .running = lifecycle else { return Self.replying(.cancelledTasks(0), completion: completion) }
        var actions = Actions(completion: completion)
        if let identifier {
            let (found, policyActions) = policy.cancelTask(identifier: identifier, for: app, now: now)
            apply(policyActions, to: &actions)
            actions.reply = .cancelledTasks(found ? 1 : 0)
        } else {
            // The system's relaunches for a `URLSession` stay: they are not the app's to cancel.
            let count = policy.pendingTasks(of: app).count { $0.request.kind != .urlSession }
            apply(policy.cancelAllTasks(for: app, now: now), to: &actions)
            actions.reply = .cancelledTasks(count)
        }
        return finish(actions)
    }

    /// The debugger launches (`expire` false) or expires the task `identifier`. Replies
    /// whether there was one to launch (pending) or to expire (running).
    package mutating func simulateTask(
        _ identifier: String, expire: Bool, for app: App, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying(.found(false), completion: completion) }
        var actions = Actions(completion: completion)
        let (found, policyActions) =
            expire
            ? policy.simulateTaskExpiration(identifier: identifier, for: app, now: now)
            : policy.simulateTaskLaunch(identifier: identifier, for: app, now: now)
        apply(policyActions, to: &actions)
        actions.reply = .found(found)
        return finish(actions)
    }

    /// What a running task's handler reported.
    package mutating func taskReport(_ report: BackgroundTask.Report, runID: UInt64, app: App, now: DeviceInstant) -> Actions {
        var actions = Actions()
        guard case .running = lifecycle else {
            // Stopping, a run that completes within the grace ends as it would, and nothing
            // new starts; once the grace is over the runs still going were cut (`cutRunningTasks`).
            guard case .completed(let success) = report, let task = runningTasks.removeValue(forKey: runID) else { return actions }
            let expired = if case .expired = task.phase { true } else { false }
            let outcome = TaskOutcome.completion(success: success, expired: expired)
            actions.changes.append(.finishTaskRun(id: runID, at: now.millisecondsSinceEpoch, outcome: outcome))
            actions.tasksEnded.append(runID)
            actions.metrics.taskEnded(outcome)
            return finish(actions)
        }
        switch report {
        case .completed(let success):
            apply(policy.taskCompleted(runID: runID, app: app, success: success, now: now).actions, to: &actions)
        case .progress(let completed, let total):
            if policy.taskProgress(runID: runID, app: app, completed: completed, total: total) {
                actions.changes.append(.setTaskProgress(id: runID, completed: max(0, min(completed, total)), total: max(0, total)))
            }
        }
        return finish(actions)
    }

    /// Run `runID`'s handler is gone, without completing, its grace after the expiration
    /// handler over in real time: the run is terminated now (`WakePolicy.taskGraceOver`).
    package mutating func taskGraceOver(runID: UInt64, app: App, now: DeviceInstant) -> Actions {
        var actions = Actions()
        // A move of the manual clock fires the grace's own timer, at its device time.
        guard case .running = lifecycle, case .idle = clockMove else { return actions }
        apply(policy.taskGraceOver(runID: runID, app: app, now: now), to: &actions)
        return finish(actions)
    }

    /// Puts back a request a restarted receiver found pending.
    package mutating func restoreTask(_ record: TaskRequestRecord, now: DeviceInstant) -> Actions {
        var actions = Actions()
        apply(policy.restoreTask(record.request, for: App(device: record.deviceToken, topic: record.topic), now: now), to: &actions)
        return finish(actions)
    }

    /// Puts back an app as a restarted receiver found it (see `WakePolicy.restore`).
    package mutating func restore(
        app: App, generation: UInt32, nextAllowed: DeviceInstant?, overran: Bool = false, pending: IncomingPush<DeviceInstant>?,
        coalesced: UInt32 = 0, now: DeviceInstant
    ) -> Actions {
        var actions = Actions()
        apply(
            policy.restore(
                app: app, generation: generation, nextAllowed: nextAllowed, overran: overran, pending: pending, coalesced: coalesced, now: now),
            to: &actions)
        return finish(actions)
    }

    /// One step of moving a manual clock to `target`.
    package enum AdvanceStep: Equatable {
        /// The clock moved to `to`, where the policy's next timer fired; step again.
        case fired(to: DeviceInstant)
        /// Before the next timer, these running wakes reach their deadline: give their
        /// handlers time to answer, then step again.
        case wait([UInt64])
        /// Before the next timer, these task runs may expire or be terminated: give their
        /// handlers time to end, then step again.
        case waitTasks([TaskWait])
        /// Transfer tries this move started still run: give them time to end (a try that
        /// fails is retried a delay after the time it began), then step again.
        case waitTransfers([TransferTryKey])
        /// The clock reached the target.
        case done
        /// The device has stopped (or is stopping): no timer fires any more.
        case stopped
    }

    /// A task run an advance waits for, in the phase it waits in: a run waited for before
    /// its expiry is waited for again before its termination, for its grace.
    package struct TaskWait: Hashable, Sendable {
        /// What the wait comes before.
        package enum Before: Hashable, Sendable {
            /// The run's expiry: its handler gets its time limit.
            case expiry
            /// Its termination, once expired: its handler gets the grace.
            case termination
        }

        package var runID: UInt64
        package var before: Before

        package init(runID: UInt64, before: Before) {
            self.runID = runID
            self.before = before
        }
    }

    /// A move of the manual clock to `target` begins; replies `clockBusy` when one is under way.
    package mutating func beginClockMove(to target: DeviceInstant) -> Actions {
        guard case .idle = clockMove else { return Self.replying(.clockBusy) }
        clockMove = .moving(to: target, tries: [])
        return finish(Actions())
    }

    /// The move of the manual clock ended (reached, or given up).
    package mutating func endClockMove() -> Actions {
        clockMove = .idle
        return finish(Actions())
    }

    /// The real time a move of the manual clock gave `wakes`' handlers has passed. Those that
    /// have not answered are cancelled, as a device ends a fetch at its deadline: each wake
    /// ends there, `failed` (`deadlineExceeded`), whatever its handler says after.
    package mutating func realTimeSpent(_ wakes: [UInt64]) -> Actions {
        var actions = Actions()
        for wakeID in wakes where running[wakeID] != nil && realTimeGiven[wakeID] == .waiting {
            realTimeGiven[wakeID] = .spent
            actions.handlersCancelled.append(wakeID)
        }
        return finish(actions)
    }

    /// Moves toward `target`: up to the next timer inside the span, unless a running wake or
    /// task run has not had its real time (`realTimeGiven`: in an earlier step of this move or
    /// another) and the step would move the clock past its start or cross its deadline:
    /// its handler first gets up to its deadline's (time limit's) length in real time to
    /// answer, once, so a quick one answers at the device time it started, not at whatever
    /// timer comes next; a run about to be terminated, its grace. Likewise a transfer try the
    /// move started that still runs (each is waited for once: the move forgets the tries it
    /// hands over to wait for). Replies `advance` with the step.
    package mutating func advanceStep(toward target: DeviceInstant) -> Actions {
        // Timers fire only while running: stepping on would fire none and never get there.
        guard case .running = lifecycle else { return Self.replying(.advance(.stopped)) }
        if case .moving(let to, let tries) = clockMove, !tries.isEmpty {
            clockMove = .moving(to: to, tries: [])
            let running = tries.filter { key in
                guard case .running(let attempt)? = transfers.transfers[key.id]?.phase else { return false }
                return attempt == key.attempt
            }
            if !running.isEmpty {
                return Self.replying(.advance(.waitTransfers(running.sorted { ($0.id, $0.attempt) < ($1.id, $1.attempt) })))
            }
        }
        // The next timer inside the span, if any; this step moves the clock to it, else to the
        // span's end.
        let timer = nextDeadline.flatMap { $0 <= target ? $0 : nil }
        let step = timer ?? target
        let moves = step > advancedTo
        // What ended meanwhile needs no memory of its wait.
        realTimeGiven = realTimeGiven.filter { running[$0.key] != nil }
        realTimeGivenTasks = realTimeGivenTasks.filter { runningTasks[$0.runID] != nil }
        // About to be past its start (`advancedTo`: where the clock is), or its deadline.
        let due = running.values.filter { wake in
            realTimeGiven[wake.wakeID] == nil && ((moves && wake.startedAt >= advancedTo) || wake.deadline <= step)
        }
        if !due.isEmpty {
            for wake in due { realTimeGiven[wake.wakeID] = .waiting }
            return Self.replying(.advance(.wait(due.map(\.wakeID).sorted())))
        }
        // A task about to expire or be terminated: its handler first gets real time to end.
        let dueTasks = runningTasks.values.compactMap { task -> TaskWait? in
            let wait: TaskWait
            switch task.phase {
            case .expired:
                // Its grace ends at the next timer or later.
                guard timer != nil else { return nil }
                wait = TaskWait(runID: task.start.runID, before: .termination)
            case .running:
                // A continued task has no time limit.
                guard let deadline = task.start.deadline, (moves && task.start.startedAt >= advancedTo) || deadline <= step else { return nil }
                wait = TaskWait(runID: task.start.runID, before: .expiry)
            }
            return realTimeGivenTasks.contains(wait) ? nil : wait
        }
        if !dueTasks.isEmpty {
            realTimeGivenTasks.formUnion(dueTasks)
            return Self.replying(.advance(.waitTasks(dueTasks.sorted { $0.runID < $1.runID })))
        }
        guard let next = timer else {
            advancedTo = max(advancedTo, target)
            var actions = advance(to: target)
            actions.reply = .advance(.done)
            return actions
        }
        advancedTo = max(advancedTo, next)
        var actions = advance(to: next)
        if case .moving(let to, var tries) = clockMove, !actions.transferStarts.isEmpty {
            tries.formUnion(actions.transferStarts.map { TransferTryKey(id: $0.id, attempt: $0.attempt) })
            clockMove = .moving(to: to, tries: tries)
        }
        actions.reply = .advance(.fired(to: next))
        return actions
    }

    /// Ends every task run still running at `now` (the receiver's shutdown grace is over):
    /// each is recorded `interrupted` and its handler stopped. Nothing is deferred for it; a
    /// relaunch's request is pending again, so the next start relaunches the app with its
    /// files, unless its handler had returned (`returned`: those runs; its files were settled).
    package mutating func cutRunningTasks(now: DeviceInstant, returned: Set<UInt64> = []) -> Actions {
        var actions = Actions()
        for (runID, task) in runningTasks.sorted(by: { $0.key < $1.key }) {
            actions.changes.append(.finishTaskRun(id: runID, at: now.millisecondsSinceEpoch, outcome: .interrupted))
            if task.start.request.kind == .urlSession, !returned.contains(runID) {
                actions.changes.append(.setTaskRequest(id: task.start.request.id, state: .pending, why: nil, at: nil))
            }
            actions.taskInterruptions.append(runID)
            actions.tasksEnded.append(runID)
            actions.metrics.taskEnded(.interrupted)
        }
        runningTasks = [:]
        return finish(actions)
    }

    /// The pushes retention must keep whatever their age: those waiting in an app's slot, in
    /// a Live Activity's or an extension's hold, and those whose wake still runs.
    package var retainedPushes: Set<UInt64> {
        var pushes = policy.pendingPushes
        for held in heldActivityPushes.values { pushes.insert(held.id) }
        pushes.formUnion(reloads.heldPushes)
        for start in running.values { pushes.insert(start.push) }
        return pushes
    }

    /// The broadcasts (records' ids, by channel) retention must keep whatever their age: the
    /// messages the channels keep (the caller leaves out channels deleted since).
    package var retainedBroadcasts: [LiveActivityPolicy.ChannelKey: UInt64] { activities.keptMessageRecords }

    /// Stops taking pushes and starting wakes; replies `stoppingWith` the wakes still running.
    /// Once stopping, it changes nothing: the wakes already cut keep what was recorded.
    package mutating func beginShutdown() -> Actions {
        if case .running = lifecycle { lifecycle = .stopping }
        return Self.replying(.stoppingWith(running: running.keys.sorted()))
    }

    /// Ends every wake still running at `now` (a shutdown's grace is over): each is recorded
    /// failed, `deadlineExceeded` if past its deadline, else `shutdown`, and its task cancelled.
    package mutating func cutRunning(now: DeviceInstant) -> Actions {
        var actions = Actions()
        for wakeID in running.keys.sorted() {
            guard let start = end(wakeID, &actions, cancelling: true) else { continue }
            // Timers no longer fire while stopping: a wake past its deadline overran.
            let result: FetchResult = now >= start.deadline ? .deadlineExceeded : .shutdown
            finishWake(wakeID, at: min(now, start.deadline), result: result, &actions)
            unanswered[wakeID] = result
        }
        return finish(actions)
    }

    // MARK: - Policy actions

    /// Records wake `wakeID` ended at `at` with `result`, and counts it.
    private func finishWake(_ wakeID: UInt64, at: DeviceInstant, result: FetchResult, _ actions: inout Actions) {
        actions.changes.append(.finishWake(id: wakeID, finishedAt: at.millisecondsSinceEpoch, result: result))
        actions.metrics.wakesEnded.append(result)
    }

    /// The wake leaves `running`: its waiters are resumed and, when `cancelling`, its
    /// handler is cancelled. Returns its start, if it was running.
    @discardableResult
    private mutating func end(_ wakeID: UInt64, _ actions: inout Actions, cancelling: Bool = false) -> Start? {
        guard let start = running.removeValue(forKey: wakeID) else { return nil }
        actions.ended.append((wakeID, cancelling))
        return start
    }

    mutating func apply(_ policyActions: [Action], to actions: inout Actions) {
        var none: PushRecord?
        apply(policyActions, to: &actions, inserting: &none)
    }

    /// Turns the policy's actions into store changes, fetches and metric events. The fate of
    /// `inserting`, a push not yet written, goes into its row instead of an update after it
    /// (one statement fewer per push).
    private mutating func apply(_ policyActions: [Action], to actions: inout Actions, inserting: inout PushRecord?) {
        func settle(_ push: UInt64, _ fate: PushFate, generation: UInt32?) {
            actions.settle(push, fate, generation: generation, arriving: &inserting)
        }
        func close(_ head: UInt64, _ fate: PushFate) { actions.close(head, fate, arriving: inserting) }
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
                            id: start.wakeID, deviceToken: start.app.deviceToken, topic: start.app.topic, pushID: start.push,
                            generation: start.generation, startedAt: start.startedAt, deadline: start.deadline)))
                settle(start.push, .delivered(by: start.wakeID), generation: nil)
                close(start.push, .delivered(by: start.wakeID))
                running[start.wakeID] = start
                // The push in hand, with nothing coalesced, needs no read from the store.
                var delivery: Wake?
                if let push = inserting, push.id == start.push, push.replaced == nil {
                    delivery = Wake(start, delivering: push, coalesced: [])
                }
                actions.runs.append((start, delivery))
                actions.metrics.wakesStarted += 1
                actions.metrics.delivered += 1
                actions.metrics.coalesced += start.coalescedCount
            case .expired(let push, _, let generation, let coalesced):
                settle(push, .expired, generation: nil)
                actions.metrics.expired += 1 + coalesced
                if generation != nil { close(push, .expired) }
            case .dropped(let push, _, let reason, let generation, let coalesced):
                settle(push, .dropped(reason), generation: nil)
                actions.metrics.dropped(reason, count: 1 + coalesced)
                if generation != nil { close(push, .dropped(reason)) }
            case .cancelWake(let wakeID, _):
                guard let start = end(wakeID, &actions, cancelling: true) else { continue }
                finishWake(wakeID, at: start.deadline, result: .deadlineExceeded, &actions)
            case .killWake(let wakeID, _, let cause, let at):
                guard end(wakeID, &actions, cancelling: true) != nil else { continue }
                finishWake(wakeID, at: at, result: .killed(cause), &actions)
                unanswered[wakeID] = .killed(cause)
            case .taskPending(let request, _, let why):
                actions.changes.append(.setTaskRequest(id: request, state: .pending, why: why.stored, at: nil))
            case .startTask(let start):
                actions.changes.append(
                    .setTaskRequest(id: start.request.id, state: .launched, why: nil, at: start.startedAt.millisecondsSinceEpoch))
                actions.changes.append(
                    .insertTaskRun(
                        TaskRunRecord(
                            id: start.runID, requestID: start.request.id, deviceToken: start.app.deviceToken, topic: start.app.topic,
                            identifier: start.request.identifier, kind: start.request.kind, startedAt: start.startedAt,
                            deadline: start.deadline, simulated: start.simulated)))
                runningTasks[start.runID] = RunningTask(start: start, phase: .running)
                actions.taskRuns.append(start)
                actions.metrics.taskRunsStarted += 1
            case .expireTask(let runID, _, let at):
                actions.changes.append(.expireTaskRun(id: runID, at: at.millisecondsSinceEpoch))
                if runningTasks[runID] != nil {
                    runningTasks[runID]?.phase = .expired(at: at)
                    actions.taskExpirations.append(runID)
                }
            case .terminateTask(let runID, _):
                if runningTasks[runID] != nil { actions.taskTerminations.append(runID) }
            case .taskEnded(let runID, _, let outcome, let at):
                actions.changes.append(.finishTaskRun(id: runID, at: at.millisecondsSinceEpoch, outcome: outcome))
                if runningTasks.removeValue(forKey: runID) != nil { actions.tasksEnded.append(runID) }
                actions.metrics.taskEnded(outcome)
            case .taskKilled(let runID, _, let cause, let at):
                actions.changes.append(.killTaskRun(id: runID, at: at.millisecondsSinceEpoch, cause: cause))
                if runningTasks.removeValue(forKey: runID) != nil { actions.tasksEnded.append(runID) }
                actions.metrics.taskEnded(.killed)
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
    package init(_ start: DeviceRecorder.Start, delivering push: PushRecord, coalesced: [String]) {
        self.init(
            id: start.wakeID, deviceToken: start.app.deviceToken, topic: start.app.topic, apnsID: push.apnsID,
            payload: push.payload, priority: APNsPriority(rawValue: push.priority) ?? .high, coalescedAPNsIDs: coalesced,
            startedAt: start.startedAt, deadline: start.deadline)
    }
}
