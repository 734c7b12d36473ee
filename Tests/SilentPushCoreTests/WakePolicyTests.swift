import SilentPushCore
import Testing

/// The wake policy on its own: pushes in at device instants, actions out.
@Suite struct WakePolicyTests {
    struct App: WakeApp {
        var device: String
        var topic: String
    }

    /// A push's fate with its reason, so no test can assert one without the other.
    enum Fate: Equatable, CustomStringConvertible {
        /// Waiting, for the reason the policy last gave.
        case pending(WaitReason<DeviceInstant>)
        /// Delivered by the wake that started at this many seconds.
        case delivered(at: Int64)
        /// Replaced in its slot; it rides the wake that started at this many seconds (nil:
        /// its successor still waits), replaced at APNs for an offline device or on the device.
        case coalesced(intoWakeAt: Int64?, atAPNs: Bool = false)
        /// Its expiry passed before a wake could deliver it.
        case expired
        case dropped(DropReason)

        var description: String {
            switch self {
            case .pending(let why): "pending(\(why.rule))"
            case .delivered(let at): "delivered@\(at)s"
            case .coalesced(let at, let atAPNs): "coalesced@\(at.map { "\($0)s" } ?? "-")\(atAPNs ? " at APNs" : "")"
            case .expired: "expired"
            case .dropped(let reason): "dropped(\(reason))"
            }
        }
    }

    /// Runs a policy and keeps every push's fate, resolving coalesced pushes by the
    /// generation that closes their slot, as the store will.
    final class Scenario {
        var policy: WakePolicy<App, DeviceInstant>
        var fates: [UInt64: Fate] = [:]
        var wakes: [WakeStart<App, DeviceInstant>] = []
        var cancelled: [UInt64] = []
        /// Wakes the device killed, and why, in order.
        var killed: [(wakeID: UInt64, cause: AppKill)] = []
        var completeImmediately = true
        /// Task runs: each task completes (success) as it starts, unless false.
        var completeTasksImmediately = true
        var taskRuns: [TaskStart<App, DeviceInstant>] = []
        /// What the policy last said holds each pending task request.
        var taskWhys: [UInt64: WaitReason<DeviceInstant>] = [:]
        /// How each run ended, by run id; how each request ended without running, by request id.
        var runOutcomes: [UInt64: TaskOutcome] = [:]
        /// What killed each run that ended `killed`.
        var killCauses: [UInt64: AppKill] = [:]
        var requestOutcomes: [UInt64: TaskOutcome] = [:]
        /// Runs whose expiration handler was called, and runs terminated, in order.
        var expiredRuns: [UInt64] = []
        var terminatedRuns: [UInt64] = []
        var declaration = AppDeclaration(
            permittedTaskIdentifiers: ["refresh", "clean", "sync", "export.*"], backgroundModes: [.fetch, .processing])
        private var coalesced: [String: [UInt64]] = [:]
        private var nextID: UInt64 = 0

        /// What the policy last said holds a pending push.
        func why(_ push: UInt64) -> WaitReason<DeviceInstant>? {
            if case .pending(let why) = fates[push] { why } else { nil }
        }

        init(_ settings: WakeSettings) {
            policy = WakePolicy(settings: settings)
        }

        static func at(_ seconds: Int64) -> DeviceInstant { DeviceInstant(secondsSinceEpoch: 1_000_000 + seconds) }
        static func seconds(_ instant: DeviceInstant) -> Int64 { instant.nanosecondsSinceEpoch / 1_000_000_000 - 1_000_000 }

        /// As the runtime does: a timer at each `nextDeadline` before `seconds`, so wakes
        /// started on the way are answered before their own deadlines come.
        func stepTimers(before seconds: Int64) {
            while let deadline = policy.nextDeadline, deadline < Self.at(seconds) {
                apply(policy.advance(to: deadline))
            }
        }

