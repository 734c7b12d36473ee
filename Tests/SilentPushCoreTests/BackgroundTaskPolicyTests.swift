import SilentPushCore
import Testing

/// Background tasks in the pure policy: submission errors as Apple names them, the factors that
/// hold a request (each with its reason), launches, expiry, termination and its penalty, the
/// debugger's commands, continued tasks, and the budget and fetch slots pushes share.
@Suite struct BackgroundTaskPolicyTests {
    typealias Scenario = WakePolicyTests.Scenario
    typealias App = WakePolicyTests.App
    static let app = WakePolicyTests.app
    static let minute: Int64 = 60
    static let hour: Int64 = 3600

    static func id(_ result: Result<UInt64, TaskSubmitError>) -> UInt64? { try? result.get() }

    @Test func eachRefusalIsApplesErrorAndNothingChanges() {
        let scenario = Scenario(.ios)
        #expect(scenario.submit("undeclared", .refresh, for: Self.app, at: 0) == .failure(.notPermitted))
        // A continued identifier matches its wildcard only as a continued task.
        #expect(scenario.submit("export.video", .processing, for: Self.app, at: 0) == .failure(.notPermitted))
        scenario.declaration.backgroundModes = [.processing]
        #expect(scenario.submit("refresh", .refresh, for: Self.app, at: 0) == .failure(.notPermitted))  // no `fetch` mode
        scenario.declaration.backgroundModes = [.fetch, .processing]
        scenario.setDevice("d1", DeviceState(backgroundRefresh: false, idle: true), at: 0)
        #expect(scenario.submit("refresh", .refresh, for: Self.app, at: 1) == .failure(.unavailable))
        #expect(scenario.submit("clean", .processing, for: Self.app, at: 1) == .failure(.unavailable))
        scenario.setDevice("d1", DeviceState(), at: 2)
        #expect(scenario.policy.pendingTasks(of: Self.app).isEmpty && scenario.taskRuns.isEmpty)

        // One refresh may be pending: another identifier is too many, the same one replaces it.
        let first = Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 3, earliest: Self.hour))
        scenario.declaration.permittedTaskIdentifiers.append("refresh2")
        #expect(scenario.submit("refresh2", .refresh, for: Self.app, at: 4, earliest: Self.hour) == .failure(.tooManyPendingTaskRequests))
        let second = Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 5, earliest: 2 * Self.hour))
        #expect(first != nil && second != nil)
        #expect(scenario.requestOutcomes[first!] == .replaced)
        #expect(scenario.policy.pendingTasks(of: Self.app).map(\.request.id) == [second!])
        #expect(scenario.taskWhys[second!] == .earliestBegin(until: Scenario.at(2 * Self.hour)))

        // Ten processing requests may be pending, not eleven.
        scenario.declaration.permittedTaskIdentifiers += (0..<11).map { "p\($0)" }
        for index in 0..<10 { #expect(Self.id(scenario.submit("p\(index)", .processing, for: Self.app, at: 6)) != nil) }
        #expect(scenario.submit("p10", .processing, for: Self.app, at: 7) == .failure(.tooManyPendingTaskRequests))
        #expect(scenario.policy.pendingTasks(of: Self.app).count == 11)
    }

    @Test func aRefreshWaitsForItsEarliestBeginDateAndNotLess() throws {
        let scenario = Scenario(.ios)
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0, earliest: Self.hour)))
        #expect(scenario.taskWhys[request] == .earliestBegin(until: Scenario.at(Self.hour)))
        scenario.advance(to: Self.hour - 1)
        #expect(scenario.taskRuns.isEmpty)
        scenario.advance(to: Self.hour)
        let run = try #require(scenario.run(of: request))
        #expect(run.startedAt == Scenario.at(Self.hour) && run.deadline == Scenario.at(Self.hour + 30) && !run.simulated)
        #expect(scenario.runOutcomes[run.runID] == .completed)
        #expect(scenario.policy.pendingTasks(of: Self.app).isEmpty)  // launched: the app must submit again
    }

    @Test func aRefreshIsABackgroundLaunchLikeAWake() throws {
        let scenario = Scenario(.ios)
        scenario.push(Self.app, at: 0)  // wakes: the next launch of the app may start at minute 15
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 60)))
        #expect(
            scenario.taskWhys[request]
                == .minimumInterval(lastWake: Scenario.at(0), interval: .seconds(15 * 60), until: Scenario.at(15 * Self.minute)))
        scenario.advance(to: 15 * Self.minute)
        #expect(scenario.run(of: request)?.startedAt == Scenario.at(15 * Self.minute))
        // And a push after it waits for the interval from the refresh.
        let push = scenario.push(Self.app, at: 16 * Self.minute)
        #expect(
            scenario.fates[push]
                == .pending(
                    .minimumInterval(lastWake: Scenario.at(15 * Self.minute), interval: .seconds(15 * 60), until: Scenario.at(30 * Self.minute))))
    }

    @Test func theDeviceHoldsRequestsAndSaysWhy() throws {
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", DeviceState(lowPowerMode: true), at: 0)
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 1)))
        #expect(scenario.taskWhys[request] == .lowPowerMode)
        scenario.setDevice("d1", DeviceState(batteryLevel: 10), at: 2)
        #expect(scenario.taskWhys[request] == .battery(level: 10, threshold: 20))
        scenario.setDevice("d1", DeviceState(thermalState: .serious), at: 3)
        #expect(scenario.taskWhys[request] == .thermal(.serious))
        scenario.setDevice("d1", DeviceState(forceQuit: true), at: 4)
        #expect(scenario.taskWhys[request] == .forceQuit)
        scenario.setDevice("d1", DeviceState(backgroundRefresh: false), at: 5)
        #expect(scenario.taskWhys[request] == .backgroundRefreshOff)
        scenario.setDevice("d1", DeviceState(network: .offline), at: 6)
        #expect(scenario.taskWhys[request] == .offline)
        #expect(scenario.taskRuns.isEmpty)
        scenario.setDevice("d1", DeviceState(), at: 7)
        #expect(scenario.run(of: request)?.startedAt == Scenario.at(7))
    }

    @Test(arguments: AppKill.allCases) func killingTheAppEndsItsTaskRunsKilledWithNoPenalty(cause: AppKill) throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0)))
        let run = try #require(scenario.run(of: request))
        WakePolicyTests().kill(scenario, cause, at: 10)
        #expect(scenario.terminatedRuns == [run.runID])  // its handler is stopped
        #expect(scenario.runOutcomes[run.runID] == .killed)
        #expect(scenario.policy.runningTasks(of: Self.app).isEmpty)
        #expect(!scenario.completeTask(run, success: true, at: 11))  // a later completion is not taken
        // The app did nothing wrong: its next refresh waits only the interval, no penalty.
        if cause == .forceQuit { scenario.setDevice("d1", DeviceState(), at: 11) }
        let next = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 12)))
        scenario.advance(to: 15 * Self.minute)
        #expect(scenario.run(of: next)?.startedAt == Scenario.at(15 * Self.minute))
    }

    /// A killed run says what killed its app (its record's `why` names it), and a forgotten
    /// device's runs end as a deletion ends them.
    @Test(arguments: AppKill.allCases) func aKilledRunSaysWhatKilledItsApp(cause: AppKill) throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0)))
        let run = try #require(scenario.run(of: request))
        WakePolicyTests().kill(scenario, cause, at: 10)
        #expect(scenario.killCauses == [run.runID: cause])

        let forgotten = Scenario(.ios)
        forgotten.completeTasksImmediately = false
        let second = try #require(Self.id(forgotten.submit("refresh", .refresh, for: Self.app, at: 0)))
        let secondRun = try #require(forgotten.run(of: second))
        forgotten.apply(forgotten.policy.forget(now: Scenario.at(10)) { _ in true })
        #expect(forgotten.killCauses == [secondRun.runID: .appDeleted] && forgotten.runOutcomes[secondRun.runID] == .killed)
    }

    /// A kill ends the runs under way, not a request queued behind them: that one waits as
    /// ever (held by a force-quit; after a restart it takes the freed slot).
    @Test(arguments: [AppKill.forceQuit, .reboot]) func aKillLeavesTheRequestQueuedBehindItsRuns(cause: AppKill) throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let a = try #require(Self.id(scenario.submit("export.a", .continued, for: Self.app, at: 0)))
        let b = try #require(Self.id(scenario.submit("export.b", .continued, for: Self.app, at: 0)))
        let c = try #require(Self.id(scenario.submit("export.c", .continued, for: Self.app, at: 1)))
        #expect(scenario.taskWhys[c] == .continuedSlots(running: 2, capacity: 2))
        let runs = try [a, b].map { try #require(scenario.run(of: $0)).runID }
        WakePolicyTests().kill(scenario, cause, at: 10)
        #expect(runs.map { scenario.runOutcomes[$0] } == [.killed, .killed])
        switch cause {
        case .forceQuit:
            #expect(scenario.run(of: c) == nil && scenario.taskWhys[c] == .forceQuit)
            scenario.setDevice("d1", DeviceState(), at: 20)  // opened again
            #expect(scenario.run(of: c)?.startedAt == Scenario.at(20))
        default:
            let run = try #require(scenario.run(of: c))
            #expect(run.startedAt == Scenario.at(10) && scenario.runOutcomes[run.runID] == nil, "it runs, not killed with the others")
        }
    }

    /// One kill ends every app's runs on the device before any slot is handed on: another
    /// app's request queued behind them starts after a restart (and is not killed with them),
    /// and is cancelled with a deleted app.
    @Test(arguments: [AppKill.reboot, .appDeleted]) func aKillEndsEveryAppsRunsBeforeAnotherAppsRequestStarts(cause: AppKill) throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let other = App(device: "d1", topic: "com.example.other")
        scenario.declaration.backgroundModes = [.fetch, .processing]
        _ = try #require(Self.id(scenario.submit("export.a", .continued, for: Self.app, at: 0)))
        _ = try #require(Self.id(scenario.submit("export.b", .continued, for: Self.app, at: 0)))
        let queued = try #require(Self.id(scenario.submit("export.c", .continued, for: other, at: 1)))
        #expect(scenario.taskWhys[queued] == .continuedSlots(running: 2, capacity: 2))
        WakePolicyTests().kill(scenario, cause, at: 10)
        #expect(scenario.runOutcomes.values.filter { $0 == .killed }.count == 2)
        switch cause {
        case .appDeleted:
            #expect(scenario.run(of: queued) == nil && scenario.requestOutcomes[queued] == .cancelled)
        default:
            let run = try #require(scenario.run(of: queued))
            // It runs: it was not running when the device was killed.
            #expect(run.startedAt == Scenario.at(10) && scenario.runOutcomes[run.runID] == nil)
        }
    }

    /// A restarted device launches no continued task before its warm-up ends: the one
    /// queued behind the killed runs waits it out, and says so.
    @Test func aContinuedTaskWaitsOutARestartsWarmUp() throws {
        var settings = WakeSettings.ios
        settings.rebootWarmup = .seconds(60)
        let scenario = Scenario(settings)
        scenario.completeTasksImmediately = false
        _ = try #require(Self.id(scenario.submit("export.a", .continued, for: Self.app, at: 0)))
        _ = try #require(Self.id(scenario.submit("export.b", .continued, for: Self.app, at: 0)))
        let queued = try #require(Self.id(scenario.submit("export.c", .continued, for: Self.app, at: 1)))
        WakePolicyTests().kill(scenario, .reboot, at: 10)
        #expect(scenario.run(of: queued) == nil && scenario.taskWhys[queued] == .rebootWarmup(until: Scenario.at(70)))
        scenario.advance(to: 70)
        #expect(scenario.run(of: queued)?.startedAt == Scenario.at(70))
    }

    @Test func processingWaitsForIdleChargingAndTheNetworkWhenItRequiresThem() throws {
        let scenario = Scenario(.ios)
        let request = try #require(Self.id(scenario.submit("clean", .processing, for: Self.app, at: 0, network: true, power: true)))
        #expect(scenario.taskWhys[request] == .externalPower)
        scenario.setDevice("d1", DeviceState(charging: true), at: 10)
        #expect(scenario.taskWhys[request] == .deviceInUse)
        scenario.setDevice("d1", DeviceState(charging: true, network: .offline, idle: true), at: 20)
        #expect(scenario.taskWhys[request] == .offline)
        #expect(scenario.taskRuns.isEmpty)
        scenario.setDevice("d1", DeviceState(charging: true, idle: true), at: 30)
        let run = try #require(scenario.run(of: request))
        #expect(run.startedAt == Scenario.at(30) && run.deadline == Scenario.at(30 + 5 * Self.minute))
        // Without the requirements, idle is enough, offline and on battery.
        let other = try #require(Self.id(scenario.submit("sync", .processing, for: Self.app, at: 40)))
        #expect(scenario.run(of: other) != nil)
    }

    @Test func aDeviceInUseAgainStopsItsProcessingTasksButNotRefreshes() throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        scenario.setDevice("d1", DeviceState(idle: true), at: 0)
        let clean = try #require(Self.id(scenario.submit("clean", .processing, for: Self.app, at: 1)))
        let refresh = try #require(Self.id(scenario.submit("refresh", .refresh, for: App(device: "d1", topic: "other"), at: 1)))
        let processing = try #require(scenario.run(of: clean)), refreshing = try #require(scenario.run(of: refresh))
        scenario.setDevice("d1", DeviceState(), at: 10)
        #expect(scenario.expiredRuns == [processing.runID])
        #expect(!scenario.expiredRuns.contains(refreshing.runID))
    }

    @Test func expiryCallsTheExpirationHandlerAndALateCompletionIsExpired() throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0)))
        let run = try #require(scenario.run(of: request))
        scenario.advance(to: 30)
        #expect(scenario.expiredRuns == [run.runID])
        #expect(scenario.completeTask(run, success: true, at: 33))
        #expect(scenario.runOutcomes[run.runID] == .expired)
        #expect(scenario.terminatedRuns.isEmpty)
        // In time, the handler's own answer stands.
        let next = try #require(Self.id(scenario.submit("clean", .processing, for: App(device: "d2", topic: "t"), at: 40)))
        _ = next  // d2 is not idle: it waits
        scenario.setDevice("d2", DeviceState(idle: true), at: 50)
        let processing = try #require(scenario.taskRuns.last)
        #expect(scenario.completeTask(processing, success: false, at: 60))
        #expect(scenario.runOutcomes[processing.runID] == .failed)
    }

    @Test func aTaskThatNeverCompletesIsTerminatedAndLaterLaunchesWait() throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0)))
        let run = try #require(scenario.run(of: request))
        scenario.advance(to: 35)  // 30 s, then 5 s of grace
        #expect(scenario.expiredRuns == [run.runID] && scenario.terminatedRuns == [run.runID])
        #expect(scenario.runOutcomes[run.runID] == .terminated)
        #expect(!scenario.completeTask(run, success: true, at: 36))  // too late: ignored
        // The app's next request waits out the penalty, an hour from the termination.
        scenario.completeTasksImmediately = true
        let next = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 20 * Self.minute)))
        #expect(scenario.taskWhys[next] == .taskPenalty(until: Scenario.at(35 + Self.hour)))
        scenario.advance(to: 35 + Self.hour)
        #expect(scenario.run(of: next)?.startedAt == Scenario.at(35 + Self.hour))
    }

    @Test func theDebuggersLaunchAndExpirationCommands() throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0, earliest: 24 * Self.hour)))
        #expect(scenario.policy.simulateTaskLaunch(identifier: "nothing", for: Self.app, now: Scenario.at(10)).found == false)
        let (found, actions) = scenario.policy.simulateTaskLaunch(identifier: "refresh", for: Self.app, now: Scenario.at(10))
        scenario.apply(actions)
        #expect(found)
        let run = try #require(scenario.run(of: request))
        #expect(run.simulated && run.startedAt == Scenario.at(10))
        let expired = scenario.policy.simulateTaskExpiration(identifier: "refresh", for: Self.app, now: Scenario.at(12))
        scenario.apply(expired.actions)
        #expect(expired.found && scenario.expiredRuns == [run.runID])
        // Once expired, it is not expired again.
        #expect(scenario.policy.simulateTaskExpiration(identifier: "refresh", for: Self.app, now: Scenario.at(13)).found == false)
        #expect(scenario.completeTask(run, success: true, at: 14))
        #expect(scenario.runOutcomes[run.runID] == .expired)
    }

    @Test func cancellingEndsPendingRequests() throws {
        let scenario = Scenario(.ios)
        let refresh = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0, earliest: Self.hour)))
        let clean = try #require(Self.id(scenario.submit("clean", .processing, for: Self.app, at: 0)))
        let sync = try #require(Self.id(scenario.submit("sync", .processing, for: Self.app, at: 0)))
        let cancelled = scenario.policy.cancelTask(identifier: "clean", for: Self.app, now: Scenario.at(1))
        scenario.apply(cancelled.actions)
        #expect(cancelled.found && scenario.requestOutcomes[clean] == .cancelled)
        #expect(scenario.policy.pendingTasks(of: Self.app).map(\.request.id) == [refresh, sync])
        scenario.apply(scenario.policy.cancelAllTasks(for: Self.app, now: Scenario.at(2)))
        #expect(scenario.requestOutcomes[refresh] == .cancelled && scenario.requestOutcomes[sync] == .cancelled)
        scenario.advance(to: 2 * Self.hour)
        #expect(scenario.taskRuns.isEmpty)
    }

    /// A relaunch for a background `URLSession` is the system's: the app's
    /// `cancel(taskRequestWithIdentifier:)` and `cancelAllTaskRequests()` reach only its own
    /// `BGTaskScheduler` requests, even one named as the session is.
    @Test func cancellingLeavesTheSystemsRelaunches() throws {
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", DeviceState(lowPowerMode: true), at: 0)
        scenario.apply(scenario.policy.relaunch(session: "S", requestID: 900, for: Self.app, now: Scenario.at(10)))
        #expect(scenario.taskWhys[900] == .lowPowerMode)
        let cancelled = scenario.policy.cancelTask(identifier: "S", for: Self.app, now: Scenario.at(20))
        scenario.apply(cancelled.actions)
        #expect(!cancelled.found && scenario.requestOutcomes[900] == nil)
        scenario.apply(scenario.policy.cancelAllTasks(for: Self.app, now: Scenario.at(30)))
        #expect(scenario.requestOutcomes[900] == nil)
        #expect(scenario.policy.pendingTasks(of: Self.app).map(\.request.id) == [900])
        scenario.setDevice("d1", DeviceState(), at: 40)
        #expect(scenario.run(of: 900)?.startedAt == Scenario.at(40))
    }

    @Test func continuedTasksQueueOrFailAndHeatStopsTheLeastProgressFirst() throws {
        let scenario = Scenario(.ios)
        scenario.completeTasksImmediately = false
        let a = try #require(Self.id(scenario.submit("export.a", .continued, for: Self.app, at: 0)))
        let b = try #require(Self.id(scenario.submit("export.b", .continued, for: App(device: "d1", topic: "other"), at: 0)))
        let c = try #require(Self.id(scenario.submit("export.c", .continued, for: Self.app, at: 1)))
        #expect(scenario.taskRuns.map(\.request.id) == [a, b])
        #expect(scenario.taskRuns.allSatisfy { $0.deadline == nil })
        #expect(scenario.taskWhys[c] == .continuedSlots(running: 2, capacity: 2))
        #expect(scenario.submit("export.d", .continued, for: Self.app, at: 2, strategy: .fail) == .failure(.immediateRunIneligible))
        let runA = try #require(scenario.run(of: a)), runB = try #require(scenario.run(of: b))
        let reportedA = scenario.policy.taskProgress(runID: runA.runID, app: runA.app, completed: 60, total: 100)
        let reportedB = scenario.policy.taskProgress(runID: runB.runID, app: runB.app, completed: 10, total: 100)
        #expect(reportedA && reportedB)
        scenario.setDevice("d1", DeviceState(thermalState: .serious), at: 10)
        #expect(scenario.expiredRuns == [runB.runID])  // the least progress
        scenario.completeTask(runB, success: false, at: 11)
        #expect(scenario.runOutcomes[runB.runID] == .expired)
        #expect(scenario.run(of: c)?.startedAt == Scenario.at(11))  // the queued one takes its place
        scenario.setDevice("d1", DeviceState(thermalState: .critical), at: 20)
        #expect(Set(scenario.expiredRuns) == [runB.runID, runA.runID, scenario.run(of: c)!.runID])
    }

    /// What refuses a continued task `immediateRunIneligible` is named: the device's continued
    /// tasks all running, a restart's warm-up, a force-quit; nothing once it can start.
    @Test func anImmediateRunRefusalNamesWhatHeldTheTask() throws {
        var settings = WakeSettings.ios
        settings.continuedTaskCapacity = 1
        settings.rebootWarmup = .seconds(60)
        let scenario = Scenario(settings)
        scenario.completeTasksImmediately = false
        let request = TaskRequest<DeviceInstant>(id: 99, identifier: "export.z", kind: .continued, strategy: .fail)
        #expect(scenario.policy.immediateRunHold(request, of: Self.app, now: Scenario.at(0)) == nil)
        _ = try #require(Self.id(scenario.submit("export.a", .continued, for: Self.app, at: 0)))
        #expect(scenario.submit("export.b", .continued, for: Self.app, at: 1, strategy: .fail) == .failure(.immediateRunIneligible))
        #expect(scenario.policy.immediateRunHold(request, of: Self.app, now: Scenario.at(1)) == .continuedSlots(running: 1, capacity: 1))
        scenario.apply(scenario.policy.reboot("d1", now: Scenario.at(2)))
        #expect(scenario.policy.immediateRunHold(request, of: Self.app, now: Scenario.at(2))?.rule == .rebootWarmup)
        scenario.setDevice("d1", DeviceState(forceQuit: true), at: 3)
        #expect(scenario.policy.immediateRunHold(request, of: Self.app, now: Scenario.at(3)) == .forceQuit)
    }

    @Test func tasksAndWakesShareTheFetchSlots() throws {
        var settings = WakeSettings.fast
        settings.maximumConcurrentFetches = 1
        let scenario = Scenario(settings)
        scenario.completeImmediately = false
        scenario.push(App(device: "d2", topic: "t"), at: 0)  // takes the only slot
        let request = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 1)))
        #expect(scenario.taskWhys[request] == .fetchSlots(running: 1, cap: 1))
        scenario.complete(try #require(scenario.wakes.first), at: 5)
        #expect(scenario.run(of: request)?.startedAt == Scenario.at(5))
    }

    /// A day of an app that keeps a refresh scheduled an hour ahead (as apps do after each
    /// run) and gets a push every two hours, on a budget of 6 launches a day.
    @Test func pushesAndTasksShareTheDailyBudgetOverADay() throws {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(15 * 60), dailyBudget: 6))
        var heldTasks: [WaitReason<DeviceInstant>] = []
        var heldPushes: [WaitReason<DeviceInstant>] = []
        var submitted = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 0, earliest: Self.hour)))
        var runsSeen = 0
        for minute in stride(from: Int64(0), to: 24 * 60, by: 30) {
            let now = minute * Self.minute
            scenario.advance(to: now)
            if scenario.taskRuns.count > runsSeen {  // it ran: schedule the next an hour on
                runsSeen = scenario.taskRuns.count
                submitted = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: now, earliest: now + Self.hour)))
            }
            if let why = scenario.taskWhys[submitted], why.rule == .dailyBudget { heldTasks.append(why) }
            if minute % 120 == 0 {
                let push = scenario.push(Self.app, at: now + 1)
                if case .pending(let why) = scenario.fates[push], why.rule == .dailyBudget { heldPushes.append(why) }
            }
        }
        let launches = (scenario.wakes.map(\.startedAt) + scenario.taskRuns.map(\.startedAt)).sorted()
        #expect(launches.count == 6, "\(launches.map(Scenario.seconds))")
        #expect(!scenario.wakes.isEmpty && !scenario.taskRuns.isEmpty)
        // Both kinds were held by the one budget, and said so.
        #expect(!heldTasks.isEmpty && !heldPushes.isEmpty)
        #expect(heldTasks.allSatisfy { if case .dailyBudget(6, 6, _) = $0 { true } else { false } })
    }

    /// The app's `cancelAllTaskRequests()` does not reach the system's relaunch for a
    /// session; deleting the app does (the session went with it).
    @Test func aRelaunchOutlivesTheAppsCancelAllButNotItsDeletion() throws {
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", DeviceState(lowPowerMode: true), at: 0)
        scenario.apply(scenario.policy.relaunch(session: "S", requestID: 900, for: Self.app, now: Scenario.at(10)))
        let refresh = try #require(Self.id(scenario.submit("refresh", .refresh, for: Self.app, at: 20)))
        scenario.apply(scenario.policy.cancelAllTasks(for: Self.app, now: Scenario.at(30)))
        #expect(scenario.requestOutcomes[refresh] == .cancelled && scenario.requestOutcomes[900] == nil)
        #expect(scenario.policy.pendingTasks(of: Self.app).map(\.request.id) == [900])
        scenario.apply(scenario.policy.appDeleted(device: Self.app.device, now: Scenario.at(40)))
        #expect(scenario.requestOutcomes[900] == .cancelled)
        #expect(scenario.policy.pendingTasks(of: Self.app).isEmpty)
        scenario.setDevice("d1", DeviceState(), at: 50)
        #expect(scenario.run(of: 900) == nil)
    }

    /// A background session's relaunch is a launch like a task's: it runs for the relaunch
    /// time, takes its share of the daily budget pushes and tasks share, and waits, saying
    /// why, for what holds the device. The app's interval does not hold it: the system, not
    /// the app, chose the moment (*assumed*).
    @Test func aRelaunchIsALaunchThatSharesTheBudgetAndTheDevicesFactors() throws {
        var settings = WakeSettings(minimumInterval: .seconds(15 * 60), dailyBudget: 3)
        settings.relaunchTime = .seconds(40)
        let scenario = Scenario(settings)
        scenario.push(Self.app, at: 0)
        scenario.apply(scenario.policy.relaunch(session: "S", requestID: 900, for: Self.app, now: Scenario.at(60)))
        let run = try #require(scenario.run(of: 900))
        #expect(run.request.kind == .urlSession && run.request.identifier == "S")
        #expect(run.startedAt == Scenario.at(60) && run.deadline == Scenario.at(100))
        // The device holds the next one, and says why, until it lets go.
        scenario.setDevice("d1", DeviceState(lowPowerMode: true), at: 120)
        scenario.apply(scenario.policy.relaunch(session: "S", requestID: 901, for: Self.app, now: Scenario.at(130)))
        #expect(scenario.taskWhys[901] == .lowPowerMode && scenario.run(of: 901) == nil)
        scenario.setDevice("d1", DeviceState(thermalState: .serious), at: 140)
        #expect(scenario.taskWhys[901] == .thermal(.serious))
        scenario.setDevice("d1", DeviceState(), at: 150)
        #expect(scenario.run(of: 901)?.startedAt == Scenario.at(150))
        // Three launches (a wake, two relaunches) spend the budget: a push and a third relaunch wait for it.
        let push = scenario.push(Self.app, at: 20 * Self.minute)
        #expect(scenario.why(push)?.rule == .dailyBudget, "\(String(describing: scenario.fates[push]))")
        scenario.apply(scenario.policy.relaunch(session: "S", requestID: 902, for: Self.app, now: Scenario.at(21 * Self.minute)))
        let held = try #require(scenario.taskWhys[902])
        guard case .dailyBudget(3, 3, let until) = held else {
            Issue.record("\(held)")
            return
        }
        #expect(until == Scenario.at(24 * Self.hour))  // the first launch of the day is 24 hours old
        // A slot a day after each launch: the push takes the first, the relaunch the next.
        scenario.advance(to: 24 * Self.hour + 60)
        let wake = try #require(scenario.wakes.last)
        let relaunch = try #require(scenario.run(of: 902))
        #expect([wake.startedAt, relaunch.startedAt].sorted() == [Scenario.at(24 * Self.hour), Scenario.at(24 * Self.hour + 60)])
    }
}
