import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Synchronization
import Testing

/// Background tasks in-process: a receiver on the manual clock, requests submitted through the
/// Swift API, handlers run, expired and terminated, and every request and run in the store.
@Suite struct BackgroundTaskRuntimeTests {
    static let declaration = AppDeclaration(
        permittedTaskIdentifiers: ["com.example.refresh", "com.example.clean"], backgroundModes: [.fetch, .processing])

    static func configure(_ handler: FetchHandlerChoice) -> (inout ReceiverConfiguration) -> Void {
        { configuration in
            configuration.apps = [SamplePush.topic: Self.declaration]
            configuration.fetchHandler = handler
        }
    }

    @Test func aRefreshRunsAtItsEarliestBeginDateAndItsRunIsRecorded() async throws {
        let ran = Atomic(0)
        try await Receiver.withTesting(
            Self.configure(
                .swift(task: { task in
                    ran.add(1, ordering: .relaxed)
                    task.setTaskCompleted(success: true)
                }))
        ) { receiver in
            let start = receiver.device.clock.now
            let request = try await receiver.submitTask(
                .init(identifier: "com.example.refresh", kind: .refresh, earliestBegin: start.advanced(by: .seconds(3600))))
            #expect(request.state == .pending)
            #expect(request.why?.rule == .earliestBegin)
            #expect(request.why?.until?.millisecondsSinceEpoch == start.advanced(by: .seconds(3600)).millisecondsSinceEpoch)
            try await receiver.advanceClock(by: .seconds(3599))
            await receiver.settle()
            #expect(try await receiver.taskRuns().isEmpty)
            try await receiver.advanceClock(by: .seconds(1))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .completed && run.kind == .refresh && run.identifier == "com.example.refresh")
            #expect(run.startedAt.millisecondsSinceEpoch == start.advanced(by: .seconds(3600)).millisecondsSinceEpoch)
            #expect(run.deadline == run.startedAt.advanced(by: .seconds(30)))
            #expect(ran.load(ordering: .relaxed) == 1)
            let after = try #require(try await receiver.taskRequests().first)
            #expect(after.state == .launched && after.why == nil)
        }
    }

    @Test func refusalsAreApplesErrors() async throws {
        try await Receiver.withTesting(Self.configure(.noData)) { receiver in
            await #expect(throws: TaskSubmitError.notPermitted) {
                try await receiver.submitTask(.init(identifier: "com.example.other", kind: .refresh))
            }
            await #expect(throws: TaskSubmitError.notPermitted) {
                try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh), topic: "com.example.undeclared")
            }
            try await receiver.setDeviceState(DeviceState(backgroundRefresh: false))
            await #expect(throws: TaskSubmitError.unavailable) {
                try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            }
            #expect(try await receiver.taskRequests().isEmpty)
        }
    }

    @Test func theSwiftHandlersExpirationPathRunsAndItsLateCompletionIsExpired() async throws {
        let expirations = Atomic(0)
        let configure = Self.configure(
            .swift(task: { task in
                task.expirationHandler = { expirations.add(1, ordering: .relaxed) }
                try? await Task.sleep(for: .seconds(3600))  // cancelled on expiry
                task.setTaskCompleted(success: false)
            }))
        // 2 s for a refresh: crossing it, the handler gets those 2 s of real time first.
        try await Receiver.withTesting({
            configure(&$0)
            $0.wakeSettings.refreshTaskTime = .seconds(2)
        }) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(3))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(expirations.load(ordering: .relaxed) == 1)
            #expect(run.expiredAt == run.deadline)
            #expect(run.outcome == .expired)
        }
    }

    /// A run's handler gets its own time limit in real time before a manual-clock move crosses
    /// its expiry, not a push wake's deadline: the clocks agree on how it ends.
    @Test func aMoveOfTheManualClockGivesARunItsOwnTimeLimit() async throws {
        let configure = Self.configure(
            .swift(task: { task in
                try? await Task.sleep(for: .milliseconds(1500))
                task.setTaskCompleted(success: true)
            }))
        try await Receiver.withTesting({
            configure(&$0)
            $0.wakeSettings.deadline = .seconds(1)
            $0.wakeSettings.refreshTaskTime = .seconds(4)
        }) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(10))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .completed && run.expiredAt == nil, "\(run)")
        }
    }

    /// Its handler sets an expiration handler that does nothing, and never calls `setTaskCompleted`.
    @Test func aRunThatNeverCompletesIsTerminatedAndTheAppsNextRequestWaits() async throws {
        try await Receiver.withTesting(Self.configure(.swift(task: { task in task.expirationHandler = {} }))) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(40))  // 30 s, then 5 s of grace
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .terminated)
            #expect(run.finishedAt == run.deadline?.advanced(by: .seconds(5)))
            let next = try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            let penaltyEnd = try #require(run.finishedAt).advanced(by: .seconds(3600))
            #expect(next.why == .taskPenalty(until: penaltyEnd))
        }
    }

    /// The termination penalty outlives a restart: it is kept in the run's record, not only
    /// in memory, so the app's next request after the restart still waits for its end.
    @Test func theTerminationPenaltyOutlivesARestart() async throws {
        let path = try Scratch.newDirectory("tasks-penalty") + "/store.sqlite"
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            Self.configure(.swift(task: { task in task.expirationHandler = {} }))(&$0)
            $0.store = .file(path)
        }
        let finished = try await Receiver.withTesting(configure) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(40))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .terminated)
            return try #require(run.finishedAt)
        }
        try await Receiver.withTesting(configure) { receiver in
            let next = try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            #expect(next.why == .taskPenalty(until: finished.advanced(by: .seconds(3600))))
            try await receiver.advanceClock(by: .seconds(3600))
            await receiver.settle()
            #expect(try await receiver.taskRuns().count == 2, "at the penalty's end the request runs")
        }
    }

    /// Apple: "Not setting an expiration handler results in the system marking your task as
    /// complete and unsuccessful".
    @Test func aRunWithoutAnExpirationHandlerIsCompletedUnsuccessfullyWhenItExpires() async throws {
        try await Receiver.withTesting(Self.configure(.swift(task: { _ in }))) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(40))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .expired)
            #expect(run.finishedAt == run.deadline)
            let next = try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            #expect(next.why?.rule == .minimumInterval)  // the app's interval from the last launch, no penalty
        }
    }

    @Test func theDebuggersCommandsLaunchAndExpire() async throws {
        try await Receiver.withTesting(
            Self.configure(
                .swift(task: { task in
                    task.expirationHandler = { task.setTaskCompleted(success: true) }
                    try? await Task.sleep(for: .seconds(3600))
                }))
        ) { receiver in
            let start = receiver.device.clock.now
            try await receiver.submitTask(
                .init(identifier: "com.example.refresh", kind: .refresh, earliestBegin: start.advanced(by: .seconds(86_400))))
            let device = SamplePush.deviceToken, topic = SamplePush.topic
            #expect(try await receiver.device.simulateTaskLaunch(identifier: "com.example.clean", device: device, topic: topic) == false)
            #expect(try await receiver.device.simulateTaskLaunch(identifier: "com.example.refresh", device: device, topic: topic))
            #expect(try await receiver.device.simulateTaskExpiration(identifier: "com.example.refresh", device: device, topic: topic))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.simulated && run.outcome == .expired)
            #expect(run.startedAt.millisecondsSinceEpoch == start.millisecondsSinceEpoch)
        }
    }

    @Test func processingWaitsForAnIdleChargingDevice() async throws {
        try await Receiver.withTesting(Self.configure(.noData)) { receiver in
            let request = try await receiver.submitTask(.init(identifier: "com.example.clean", kind: .processing, requiresExternalPower: true))
            #expect(request.why == .externalPower)
            try await receiver.setDeviceState(DeviceState(charging: true))
            #expect(try await receiver.taskRequests().first?.why == .deviceInUse)
            try await receiver.setDeviceState(DeviceState(charging: true, idle: true))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.kind == .processing && run.outcome == .completed)
            #expect(run.deadline == run.startedAt.advanced(by: .seconds(300)))
        }
    }

    @Test func aRestartPutsBackPendingRequestsAndEndsTheRunsItCut() async throws {
        let path = Scratch.directory.appendingPathComponent("tasks-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            Self.configure(.swift(task: { _ in try? await Task.sleep(for: .seconds(3600)) }))(&$0)
            $0.store = .file(path)
            $0.shutdownGrace = .milliseconds(100)
        }
        let waitingUntil = try await Receiver.withTesting(configure) { receiver in
            let now = receiver.device.clock.now
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))  // runs, hangs
            let clean = try await receiver.submitTask(.init(identifier: "com.example.clean", kind: .processing))  // waits for idle
            #expect(clean.why == .deviceInUse)
            return now
        }
        _ = waitingUntil
        try await Receiver.withTesting(configure) { receiver in
            // Cut by the stop, not terminated by the system: nothing is deferred for it.
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .interrupted)
            let pending = try await receiver.taskRequests().filter { $0.state == .pending }
            #expect(pending.map(\.request.identifier) == ["com.example.clean"])
            #expect(pending.first?.why == .deviceInUse)
            try await receiver.setDeviceState(DeviceState(idle: true))
            #expect(try await receiver.taskRuns().count == 2)
        }
    }

    /// A run going when the receiver stops is given the shutdown grace, as a fetch is: one that
    /// completes within it ends as it would (`completed`), not cut.
    @Test func aRunThatCompletesWithinTheShutdownGraceIsCompleted() async throws {
        let path = try Scratch.newDirectory("tasks-grace") + "/store.sqlite"
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let clock = ContinuousClock()
        var stopping = clock.now
        try await Receiver.withTesting({
            Self.configure(
                .swift(task: { task in
                    try? await Task.sleep(for: .milliseconds(500))
                    task.setTaskCompleted(success: true)
                }))(&$0)
            $0.store = .file(path)
            $0.shutdownGrace = .seconds(10)
        }) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            stopping = clock.now
        }
        let took = stopping.duration(to: clock.now)
        #expect(took >= .milliseconds(300) && took < .seconds(8), "the stop waited \(took)")
        let store = try await PushStore.open(.file(path))
        let run = try #require(try await store.taskRuns(deviceToken: SamplePush.deviceToken).first)
        #expect(run.outcome == .completed, "\(run)")
        try await store.close()
    }

    /// An exec handler: exit status as success, SIGTERM as the expiration handler, SIGKILL
    /// after the grace, `progress N/M` lines.
    static func exec(_ command: String) -> (inout ReceiverConfiguration) -> Void {
        { configuration in
            Self.configure(.exec(command))(&configuration)
            configuration.wakeSettings.refreshTaskTime = .seconds(1)
            configuration.wakeSettings.taskExpirationGrace = .seconds(1)
            configuration.apps[SamplePush.topic]?.permittedTaskIdentifiers.append("com.example.export.*")
        }
    }

    @Test(arguments: [("exit 0", TaskOutcome.completed), ("exit 3", .failed)])
    func anExecTasksExitStatusCompletesIt(command: String, outcome: TaskOutcome) async throws {
        try await Receiver.withTesting(Self.exec(command)) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            await receiver.settle()
            #expect(try await receiver.taskRuns().first?.outcome == outcome)
        }
    }

    @Test func anExecTaskThatExitsOnSIGTERMHasExpired() async throws {
        let marker = Scratch.directory.appendingPathComponent("term-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let command = "trap 'echo \"$SILENTPUSH_TASK_IDENTIFIER\" > \(marker); exit 0' TERM; sleep 60 & wait"
        try await Receiver.withTesting(Self.exec(command)) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .milliseconds(1_500))  // past its 1 s, not its grace
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .expired)
            #expect(String(decoding: FileManager.default.contents(atPath: marker) ?? Data(), as: UTF8.self) == "com.example.refresh\n")
        }
    }

    /// Exec handlers that end on their SIGTERM (the expiration handler): one traps it and
    /// exits, leaving a child that ignores it and holds its stdout; one is ended by it. As the
    /// app sees it, each ended when its expiration handler asked, within the grace.
    static let endOnSIGTERM = ["trap 'exit 0' TERM; (trap '' TERM; sleep 30) & wait", "exec sleep 60"]

    /// Waits, for at most `timeout` of real time, until the first task run has an outcome.
    static func outcome(of receiver: Receiver, within timeout: Duration) async throws -> TaskOutcome? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let outcome = try await receiver.taskRuns().first?.outcome { return outcome }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await receiver.taskRuns().first?.outcome
    }

    /// An exec handler `command`, with a refresh task's 1 s and 2 s of grace.
    static func ending(_ command: String, clock: DeviceClock.Mode = .manual) -> (inout ReceiverConfiguration) -> Void {
        { configuration in
            Self.configure(.exec(command))(&configuration)
            configuration.clock = clock
            configuration.wakeSettings.refreshTaskTime = .seconds(1)
            configuration.wakeSettings.taskExpirationGrace = .seconds(2)
        }
    }

    @Test(arguments: endOnSIGTERM)
    func anExecTaskThatEndsOnItsSIGTERMHasExpiredWhenTheClockMovesPastItsGrace(command: String) async throws {
        try await Receiver.withTesting(Self.ending(command)) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(60))  // past its 1 s and its grace in one move
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .expired, "\(run)")
            #expect(run.expiredAt == run.deadline)
        }
    }

    @Test(arguments: endOnSIGTERM)
    func simulatedExpirationOfAnExecTaskThatEndsOnItsSIGTERMEndsItExpiredWithoutMovingTheClock(command: String) async throws {
        try await Receiver.withTesting(Self.ending(command)) { receiver in
            let device = SamplePush.deviceToken, topic = SamplePush.topic
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await Task.sleep(for: .milliseconds(200))  // the command has started and set its trap
            #expect(try await receiver.device.simulateTaskExpiration(identifier: "com.example.refresh", device: device, topic: topic))
            #expect(try await Self.outcome(of: receiver, within: .seconds(5)) == .expired)
        }
    }

    @Test(arguments: endOnSIGTERM)
    func onTheSystemClockAnExecTaskThatEndsOnItsSIGTERMHasExpired(command: String) async throws {
        try await Receiver.withTesting(Self.ending(command, clock: .system)) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            #expect(try await Self.outcome(of: receiver, within: .seconds(8)) == .expired)
        }
    }

    /// The shell a command runs under dies on the SIGTERM, while what it runs ignores it: the
    /// handler has not ended (its group still runs), so the run is terminated once the grace
    /// is over in real time, on either clock, without a move of the manual clock (it was
    /// `expired` at once, as if the shell were the app).
    @Test(arguments: DeviceClock.Mode.allCases)
    func aSimulatedExpirationOfATaskWhoseShellDiesButWhoseCommandIgnoresSIGTERMTerminatesItAfterTheGrace(clock: DeviceClock.Mode) async throws {
        try await Receiver.withTesting(Self.ending("(trap '' TERM; while :; do sleep 1; done); echo after", clock: clock)) { receiver in
            let device = SamplePush.deviceToken, topic = SamplePush.topic
            // A long refresh: the simulated expiration comes before its own deadline.
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await Task.sleep(for: .milliseconds(200))
            let began = ContinuousClock.now
            #expect(try await receiver.device.simulateTaskExpiration(identifier: "com.example.refresh", device: device, topic: topic))
            #expect(try await Self.outcome(of: receiver, within: .seconds(8)) == .terminated)
            #expect(ContinuousClock.now - began >= .seconds(2), "terminated before its 2 s of grace: \(ContinuousClock.now - began)")
        }
    }

    @Test func anExecTaskThatIgnoresSIGTERMIsKilledAndTerminated() async throws {
        try await Receiver.withTesting(Self.exec("trap '' TERM; sleep 60")) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(3))  // its 1 s, then 1 s of grace
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .terminated)
            #expect(run.finishedAt == run.deadline?.advanced(by: .seconds(1)))
        }
    }

    @Test func aContinuedExecTaskReportsProgress() async throws {
        try await Receiver.withTesting(Self.exec("echo progress 3/10; sleep 0.1; echo progress 7/10; exit 0")) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.export.video", kind: .continued))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .completed && run.kind == .continued && run.deadline == nil)
            #expect(run.progressCompleted == 7 && run.progressTotal == 10)
        }
    }

    /// A day on the manual clock: a push every two hours and a refresh kept scheduled an hour
    /// ahead, on a budget of 6 launches a day. Both kinds share it.
    @Test func pushesAndTasksShareTheBudgetOverADayOnTheManualClock() async throws {
        try await Receiver.withTesting({
            Self.configure(.noData)(&$0)
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60), dailyBudget: 6)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let start = receiver.device.clock.now
            var heldByBudget = (tasks: 0, pushes: 0)
            var runs = 0
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh, earliestBegin: start.advanced(by: .seconds(3600))))
            for halfHour in 0..<48 {
                if halfHour > 0 { try await receiver.advanceClock(by: .seconds(1800)) }
                let now = receiver.device.clock.now
                if try await receiver.taskRuns().count > runs {
                    runs = try await receiver.taskRuns().count
                    try await receiver.submitTask(
                        .init(identifier: "com.example.refresh", kind: .refresh, earliestBegin: now.advanced(by: .seconds(3600))))
                }
                if try await receiver.taskRequests().last?.why?.rule == .dailyBudget { heldByBudget.tasks += 1 }
                if halfHour % 4 == 0 {
                    let apnsID = "00000000-0000-4000-8000-" + String(format: "%012d", halfHour + 1)
                    #expect(try await client.push(apnsID: apnsID).status == 200)
                    await receiver.settle()
                    if try await receiver.fate(of: apnsID)?.waitReason?.rule == .dailyBudget { heldByBudget.pushes += 1 }
                }
            }
            await receiver.settle()
            let wakes = try await receiver.wakes().count
            #expect(wakes + runs == 6, "\(wakes) wakes, \(runs) task runs")
            #expect(wakes > 0 && runs > 0)
            #expect(heldByBudget.tasks > 0 && heldByBudget.pushes > 0)
        }
    }
}