        @discardableResult
        func push(_ app: App, at seconds: Int64, priority: APNsPriority = .high, expiresIn: Int64? = nil) -> UInt64 {
            stepTimers(before: seconds)
            nextID += 1
            let push = IncomingPush(id: nextID, priority: priority, expiresAt: expiresIn.map { Self.at(seconds + $0) })
            apply(policy.receive(push, for: app, now: Self.at(seconds)))
            return nextID
        }

        func advance(to seconds: Int64) {
            stepTimers(before: seconds)
            apply(policy.advance(to: Self.at(seconds)))
        }

        func setDevice(_ device: String, _ state: DeviceState, at seconds: Int64) {
            stepTimers(before: seconds)
            apply(policy.setDeviceState(state, for: device, now: Self.at(seconds)))
        }

        @discardableResult
        func complete(_ wake: WakeStart<App, DeviceInstant>, at seconds: Int64) -> Bool {
            let (accepted, actions) = policy.fetchCompleted(wakeID: wake.wakeID, app: wake.app, now: Self.at(seconds))
            apply(actions)
            return accepted
        }

        /// Submits a request; returns its id, or the error.
        @discardableResult
        func submit(
            _ identifier: String, _ kind: BackgroundTaskKind, for app: App, at seconds: Int64, earliest: Int64? = nil, network: Bool = false,
            power: Bool = false, strategy: TaskRequest<DeviceInstant>.Strategy = .queue
        ) -> Result<UInt64, TaskSubmitError> {
            stepTimers(before: seconds)
            nextID += 1
            let request = TaskRequest(
                id: nextID, identifier: identifier, kind: kind, earliestBegin: earliest.map(Self.at), requiresNetworkConnectivity: network,
                requiresExternalPower: power, strategy: strategy)
            let (error, actions) = policy.submitTask(request, for: app, declaration: declaration, now: Self.at(seconds))
            apply(actions)
            return error.map { .failure($0) } ?? .success(nextID)
        }

        @discardableResult
        func completeTask(_ start: TaskStart<App, DeviceInstant>, success: Bool, at seconds: Int64) -> Bool {
            let (accepted, actions) = policy.taskCompleted(runID: start.runID, app: start.app, success: success, now: Self.at(seconds))
            apply(actions)
            return accepted
        }

        /// The run of request `request`, if it started.
        func run(of request: UInt64) -> TaskStart<App, DeviceInstant>? { taskRuns.first { $0.request.id == request } }

        func apply(_ actions: [WakeAction<App, DeviceInstant>]) {
            for action in actions {
                switch action {
                case .pending(let push, _, _, let why):
                    fates[push] = .pending(why)
                case .coalesced(let push, let app, let generation, let atAPNs):
                    fates[push] = .coalesced(intoWakeAt: nil, atAPNs: atAPNs)
                    coalesced[key(app, generation), default: []].append(push)
                case .startWake(let wake):
                    let at = Self.seconds(wake.startedAt)
                    wakes.append(wake)
                    fates[wake.push] = .delivered(at: at)
                    let riding = coalesced.removeValue(forKey: key(wake.app, wake.generation)) ?? []
                    #expect(wake.coalescedCount == riding.count, "pushes coalesced into the wake")
                    for push in riding {
                        guard case .coalesced(_, let atAPNs) = fates[push] else { continue }
                        fates[push] = .coalesced(intoWakeAt: at, atAPNs: atAPNs)
                    }
                    if completeImmediately { complete(wake, at: at) }
                case .expired(let push, let app, let generation, let count):
                    fates[push] = .expired
                    guard let generation else { continue }  // expired as it arrived: nothing rode it
                    let riding = coalesced.removeValue(forKey: key(app, generation)) ?? []
                    #expect(count == riding.count, "pushes coalesced into the expired generation")
                    for push in riding { fates[push] = .expired }
                case .dropped(let push, let app, let reason, let generation, let count):
                    fates[push] = .dropped(reason)
                    let riding = generation.flatMap { coalesced.removeValue(forKey: key(app, $0)) } ?? []
                    #expect(count == riding.count, "pushes coalesced into the dropped generation")
                    for push in riding { fates[push] = .dropped(reason) }
                case .cancelWake(let wakeID, _):
                    cancelled.append(wakeID)
                case .killWake(let wakeID, _, let cause, _):
                    killed.append((wakeID, cause))
                case .taskPending(let request, _, let why):
                    taskWhys[request] = why
                case .startTask(let start):
                    taskRuns.append(start)
                    taskWhys[start.request.id] = nil
                    if completeTasksImmediately { completeTask(start, success: true, at: Self.seconds(start.startedAt)) }
                case .expireTask(let runID, _, _):
                    expiredRuns.append(runID)
                case .terminateTask(let runID, _):
                    terminatedRuns.append(runID)
                case .taskEnded(let runID, _, let outcome, _):
                    runOutcomes[runID] = outcome
                case .taskKilled(let runID, _, let cause, _):
                    runOutcomes[runID] = .killed
                    killCauses[runID] = cause
                case .taskRequestEnded(let request, _, let outcome, _):
                    requestOutcomes[request] = outcome
                    taskWhys[request] = nil
                }
            }
        }

        private func key(_ app: App, _ generation: UInt32) -> String { "\(app.device)/\(app.topic)/\(generation)" }
    }

    static let app = App(device: "d1", topic: "com.example.app")
    static let minute: Int64 = 60

    @Test func theExampleOfSpecSection4() {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(15 * 60)))
        var pushes: [Int64: UInt64] = [:]
        for minute in stride(from: Int64(0), through: 91, by: 7) {
            pushes[minute] = scenario.push(Self.app, at: minute * Self.minute)
        }
        scenario.advance(to: 104 * Self.minute)

        #expect(scenario.wakes.map { Scenario.seconds($0.startedAt) / Self.minute } == [0, 15, 30, 45, 60, 75, 90])
        for (wakeMinute, pushMinute) in zip([0, 15, 30, 45, 60, 75, 90] as [Int64], [0, 14, 28, 42, 56, 70, 84] as [Int64]) {
            #expect(scenario.fates[pushes[pushMinute]!] == .delivered(at: wakeMinute * Self.minute), "push of minute \(pushMinute)")
        }
        for (pushMinute, wakeMinute) in zip([7, 21, 35, 49, 63, 77] as [Int64], [15, 30, 45, 60, 75, 90] as [Int64]) {
            #expect(scenario.fates[pushes[pushMinute]!] == .coalesced(intoWakeAt: wakeMinute * Self.minute), "push of minute \(pushMinute)")
        }
        #expect(
            scenario.fates[pushes[91]!]
                == .pending(
                    .minimumInterval(lastWake: Scenario.at(90 * Self.minute), interval: .seconds(15 * 60), until: Scenario.at(105 * Self.minute))))
        #expect(scenario.policy.nextDeadline == Scenario.at(105 * Self.minute))
        scenario.advance(to: 105 * Self.minute)
        #expect(scenario.fates[pushes[91]!] == .delivered(at: 105 * Self.minute))
    }

    @Test func aBurstOfTenAtOneInstant() {
        let scenario = Scenario(WakeSettings())
        let ids = (0..<10).map { _ in scenario.push(Self.app, at: 0) }
        #expect(scenario.fates[ids[0]] == .delivered(at: 0))
        let interval = WaitReason.minimumInterval(lastWake: Scenario.at(0), interval: .seconds(15 * 60), until: Scenario.at(15 * Self.minute))
        #expect(ids[1...8].allSatisfy { scenario.fates[$0] == .coalesced(intoWakeAt: nil) })
        #expect(scenario.fates[ids[9]] == .pending(interval))
        #expect(scenario.policy.pendingPush(of: Self.app) == ids[9])
        scenario.advance(to: 15 * Self.minute)
        #expect(ids[1...8].allSatisfy { scenario.fates[$0] == .coalesced(intoWakeAt: 15 * Self.minute) })
        #expect(scenario.fates[ids[9]] == .delivered(at: 15 * Self.minute))
    }

    @Test func pushesToAWaitingAppShareOneTimer() {
        // A timer per push would hold a million stale entries after a million pushes.
        let scenario = Scenario(WakeSettings())
        for second in 0..<10_000 { scenario.push(Self.app, at: Int64(second % 60)) }
        #expect(scenario.policy.timerCount <= 2)  // the wake's deadline and the next evaluation
        scenario.advance(to: 15 * Self.minute)
        #expect(scenario.wakes.map { Scenario.seconds($0.startedAt) } == [0, 15 * Self.minute])
    }

    @Test func aPendingPushExpiresAtItsTTL() {
        let scenario = Scenario(WakeSettings())
        scenario.push(Self.app, at: 0)
        let replaced = scenario.push(Self.app, at: 30)
        let short = scenario.push(Self.app, at: 60, expiresIn: 5 * Self.minute)
        scenario.advance(to: 30 * Self.minute)
        #expect(scenario.fates[short] == .expired)
        #expect(scenario.fates[replaced] == .expired)
        #expect(scenario.wakes.count == 1)
        #expect(scenario.policy.pendingPush(of: Self.app) == nil)
    }

    @Test func expirationZeroIsNowOrNever() {
        let scenario = Scenario(WakeSettings())
        let now = scenario.push(Self.app, at: 0, expiresIn: 0)
        #expect(scenario.fates[now] == .delivered(at: 0))
        let never = scenario.push(Self.app, at: 60, expiresIn: 0)
        #expect(scenario.fates[never] == .expired)
        #expect(scenario.policy.nextDeadline == nil || scenario.policy.pendingPush(of: Self.app) == nil)
    }

    /// A push that waits while its app's fetch runs expires at its expiry, and the policy goes
    /// on (it re-armed a timer already due, for ever).
    @Test func aPushWaitingForTheRunningFetchExpiresOnTime() throws {
        let scenario = Scenario(WakeSettings.fast)
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        let wake = try #require(scenario.wakes.first)
        let waiting = scenario.push(Self.app, at: 1, expiresIn: 2)
        #expect(scenario.fates[waiting] == .pending(.fetchRunning))
        scenario.advance(to: 4)
        #expect(scenario.fates[waiting] == .expired)
        let atOnce = scenario.push(Self.app, at: 5, expiresIn: 0)
        #expect(scenario.fates[atOnce] == .expired, "apns-expiration 0: delivered only if it can wake the app now")
        scenario.complete(wake, at: 6)
        #expect(scenario.wakes.count == 1)
    }

    /// A push queued for a fetch slot (the cap reached) expires on time, and is not delivered
    /// after its expiry when a slot frees.
    @Test func aPushQueuedForAFetchSlotExpiresOnTime() throws {
        var settings = WakeSettings.fast
        settings.maximumConcurrentFetches = 1
        let scenario = Scenario(settings)
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        let wake = try #require(scenario.wakes.first)
        let other = App(device: "d2", topic: Self.app.topic), third = App(device: "d3", topic: Self.app.topic)
        let never = scenario.push(other, at: 1, expiresIn: 0)
        #expect(scenario.fates[never] == .expired)
        let soon = scenario.push(third, at: 1, expiresIn: 2)
        #expect(scenario.fates[soon] == .pending(.fetchSlots(running: 1, cap: 1)))
        scenario.advance(to: 4)
        #expect(scenario.fates[soon] == .expired)
        scenario.complete(wake, at: 5)
        #expect(scenario.wakes.count == 1, "no wake for an expired push")
        #expect(scenario.policy.pendingPush(of: third) == nil)
    }

    @Test func priorityOneRidesTheNextWake() {
        let scenario = Scenario(WakeSettings())
        let quiet = scenario.push(Self.app, at: 0, priority: .low)
        scenario.advance(to: 60 * Self.minute)
        #expect(scenario.wakes.isEmpty)
        #expect(scenario.fates[quiet] == .pending(.priority1))
        let loud = scenario.push(Self.app, at: 61 * Self.minute, priority: .high)
        #expect(scenario.fates[loud] == .delivered(at: 61 * Self.minute))
        #expect(scenario.fates[quiet] == .coalesced(intoWakeAt: 61 * Self.minute))
    }

    @Test func lowPowerModeDefersPriorityFiveButNotTen() {
        let scenario = Scenario(WakeSettings())
        let other = App(device: "d1", topic: "com.example.other")
        scenario.setDevice("d1", DeviceState(lowPowerMode: true), at: 0)
        let five = scenario.push(Self.app, at: 10, priority: .normal)
        let ten = scenario.push(other, at: 10, priority: .high)
        #expect(scenario.fates[five] == .pending(.lowPowerMode))
        #expect(scenario.fates[ten] == .delivered(at: 10))
        scenario.advance(to: 60 * Self.minute)
        #expect(scenario.fates[five] == .pending(.lowPowerMode))
        scenario.setDevice("d1", DeviceState(lowPowerMode: false), at: 61 * Self.minute)
        #expect(scenario.fates[five] == .delivered(at: 61 * Self.minute))
    }

    @Test func forceQuitDropsUntilLaunched() {
        let scenario = Scenario(WakeSettings())
        scenario.push(Self.app, at: 0)
        let waiting = scenario.push(Self.app, at: 60)
        scenario.setDevice("d1", DeviceState(forceQuit: true), at: 120)
        #expect(scenario.fates[waiting] == .dropped(.forceQuit))
        let later = scenario.push(Self.app, at: 20 * Self.minute)
        #expect(scenario.fates[later] == .dropped(.forceQuit))
        scenario.setDevice("d1", DeviceState(forceQuit: false), at: 21 * Self.minute)
        let launched = scenario.push(Self.app, at: 22 * Self.minute)
        #expect(scenario.fates[launched] == .delivered(at: 22 * Self.minute))
    }

    /// What the device does to each app it kills (force-quit, restart, deletion).
    func kill(_ scenario: Scenario, _ cause: AppKill, at seconds: Int64) {
        scenario.stepTimers(before: seconds)
        switch cause {
        case .forceQuit: scenario.setDevice("d1", DeviceState(forceQuit: true), at: seconds)
        case .reboot: scenario.apply(scenario.policy.reboot("d1", now: Scenario.at(seconds)))
        case .appDeleted: scenario.apply(scenario.policy.appDeleted(device: "d1", now: Scenario.at(seconds)))
        }
    }

    @Test(arguments: AppKill.allCases) func killingTheAppEndsItsRunningWakeAndFreesItsSlot(cause: AppKill) throws {
        var settings = WakeSettings(minimumInterval: .seconds(15 * 60))
        settings.maximumConcurrentFetches = 1
        let scenario = Scenario(settings)
        scenario.completeImmediately = false
        let other = App(device: "d2", topic: "com.example.app")
        scenario.push(Self.app, at: 0)
        let wake = try #require(scenario.wakes.first)
        let held = scenario.push(other, at: 5)
        #expect(scenario.why(held) == .fetchSlots(running: 1, cap: 1))

        kill(scenario, cause, at: 10)
        #expect(scenario.killed.map(\.wakeID) == [wake.wakeID] && scenario.killed.map(\.cause) == [cause])
        #expect(scenario.cancelled.isEmpty)  // not its deadline: no overrun
        #expect(!scenario.policy.isRunning(Self.app))
        #expect(scenario.fates[held] == .delivered(at: 10))  // the fetch slot it held is free
        #expect(!scenario.complete(wake, at: 11))  // what the handler says later is not taken
        // Its deadline passes with nothing to cancel.
        scenario.advance(to: 60)
        #expect(scenario.cancelled == [scenario.wakes[1].wakeID] && scenario.killed.count == 1)
    }

    @Test func aKilledWakeDoublesNoIntervalAndAnotherDevicesWakeRuns() throws {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(15 * 60)))
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        let other = App(device: "d2", topic: "com.example.app")
        scenario.push(other, at: 1)
        kill(scenario, .forceQuit, at: 10)
        #expect(scenario.killed.map(\.wakeID) == [scenario.wakes[0].wakeID])  // d2's wake runs on
        #expect(scenario.policy.isRunning(other))
        scenario.setDevice("d1", DeviceState(), at: 20)
        // The next push waits the plain interval from the killed wake's start, not twice it.
        let next = scenario.push(Self.app, at: 60)
        #expect(
            scenario.fates[next]
                == .pending(.minimumInterval(lastWake: Scenario.at(0), interval: .seconds(15 * 60), until: Scenario.at(15 * Self.minute))))
    }

    @Test func backgroundAppRefreshOffDrops() {
        let scenario = Scenario(WakeSettings())
        scenario.setDevice("d1", DeviceState(backgroundRefresh: false), at: 0)
        let push = scenario.push(Self.app, at: 10)
        #expect(scenario.fates[push] == .dropped(.backgroundAppRefreshOff))
        #expect(scenario.wakes.isEmpty)
        // Another device is not affected.
        let elsewhere = scenario.push(App(device: "d2", topic: "com.example.app"), at: 10)
        #expect(scenario.fates[elsewhere] == .delivered(at: 10))
    }

    @Test func anOverrunIsCancelledAtTheDeadlineAndDoublesTheNextInterval() throws {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(15 * 60), deadline: .seconds(30)))
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        let wake = try #require(scenario.wakes.first)
        #expect(scenario.policy.isRunning(Self.app))
        scenario.advance(to: 30)
        #expect(scenario.cancelled == [wake.wakeID])
        #expect(!scenario.policy.isRunning(Self.app))
        // The handler's late answer is ignored.
        #expect(!scenario.complete(wake, at: 40))
        scenario.completeImmediately = true
        let next = scenario.push(Self.app, at: 60)
        // The overrun doubled the interval, and the reason says so.
        let doubled = WaitReason.minimumInterval(lastWake: Scenario.at(0), interval: .seconds(30 * 60), until: Scenario.at(30 * Self.minute))
        #expect(scenario.fates[next] == .pending(doubled))
        scenario.advance(to: 29 * Self.minute)
        #expect(scenario.fates[next] == .pending(doubled))
        scenario.advance(to: 30 * Self.minute)
        #expect(scenario.fates[next] == .delivered(at: 30 * Self.minute))
    }

    /// A restarted receiver puts back an app whose last wake overran: the interval after it
    /// stays doubled, and the reason names the wake it follows.
    @Test func aRestoredOverrunKeepsItsDoubledInterval() throws {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(15 * 60), deadline: .seconds(30)))
        scenario.apply(
            scenario.policy.restore(
                app: Self.app, generation: 1, nextAllowed: Scenario.at(30 * Self.minute), overran: true, pending: nil, now: Scenario.at(60)))
        let next = scenario.push(Self.app, at: 60)
        let doubled = WaitReason.minimumInterval(lastWake: Scenario.at(0), interval: .seconds(30 * 60), until: Scenario.at(30 * Self.minute))
        #expect(scenario.fates[next] == .pending(doubled))
        scenario.advance(to: 30 * Self.minute)
        #expect(scenario.fates[next] == .delivered(at: 30 * Self.minute))
    }

    /// `--overrun-factor` on a wake that overruns now (not only one put back by a restart).
    @Test func anOverrunNowTakesTheOverrunFactor() throws {
        var settings = WakeSettings(minimumInterval: .seconds(15 * 60), deadline: .seconds(30))
        settings.overrunFactor = 3
        let scenario = Scenario(settings)
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        scenario.advance(to: 30)
        scenario.completeImmediately = true
        let next = scenario.push(Self.app, at: 60)
        let tripled = WaitReason.minimumInterval(lastWake: Scenario.at(0), interval: .seconds(45 * 60), until: Scenario.at(45 * Self.minute))
        #expect(scenario.fates[next] == .pending(tripled))
        scenario.advance(to: 45 * Self.minute)
        #expect(scenario.fates[next] == .delivered(at: 45 * Self.minute))
    }

    /// `--overrun-factor`: the interval after an overrun is that many times the minimum.
    @Test func theIntervalAfterAnOverrunTakesTheOverrunFactor() throws {
        var settings = WakeSettings(minimumInterval: .seconds(15 * 60), deadline: .seconds(30))
        settings.overrunFactor = 3
        let scenario = Scenario(settings)
        scenario.apply(
            scenario.policy.restore(
                app: Self.app, generation: 1, nextAllowed: Scenario.at(45 * Self.minute), overran: true, pending: nil, now: Scenario.at(60)))
        let next = scenario.push(Self.app, at: 60)
        let tripled = WaitReason.minimumInterval(lastWake: Scenario.at(0), interval: .seconds(45 * 60), until: Scenario.at(45 * Self.minute))
        #expect(scenario.fates[next] == .pending(tripled))
    }

    @Test func oneFetchAtATimePerApp() throws {
        let scenario = Scenario(.fast)
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        let push = scenario.push(Self.app, at: 5)
        #expect(scenario.fates[push] == .pending(.fetchRunning))
        scenario.advance(to: 10)
        #expect(scenario.wakes.count == 1)
        scenario.complete(try #require(scenario.wakes.first), at: 12)
        #expect(scenario.fates[push] == .delivered(at: 12))
    }

    @Test func theGlobalCapQueuesWakesFirstComeFirstServed() throws {
        var settings = WakeSettings.fast
        settings.maximumConcurrentFetches = 1
        let scenario = Scenario(settings)
        scenario.completeImmediately = false
        let a = App(device: "d1", topic: "a"), b = App(device: "d2", topic: "b"), c = App(device: "d3", topic: "c")
        scenario.push(a, at: 0)
        let second = scenario.push(b, at: 1)
        let third = scenario.push(c, at: 2)
        #expect(scenario.fates[second] == .pending(.fetchSlots(running: 1, cap: 1)))
        #expect(scenario.fates[third] == .pending(.fetchSlots(running: 1, cap: 1)))
        #expect(scenario.policy.runningFetchCount == 1)
        scenario.complete(try #require(scenario.wakes.first), at: 3)
        #expect(scenario.fates[second] == .delivered(at: 3))
        #expect(scenario.fates[third] == .pending(.fetchSlots(running: 1, cap: 1)))
        scenario.complete(scenario.wakes[1], at: 4)
        #expect(scenario.fates[third] == .delivered(at: 4))
    }

    @Test func oneAdvanceFiresEachTimerAtItsOwnInstantInOrder() {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(900), deadline: .seconds(7_200)))
        let apps = (0..<5).map { App(device: "d\($0)", topic: "t") }
        for (index, app) in apps.enumerated().reversed() {
            scenario.push(app, at: Int64(4 - index) * 100)  // app 4 wakes at 0, …, app 0 at 400
        }
        for app in apps { scenario.push(app, at: 600) }  // timers armed app 0 first, whose is last
        scenario.completeImmediately = false
        // One span, as an admin clock advance: every timer inside fires at its instant.
        scenario.apply(scenario.policy.advance(to: Scenario.at(10_000)))
        let later = scenario.wakes.suffix(5)
        #expect(later.map { Scenario.seconds($0.startedAt) } == [900, 1_000, 1_100, 1_200, 1_300])
        #expect(later.map(\.app) == apps.reversed())
    }

    @Test func aRestoredAppKeepsItsIntervalGenerationAndPendingPush() throws {
        var policy = WakePolicy<App, DeviceInstant>(settings: WakeSettings(minimumInterval: .seconds(900)), firstWakeID: 42)
        let restartedAt = Scenario.at(600)
        let actions = policy.restore(
            app: Self.app, generation: 7, nextAllowed: Scenario.at(900),
            pending: IncomingPush(id: 5, priority: .high, expiresAt: nil), now: restartedAt)
        // It waits for the interval, and says so again; a timer is armed for it.
        #expect(
            actions == [
                .pending(
                    push: 5, app: Self.app, generation: 7,
                    why: .minimumInterval(lastWake: Scenario.at(0), interval: .seconds(900), until: Scenario.at(900)))
            ])
        #expect(policy.pendingPush(of: Self.app) == 5)
        #expect(policy.nextDeadline == Scenario.at(900))
        let fired = policy.advance(to: Scenario.at(900))
        guard case .startWake(let wake)? = fired.first else { Issue.record("no wake: \(fired)"); return }
        #expect(wake.wakeID == 42)
        #expect(wake.generation == 7)
        #expect(wake.push == 5)
    }

    @Test func aRestoredPushWhoseTimeToLiveRanOutExpiresAtOnce() {
        var policy = WakePolicy<App, DeviceInstant>(settings: WakeSettings(minimumInterval: .seconds(900)))
        let actions = policy.restore(
            app: Self.app, generation: 3, nextAllowed: Scenario.at(900),
            pending: IncomingPush(id: 9, priority: .high, expiresAt: Scenario.at(100)), now: Scenario.at(600))
        #expect(actions == [.expired(push: 9, app: Self.app, generation: 3, coalesced: 0)])
    }

    /// The app table grows many times over; every app keeps its own state, and an app never
    /// seen has none.
    @Test func tenThousandAppsEachKeepTheirOwnSlot() {
        var policy = WakePolicy<App, DeviceInstant>(settings: WakeSettings(minimumInterval: .seconds(900)))
        let apps = (0..<10_000).map { App(device: "d\($0 % 2_500)", topic: "t\($0 / 2_500)") }
        for (index, app) in apps.enumerated() {
            _ = policy.receive(IncomingPush(id: UInt64(index), priority: .normal, expiresAt: nil), for: app, now: Scenario.at(0))
        }
        // A second push to each app: it now waits in the slot (the first woke the app).
        for (index, app) in apps.enumerated() {
            _ = policy.receive(IncomingPush(id: UInt64(20_000 + index), priority: .normal, expiresAt: nil), for: app, now: Scenario.at(1))
        }
        #expect(policy.appCount == 10_000)
        #expect(apps.indices.allSatisfy { policy.pendingPush(of: apps[$0]) == UInt64(20_000 + $0) })
        #expect(policy.pendingPush(of: App(device: "d2500", topic: "t0")) == nil)
        #expect(!policy.isRunning(App(device: "d0", topic: "t4")))
    }

    @Test func thePendingSlotCountFollowsTheSlots() {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(900)))
        let other = App(device: "d2", topic: "com.example.app")
        scenario.push(Self.app, at: 0)  // wakes
        #expect(scenario.policy.pendingSlotCount == 0)
        scenario.push(Self.app, at: 10)
        scenario.push(Self.app, at: 20)  // replaces: still one slot
        scenario.push(other, at: 30)  // wakes
        scenario.push(other, at: 40, expiresIn: 5)
        #expect(scenario.policy.pendingSlotCount == 2)
        scenario.advance(to: 50)  // the second app's push expired
        #expect(scenario.policy.pendingSlotCount == 1)
        scenario.advance(to: 900)  // the first app's wakes
        #expect(scenario.policy.pendingSlotCount == 0)
    }
}
