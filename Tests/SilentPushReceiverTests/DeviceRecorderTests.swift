import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import Testing

/// The device side's state machine alone: an event in, its actions out. No runtime, no
/// clock, no store: time is the `now` each event is given.
@Suite struct DeviceRecorderTests {
    typealias App = DeviceRuntime.AppKey

    static let device = String(repeating: "ab", count: 32)
    static let topic = "com.example.app"
    static let app = App(device: device, topic: topic)
    static let t0 = DeviceInstant(millisecondsSinceEpoch: 1_800_000_000_000)
    static func at(_ seconds: Int64) -> DeviceInstant { t0.advanced(by: .seconds(seconds)) }

    static func recorder(armsTimers: Bool = false, settings: WakeSettings = .ios) -> DeviceRecorder {
        DeviceRecorder(policy: DeviceRecorder.Policy(settings: settings), armsTimers: armsTimers)
    }

    static func record(_ id: UInt64, fate: PushFate = .pending, receivedAt: DeviceInstant = t0) -> PushRecord {
        PushRecord(
            id: id, apnsID: "00000000-0000-4000-8000-\(String(format: "%012d", id))", deviceToken: device, topic: topic,
            pushType: "background", priority: 5, receivedAt: receivedAt.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil,
            payload: Array(#"{"aps":{"content-available":1}}"#.utf8), warnings: [], fate: fate)
    }

    /// Pushes `id` at `now`, as the runtime hands it over.
    static func receive(_ recorder: inout DeviceRecorder, _ id: UInt64, at now: DeviceInstant) -> DeviceRecorder.Actions {
        recorder.receive(record(id, receivedAt: now), incoming: IncomingPush(id: id, priority: .normal), now: now) { _ in }
    }

    /// The push rows an event inserts.
    static func inserted(_ actions: DeviceRecorder.Actions) -> [PushRecord] {
        actions.changes.compactMap { if case .insertPush(let push) = $0 { push } else { nil } }
    }

    @Test func aFirstPushStartsAWakeWithThePushInHand() throws {
        var recorder = Self.recorder()
        let actions = Self.receive(&recorder, 1, at: Self.t0)
        #expect(actions.reply == .done)
        #expect(actions.completion != nil, "the provider waits for its row")
        #expect(Self.inserted(actions).map(\.id) == [1])
        #expect(Self.inserted(actions).first?.fate == .delivered)
        #expect(actions.runs.count == 1)
        let run = try #require(actions.runs.first)
        #expect(run.start.push == 1 && run.wake?.apnsID == Self.record(1).apnsID, "no read of the store for the push in hand")
        #expect(actions.changes.contains { if case .insertWake(let wake) = $0 { wake.pushID == 1 } else { false } })
        #expect(recorder.running.keys.sorted() == [run.start.wakeID])
    }

    /// The apps an event records known (`knowApp`), as "device-prefix bundle-id".
    static func known(_ actions: DeviceRecorder.Actions) -> [String] {
        actions.changes.compactMap { if case .knowApp(let device, let topic) = $0 { "\(device.prefix(2)) \(topic)" } else { nil } }
    }

    /// Each app the device side meets is recorded known once, by its bundle id: a push
    /// dropped for what it carried (the policy never sees it), a push the policy takes, a
    /// voip push or a widget reload (their topic's suffix dropped). Forgetting a device
    /// deletes its apps' rows, so an app pushed to after that is recorded again.
    @Test func anAppIsRecordedKnownOnceUntilADeviceIsForgotten() throws {
        var recorder = Self.recorder()
        let dropped = recorder.receive(Self.record(1, fate: .dropped(.noContentAvailable)), incoming: nil, now: Self.t0) { _ in }
        #expect(Self.inserted(dropped).map(\.fate) == [.dropped(.noContentAvailable)])
        #expect(recorder.policy.knownApps.isEmpty, "the policy never saw it")
        #expect(Self.known(dropped) == ["ab com.example.app"])
        let taken = Self.receive(&recorder, 2, at: Self.at(1))
        #expect(Self.inserted(taken).map(\.id) == [2], "the push's row stays the event's first change")
        #expect(Self.known(taken).isEmpty, "known already")
        var voip = Self.record(3, fate: .dropped(.pushTypeNeverWakes(.voip)))
        (voip.pushType, voip.topic) = ("voip", Self.topic + ".voip")
        #expect(Self.known(recorder.receive(voip, incoming: nil, now: Self.at(2)) { _ in }) == ["ab com.example.app"])
        #expect(Self.known(recorder.receive(voip, incoming: nil, now: Self.at(2)) { _ in }).isEmpty)
        var widgets = Self.record(4)
        (widgets.pushType, widgets.topic) = ("widgets", Self.topic + ".push-type.widgets")
        #expect(Self.known(recorder.receiveReload(widgets, now: Self.at(3)) { _ in }) == ["ab com.example.app"])
        _ = recorder.forget(String(repeating: "cd", count: 32), now: Self.at(4)) { _ in }
        let again = Self.receive(&recorder, 5, at: Self.at(5))
        #expect(Self.known(again) == ["ab com.example.app"], "recorded again: which device's rows went is not kept")
        _ = recorder.forget(Self.device, now: Self.at(6)) { _ in }
        #expect(Self.known(Self.receive(&recorder, 6, at: Self.at(7))) == ["ab com.example.app"])
    }

    /// A push that replaced the one waiting in its app's slot records nothing: its app was
    /// recorded when that one arrived. A change of the store's writability forgets what was
    /// recorded (a batch that failed may have held it): the next push that starts a slot
    /// records its app again. A Live Activity push names a token, not a device: never known.
    @Test func aReplacingPushRecordsNothingAndAStoreThatFailedForgetsWhatWasRecorded() throws {
        var recorder = Self.recorder()
        #expect(Self.known(Self.receive(&recorder, 1, at: Self.t0)) == ["ab com.example.app"], "the first push wakes the app")
        let waiting = Self.receive(&recorder, 2, at: Self.at(1))
        #expect(Self.inserted(waiting).first?.replaced == nil && Self.known(waiting).isEmpty)
        _ = recorder.storeWritabilityChanged()
        let replacing = Self.receive(&recorder, 3, at: Self.at(2))
        #expect(Self.inserted(replacing).first?.replaced == 2, "it replaces the push waiting")
        #expect(Self.known(replacing).isEmpty, "no lookup: its app was recorded when push 2 arrived")
        var other = Self.record(4, fate: .dropped(.noContentAvailable))
        other.deviceToken = String(repeating: "cd", count: 32)
        #expect(Self.known(recorder.receive(other, incoming: nil, now: Self.at(3)) { _ in }) == ["cd com.example.app"])
        _ = recorder.storeWritabilityChanged()
        #expect(Self.known(recorder.receive(other, incoming: nil, now: Self.at(4)) { _ in }) == ["cd com.example.app"], "recorded again")
        var activity = Self.record(5, fate: .dropped(.liveActivity(.activityEnded)))
        (activity.pushType, activity.topic, activity.deviceToken) = (
            "liveactivity", Self.topic + ".push-type.liveactivity", String(repeating: "ef", count: 40)
        )
        #expect(Self.known(recorder.receive(activity, incoming: nil, now: Self.at(5)) { _ in }).isEmpty)
    }

    /// Once stopping (SIGTERM's drain), a change of the device's state, a reboot or an app
    /// opened is refused, changing nothing: it would start work the drain no longer runs, or
    /// kill the wake it lets end.
    @Test func aDeviceChangeWhileStoppingIsRefusedAndChangesNothing() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        _ = recorder.setDeviceState(DeviceState(network: .offline), for: Self.device, now: Self.at(1)) { _ in }
        _ = recorder.beginShutdown()
        let online = recorder.setDeviceState(DeviceState(), for: Self.device, now: Self.at(2)) { _ in }
        #expect(online.reply == .stopping && online.changes.isEmpty && online.runs.isEmpty)
        #expect(recorder.policy.deviceState(DeviceKey(Self.device)).network == .offline)
        let rebooted = recorder.reboot(Self.device, now: Self.at(3)) { _ in }
        #expect(rebooted.reply == .stopping && rebooted.changes.isEmpty && rebooted.ended.isEmpty)
        #expect(recorder.running.keys.sorted() == [start.wakeID], "the wake under way runs on")
        let opened = recorder.setLastOpened(Self.at(4), for: Self.app, now: Self.at(4)) { _ in }
        #expect(opened.reply == .stopping && opened.changes.isEmpty)
    }

    /// A push that waits while its device is offline is recorded held at APNs (its storage
    /// limit then counts from its arrival, after a restart too); one that does not wait (its
    /// app force-quit, so dropped), or arrives online, is not.
    @Test func aPushWaitingForAnOfflineDeviceIsRecordedHeldAtAPNs() throws {
        var recorder = Self.recorder()
        _ = recorder.setDeviceState(DeviceState(network: .offline), for: Self.device, now: Self.t0) { _ in }
        let held = Self.receive(&recorder, 1, at: Self.at(1))
        #expect(Self.inserted(held).map(\.fate) == [.pending(.offline)])
        #expect(Self.inserted(held).map(\.heldAtAPNs) == [true])
        _ = recorder.setDeviceState(DeviceState(forceQuit: true, network: .offline), for: Self.device, now: Self.at(2)) { _ in }
        let dropped = Self.receive(&recorder, 2, at: Self.at(3))
        #expect(Self.inserted(dropped).map(\.fate) == [.dropped(.forceQuit)])
        #expect(Self.inserted(dropped).map(\.heldAtAPNs) == [false])
        _ = recorder.setDeviceState(DeviceState(), for: Self.device, now: Self.at(4)) { _ in }
        let online = Self.receive(&recorder, 3, at: Self.at(5))
        #expect(Self.inserted(online).map(\.heldAtAPNs) == [false])
    }

    /// With no storage at APNs (`--apns-storage-limit 0`) a push for an offline device expires
    /// as it arrives, before its own `apns-expiration`: its row says APNs took it, so its
    /// `why` names the storage limit.
    @Test func aPushExpiredAtAPNsAsItArrivedIsRecordedHeld() throws {
        var settings = WakeSettings.ios
        settings.apnsStorageLimit = .zero
        var recorder = Self.recorder(settings: settings)
        _ = recorder.setDeviceState(DeviceState(network: .offline), for: Self.device, now: Self.t0) { _ in }
        let expiresAt = Self.at(3600)
        var row = Self.record(1, receivedAt: Self.at(1))
        row.expiresAt = expiresAt.millisecondsSinceEpoch
        let actions = recorder.receive(row, incoming: IncomingPush(id: 1, priority: .normal, expiresAt: expiresAt), now: Self.at(1)) { _ in }
        #expect(Self.inserted(actions).map(\.fate) == [.expired])
        #expect(Self.inserted(actions).map(\.heldAtAPNs) == [true])
    }

    @Test func pushesWithinTheIntervalWaitAndTheNewestReplacesTheOneWaiting() throws {
        var recorder = Self.recorder()
        _ = Self.receive(&recorder, 1, at: Self.t0)
        let second = Self.receive(&recorder, 2, at: Self.at(10))
        #expect(second.runs.isEmpty)
        #expect(Self.inserted(second).map(\.fate) == [.pending])
        #expect(Self.inserted(second).first?.replaced == nil)
        let third = Self.receive(&recorder, 3, at: Self.at(20))
        #expect(Self.inserted(third).map(\.id) == [3])
        #expect(Self.inserted(third).first?.replaced == 2, "its row names the push it replaced, whose fate the insert writes")
        #expect(third.changes.count == 1, "only this event's change: nothing carried over from the one before")
    }

    @Test func aHandlerAnswerEndsItsWakeAndALateOneIsDeadlineExceeded() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        let answered = recorder.fetchCompleted(start, result: .newData, now: Self.at(2))
        #expect(answered.reply == .fetchRecorded(.newData))
        #expect(answered.ended.map(\.wakeID) == [start.wakeID] && answered.ended.map(\.cancel) == [false])
        #expect(answered.changes == [.finishWake(id: start.wakeID, finishedAt: Self.at(2).millisecondsSinceEpoch, result: .newData)])
        #expect(recorder.running.isEmpty)
        let again = recorder.fetchCompleted(start, result: .noData, now: Self.at(3))
        #expect(again.reply == .fetchRecorded(.deadlineExceeded))
        #expect(again.changes.isEmpty && again.ended.isEmpty)
    }

    @Test func aWakePastItsDeadlineIsCancelled() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        let actions = recorder.advance(to: start.deadline)
        #expect(actions.ended.map(\.wakeID) == [start.wakeID] && actions.ended.map(\.cancel) == [true])
        #expect(
            actions.changes.contains(
                .finishWake(id: start.wakeID, finishedAt: start.deadline.millisecondsSinceEpoch, result: .deadlineExceeded)))
        #expect(recorder.fetchCompleted(start, result: .newData, now: start.deadline).reply == .fetchRecorded(.deadlineExceeded))
    }

    @Test func aManualClockStepWaitsForAWakeBeforeItsDeadline() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        let target = Self.at(3600)
        #expect(recorder.advanceStep(toward: target).reply == .advance(.wait([start.wakeID])))
        let fired = recorder.advanceStep(toward: target)
        #expect(fired.reply == .advance(.fired(to: start.deadline)))
        #expect(fired.ended.map(\.cancel) == [true])
        #expect(recorder.advanceStep(toward: target).reply == .advance(.done))
    }

    /// Before the clock moves at all, every running wake not yet waited for is waited for,
    /// not only those whose deadline comes first: a quick handler answers at the device time
    /// it started, not at the next timer.
    @Test func aManualClockStepWaitsForEveryWakeBeforeTheClockMoves() throws {
        var recorder = Self.recorder()
        let first = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        var other = Self.record(2, receivedAt: Self.at(5))
        other.deviceToken = String(repeating: "cd", count: 32)
        let second = try #require(
            recorder.receive(other, incoming: IncomingPush(id: 2, priority: .normal), now: Self.at(5)) { _ in }.runs.first?.start)
        #expect(second.deadline > first.deadline)
        #expect(recorder.advanceStep(toward: Self.at(3600)).reply == .advance(.wait([first.wakeID, second.wakeID])))
        // Each is given its real time once: the next step (of this move or a later one) fires.
        #expect(recorder.advanceStep(toward: Self.at(3600)).reply == .advance(.fired(to: first.deadline)))
    }

    /// A move with no timer inside it (shorter than the deadline) still gives a wake started
    /// where the clock is its real time first: it answers there, not at the move's end.
    @Test func aShortMoveWithNoTimerWaitsForAWakeStartedWhereTheClockIs() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        #expect(recorder.advanceStep(toward: Self.at(10)).reply == .advance(.wait([start.wakeID])))
        #expect(recorder.advanceStep(toward: Self.at(10)).reply == .advance(.done))
        #expect(recorder.advanceStep(toward: Self.at(10)).reply == .advance(.done), "a move of no time waits for nothing")
    }

    /// A handler that has not answered once its real time is spent is cancelled; the wake runs
    /// on to its deadline, where it ends `deadlineExceeded`, whatever the handler says meanwhile.
    @Test func aHandlerUnansweredAfterItsRealTimeIsCancelledAndItsWakeEndsAtTheDeadline() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        #expect(recorder.advanceStep(toward: Self.at(10)).reply == .advance(.wait([start.wakeID])))
        let spent = recorder.realTimeSpent([start.wakeID])
        #expect(spent.handlersCancelled == [start.wakeID])
        #expect(spent.ended.isEmpty && spent.changes.isEmpty)
        #expect(recorder.advanceStep(toward: Self.at(10)).reply == .advance(.done))
        let late = recorder.fetchCompleted(start, result: .newData, now: Self.at(10))
        #expect(late.reply == .fetchRecorded(.deadlineExceeded))
        #expect(late.changes.isEmpty && late.ended.isEmpty)
        #expect(recorder.running[start.wakeID] != nil, "it runs on until its deadline")
        let ended = recorder.advance(to: start.deadline)
        #expect(ended.ended.map(\.wakeID) == [start.wakeID])
        #expect(
            ended.changes.contains(
                .finishWake(id: start.wakeID, finishedAt: start.deadline.millisecondsSinceEpoch, result: .deadlineExceeded)))
    }

    /// A handler that answered within its real time is not cancelled after it.
    @Test func aHandlerThatAnsweredInItsRealTimeIsNotCancelled() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        #expect(recorder.advanceStep(toward: Self.at(10)).reply == .advance(.wait([start.wakeID])))
        #expect(recorder.fetchCompleted(start, result: .newData, now: Self.t0).reply == .fetchRecorded(.newData))
        #expect(recorder.realTimeSpent([start.wakeID]).handlersCancelled.isEmpty)
    }

    @Test func theTimerIsArmedOnlyOnTheSystemClockAndOnlyWhenTheDeadlineMovesEarlier() throws {
        var manual = Self.recorder(armsTimers: false)
        #expect(Self.receive(&manual, 1, at: Self.t0).armTimer == nil)
        var system = Self.recorder(armsTimers: true)
        let first = Self.receive(&system, 1, at: Self.t0)
        let deadline = try #require(first.runs.first?.start.deadline)
        #expect(first.armTimer == deadline)
        #expect(Self.receive(&system, 2, at: Self.at(1)).armTimer == nil, "the armed deadline is still the earliest")
    }

    /// An armed instant another step fired is forgotten: a later deadline is armed again (it
    /// was never armed, and the system-clock timer slept through it).
    @Test func aDeadlineAfterOneAnotherStepFiredIsArmedAgain() throws {
        var recorder = Self.recorder(armsTimers: true)
        let first = Self.receive(&recorder, 1, at: Self.t0)
        let deadline = try #require(first.runs.first?.start.deadline)
        #expect(first.armTimer == deadline)
        // Not the timer: another event at a later time fires the deadline.
        #expect(recorder.advance(to: deadline.advanced(by: .seconds(1))).armTimer == nil)
        #expect(recorder.nextDeadline == nil)
        let later = Self.receive(&recorder, 2, at: Self.at(3600))
        let next = try #require(later.runs.first?.start.deadline)
        #expect(later.armTimer == next)
    }

    /// While stopping, timers fire nothing: none is armed, so the system-clock timer does not
    /// wake for one due in the past, again and again, for the whole grace.
    @Test func whileStoppingNoTimerIsArmed() throws {
        var recorder = Self.recorder(armsTimers: true)
        let deadline = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start.deadline)
        _ = recorder.beginShutdown()
        #expect(recorder.timerDeadline == nil && recorder.nextDeadline == deadline)
        #expect(recorder.timerFired(at: deadline, now: deadline.advanced(by: .seconds(1))).armTimer == nil)
        #expect(recorder.timerFired(at: deadline, now: deadline.advanced(by: .seconds(2))).armTimer == nil)
    }

    @Test func stoppingRefusesPushesAndCutsTheWakesStillRunning() throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        #expect(recorder.beginShutdown().reply == .stoppingWith(running: [start.wakeID]))
        let refused = Self.receive(&recorder, 2, at: Self.at(1))
        #expect(refused.reply == .stopping && refused.changes.isEmpty && refused.completion == nil)
        #expect(recorder.reject(Self.record(3, fate: .rejected(.badPriority))).reply == .stopping)
        let cut = recorder.cutRunning(now: Self.at(5))
        #expect(cut.ended.map(\.wakeID) == [start.wakeID] && cut.ended.map(\.cancel) == [true])
        #expect(cut.changes == [.finishWake(id: start.wakeID, finishedAt: Self.at(5).millisecondsSinceEpoch, result: .shutdown)])
        // The store's service stops the device side again (grace zero): the cut is kept.
        #expect(recorder.beginShutdown().reply == .stoppingWith(running: []))
        // The cancelled handler's late answer reads as what was recorded, for the log and metrics.
        #expect(recorder.fetchCompleted(start, result: .deadlineExceeded, now: Self.at(6)).reply == .fetchRecorded(.shutdown))
    }

    @Test func aRebootRepliesWithTheEndOfItsWarmUpFromTheStepsTime() {
        var settings = WakeSettings.ios
        settings.rebootWarmup = .seconds(300)
        var recorder = Self.recorder(settings: settings)
        let warmup = Duration.seconds(300)
        #expect(recorder.reboot(Self.device, now: Self.at(5)) { _ in }.reply == .warmingUp(until: Self.at(5).advanced(by: warmup)))
    }

    @Test func aDeviceStateChangeIsRecordedAndDropsWhatWaits() throws {
        var recorder = Self.recorder()
        _ = Self.receive(&recorder, 1, at: Self.t0)
        _ = Self.receive(&recorder, 2, at: Self.at(10))
        let actions = recorder.setDeviceState(DeviceState(forceQuit: true), for: Self.device, now: Self.at(20)) { _ in }
        #expect(actions.completion != nil)
        #expect(actions.changes.first == .setDevice(token: Self.device, state: DeviceState(forceQuit: true)))
        #expect(actions.changes.contains(.setFate(push: 2, fate: .dropped(.forceQuit), generation: nil)))
    }

    /// A force-quit, a restart or a deletion kills the app: its running wake is recorded
    /// `killed` at that moment and its handler cancelled; what the handler says later is not
    /// recorded, and is answered with what was.
    @Test(arguments: AppKill.allCases) func killingTheAppEndsItsWakeAtOnceAndIgnoresTheLateAnswer(cause: AppKill) throws {
        var recorder = Self.recorder()
        let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
        let actions =
            switch cause {
            case .forceQuit: recorder.setDeviceState(DeviceState(forceQuit: true), for: Self.device, now: Self.at(4)) { _ in }
            case .reboot: recorder.reboot(Self.device, now: Self.at(4)) { _ in }
            case .appDeleted: recorder.appDeleted(Self.device, now: Self.at(4)) { _ in }
            }
        #expect(actions.ended.map(\.wakeID) == [start.wakeID] && actions.ended.map(\.cancel) == [true])
        #expect(actions.changes.contains(.finishWake(id: start.wakeID, finishedAt: Self.at(4).millisecondsSinceEpoch, result: .killed(cause))))
        #expect(recorder.running.isEmpty)
        let late = recorder.fetchCompleted(start, result: .newData, now: Self.at(6))
        #expect(late.reply == .fetchRecorded(.killed(cause)))
        #expect(late.changes.isEmpty && late.ended.isEmpty)
    }

    /// Opening the app, or restarting the device, ends a force-quit: the device's state is
    /// recorded without it and a push wakes the app again.
    @Test(arguments: ["opened", "rebooted"]) func aForceQuitEndsWhenTheAppIsOpenedOrTheDeviceRestarts(_ how: String) throws {
        var recorder = Self.recorder(settings: .debugger)
        _ = recorder.setDeviceState(DeviceState(forceQuit: true), for: Self.device, now: Self.t0) { _ in }
        #expect(Self.inserted(Self.receive(&recorder, 1, at: Self.at(1))).first?.fate == .dropped(.forceQuit))
        let actions =
            how == "opened"
            ? recorder.setLastOpened(Self.at(2), for: Self.app, now: Self.at(2)) { _ in }
            : recorder.reboot(Self.device, now: Self.at(2)) { _ in }
        #expect(actions.changes.first == .setDevice(token: Self.device, state: DeviceState()))
        #expect(!recorder.policy.deviceState(DeviceKey(Self.device)).forceQuit)
        #expect(Self.inserted(Self.receive(&recorder, 2, at: Self.at(3))).first?.fate != .dropped(.forceQuit))
    }

    /// A last-opened time in the past (a usage test's) says nothing of the force-quit.
    @Test func anOpeningInThePastLeavesAForceQuit() throws {
        var recorder = Self.recorder(settings: .debugger)
        _ = recorder.setDeviceState(DeviceState(forceQuit: true), for: Self.device, now: Self.at(100)) { _ in }
        let actions = recorder.setLastOpened(Self.at(10), for: Self.app, now: Self.at(200)) { _ in }
        #expect(!actions.changes.contains { if case .setDevice = $0 { true } else { false } })
        #expect(recorder.policy.deviceState(DeviceKey(Self.device)).forceQuit)
    }

    @Test func oneMoveOfTheManualClockAtATime() {
        var recorder = Self.recorder()
        #expect(recorder.beginClockMove(to: Self.at(60)).reply == .done)
        #expect(recorder.clockMove == .moving(to: Self.at(60), tries: []))
        #expect(recorder.beginClockMove(to: Self.at(120)).reply == .clockBusy)
        #expect(recorder.clockMove == .moving(to: Self.at(60), tries: []), "the refused move changes nothing")
        _ = recorder.endClockMove()
        #expect(recorder.beginClockMove(to: Self.at(120)).reply == .done)
    }

    // MARK: Background tasks

    static let declaration = AppDeclaration(permittedTaskIdentifiers: ["com.example.refresh"], backgroundModes: [.fetch])

    static func submit(_ recorder: inout DeviceRecorder, declaration: AppDeclaration? = declaration, at now: DeviceInstant) -> DeviceRecorder.Actions
    {
        let request = TaskRequest<DeviceInstant>(id: 1, identifier: "com.example.refresh", kind: .refresh)
        return recorder.submitTask(
            TaskRequestRecord(deviceToken: device, topic: topic, request: request, submittedAt: now), declaration: declaration, now: now
        ) { _ in }
    }

    /// Rebooting a force-quit device kills what ran first, then ends the force-quit: what the
    /// force-quit held may start then, and is not killed in the same step.
    @Test func aRebootOfAForceQuitDeviceKillsNothingItStarts() throws {
        var recorder = Self.recorder()
        _ = recorder.setDeviceState(DeviceState(forceQuit: true), for: Self.device, now: Self.t0) { _ in }
        let held = Self.submit(&recorder, at: Self.at(1))
        #expect(held.taskRuns.isEmpty, "the force-quit holds it")
        let rebooted = recorder.reboot(Self.device, now: Self.at(2)) { _ in }
        let started = Set(rebooted.taskRuns.map(\.runID))
        #expect(started.count == 1, "it starts once the force-quit ends")
        let killed = rebooted.changes.compactMap { change -> UInt64? in
            if case .killTaskRun(let id, _, .reboot) = change { id } else { nil }
        }
        #expect(started.isDisjoint(with: killed) && rebooted.tasksEnded.isEmpty, "\(rebooted.changes)")
    }

    /// Forgetting a device (`DELETE /v1/devices/{token}`) kills what ran as a deletion does:
    /// no wake recorded as an overrun and no run as a termination (which `/metrics` counted),
    /// and a late answer gets the killed result.
    @Test func forgettingADeviceKillsItsWakeAndItsRunsAsADeletionDoes() throws {
        var woken = Self.recorder()
        let start = try #require(Self.receive(&woken, 1, at: Self.t0).runs.first?.start)
        let forgotten = woken.forget(Self.device, now: Self.at(4)) { _ in }
        #expect(forgotten.ended.map(\.wakeID) == [start.wakeID] && forgotten.ended.map(\.cancel) == [true])
        #expect(
            forgotten.changes.contains(
                .finishWake(id: start.wakeID, finishedAt: Self.at(4).millisecondsSinceEpoch, result: .killed(.appDeleted))),
            "\(forgotten.changes)")
        #expect(forgotten.changes.last == .forgetDevice(token: Self.device), "its records go after")
        #expect(woken.fetchCompleted(start, result: .newData, now: Self.at(6)).reply == .fetchRecorded(.killed(.appDeleted)))

        var running = Self.recorder()
        let run = try #require(Self.submit(&running, at: Self.t0).taskRuns.first)
        let ended = running.forget(Self.device, now: Self.at(4)) { _ in }
        let outcomes = ended.changes.compactMap { change -> AppKill? in
            if case .killTaskRun(run.runID, _, let cause) = change { cause } else { nil }
        }
        #expect(outcomes == [.appDeleted], "\(ended.changes)")
        #expect(running.runningTasks.isEmpty)
    }

    /// A cluster member ordered to reset forgets what it holds, and deletes no record: the
    /// sender deleted them before the order, and a late order (a frozen member) must not
    /// delete what was recorded since. A reset asked of this member deletes them.
    @Test func aResetOrderedByAnotherMemberForgetsAndDeletesNoRecord() throws {
        for records in [DeviceRecorder.ForgottenRecords.deleted, .deletedByTheSender] {
            var recorder = Self.recorder()
            let start = try #require(Self.receive(&recorder, 1, at: Self.t0).runs.first?.start)
            _ = Self.receive(&recorder, 2, at: Self.at(1))  // waits in the app's slot
            let forgotten = recorder.forget(nil, records: records, now: Self.at(4)) { _ in }
            #expect(forgotten.ended.map(\.wakeID) == [start.wakeID], "what ran is killed either way")
            #expect(forgotten.changes.contains(.forgetEverything) == (records == .deleted), "\(records): \(forgotten.changes)")
            #expect(!forgotten.changes.contains { if case .forgetDevice = $0 { true } else { false } })
            #expect(recorder.policy.knownApps.isEmpty, "\(records): the device side forgot its apps")
        }
    }

    @Test func aTaskRequestIsRefusedWithApplesErrorOrStartsARun() throws {
        var recorder = Self.recorder()
        let refused = Self.submit(&recorder, declaration: nil, at: Self.t0)
        guard case .taskRefused = refused.reply else {
            Issue.record("an undeclared identifier is refused: \(refused.reply)")
            return
        }
        #expect(refused.changes.isEmpty && refused.completion == nil)
        // The refused request took id 1: ids are not given back.
        let accepted = Self.submit(&recorder, at: Self.t0)
        #expect(accepted.reply == .taskSubmitted(id: 2) && accepted.completion != nil)
        #expect(accepted.taskRuns.map(\.request.identifier) == ["com.example.refresh"])
        #expect(recorder.runningTasks.values.map(\.phase) == [.running])
    }

    @Test func anExpiredRunIsWaitedForAgainBeforeItsTerminationAndALateCompletionIsExpired() throws {
        var recorder = Self.recorder()
        let run = try #require(Self.submit(&recorder, at: Self.t0).taskRuns.first)
        let deadline = try #require(run.deadline)
        let target = deadline.advanced(by: .seconds(60))
        let beforeExpiry = DeviceRecorder.TaskWait(runID: run.runID, before: .expiry)
        #expect(recorder.advanceStep(toward: target).reply == .advance(.waitTasks([beforeExpiry])))
        let expired = recorder.advanceStep(toward: target)
        #expect(expired.reply == .advance(.fired(to: deadline)))
        #expect(expired.taskExpirations == [run.runID])
        #expect(recorder.runningTasks[run.runID]?.phase == .expired(at: deadline))
        // Before its grace ends, the run is waited for once more: it may still end.
        let beforeTermination = DeviceRecorder.TaskWait(runID: run.runID, before: .termination)
        #expect(recorder.advanceStep(toward: target).reply == .advance(.waitTasks([beforeTermination])))
        let ended = recorder.taskReport(.completed(success: true), runID: run.runID, app: Self.app, now: deadline.advanced(by: .seconds(1)))
        #expect(ended.tasksEnded == [run.runID])
        #expect(
            ended.changes.contains(.finishTaskRun(id: run.runID, at: deadline.advanced(by: .seconds(1)).millisecondsSinceEpoch, outcome: .expired)))
        #expect(recorder.runningTasks.isEmpty)
    }

    @Test func aRunStillGoingAfterItsGraceIsTerminated() throws {
        var recorder = Self.recorder()
        let run = try #require(Self.submit(&recorder, at: Self.t0).taskRuns.first)
        let deadline = try #require(run.deadline)
        _ = recorder.advance(to: deadline)
        let graceOver = deadline.advanced(by: WakeSettings.ios.taskExpirationGrace)
        let actions = recorder.advance(to: graceOver)
        #expect(actions.taskTerminations == [run.runID] && actions.tasksEnded == [run.runID])
        #expect(actions.changes.contains(.finishTaskRun(id: run.runID, at: graceOver.millisecondsSinceEpoch, outcome: .terminated)))
    }

    /// The shutdown's grace over, a run still going is interrupted (not terminated: nothing is
    /// deferred); one that completed within the grace ended as it would.
    @Test func aShutdownInterruptsTheRunsStillGoingAndRecordsTheOnesThatComplete() throws {
        var recorder = Self.recorder()
        let run = try #require(Self.submit(&recorder, at: Self.t0).taskRuns.first)
        _ = recorder.beginShutdown()
        let cut = recorder.cutRunningTasks(now: Self.at(3))
        #expect(cut.taskInterruptions == [run.runID] && cut.tasksEnded == [run.runID] && cut.taskTerminations.isEmpty)
        #expect(cut.changes == [.finishTaskRun(id: run.runID, at: Self.at(3).millisecondsSinceEpoch, outcome: .interrupted)])

        var other = Self.recorder()
        let done = try #require(Self.submit(&other, at: Self.t0).taskRuns.first)
        _ = other.beginShutdown()
        let completed = other.taskReport(.completed(success: true), runID: done.runID, app: done.app, now: Self.at(2))
        #expect(completed.changes == [.finishTaskRun(id: done.runID, at: Self.at(2).millisecondsSinceEpoch, outcome: .completed)])
        #expect(completed.tasksEnded == [done.runID] && completed.taskRuns.isEmpty)
        #expect(other.cutRunningTasks(now: Self.at(3)).changes.isEmpty)
        // A relaunch cut by the stop is pending again, but not one whose handler had returned.
        var relaunching = Self.recorder()
        let app = DeviceRecorder.App(device: Self.device, topic: Self.topic)
        let relaunch = try #require(
            relaunching.restoreTask(
                TaskRequestRecord(
                    deviceToken: Self.device, topic: Self.topic, request: TaskRequest(id: 9, identifier: "S", kind: .urlSession),
                    submittedAt: Self.t0), now: Self.t0
            ).taskRuns.first)
        #expect(relaunch.app == app)
        _ = relaunching.beginShutdown()
        var again = relaunching
        #expect(relaunching.cutRunningTasks(now: Self.at(3)).changes.contains(.setTaskRequest(id: 9, state: .pending, why: nil, at: nil)))
        #expect(
            !again.cutRunningTasks(now: Self.at(3), returned: [relaunch.runID]).changes.contains(
                .setTaskRequest(id: 9, state: .pending, why: nil, at: nil)))
        // A request submitted while stopping is refused as the stop, not as Apple's error.
        #expect(Self.submit(&other, at: Self.at(4)).reply == .stopping)
    }

    /// Back online, a Live Activity start APNs kept for the device subscribes to its channel as
    /// looked up before the step; a start kept on a channel nobody looked up (it arrived in
    /// between) sends the caller to look again, changing nothing.
    @Test func aDeviceBackOnlineWithAStartKeptOnAChannelNotLookedUpIsSteppedAgain() throws {
        var recorder = Self.recorder()
        let app = LiveActivityApp(device: String(repeating: "ab", count: 32), bundleID: Self.topic)
        let channel = try #require(ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
        _ = recorder.setDeviceState(DeviceState(network: .offline), for: app.device, now: Self.t0) { _ in }
        let payload = try LiveActivityPayload.parse(
            Array(
                #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"T","attributes":{},"alert":"x","input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#
                    .utf8)
        ).get()
        var row = Self.record(1)
        row.deviceToken = app.pushToStartToken
        let push = LiveActivityPolicy.Push(
            source: row.apnsID, token: app.pushToStartToken, bundleID: app.bundleID, priority: .high, payload: payload, newActivityID: "A1",
            newToken: "T1", storedUntil: Self.t0.advanced(by: .seconds(3600)))
        _ = recorder.receiveLiveActivity(row, push: push, inputChannelExists: true, now: Self.t0) { _ in }

        let unseen = recorder.setDeviceState(DeviceState(), for: app.device, now: Self.t0.advanced(by: .seconds(10))) { _ in }
        #expect(unseen.reply == .channelsChanged && unseen.changes.isEmpty)
        #expect(recorder.policy.deviceState(DeviceKey(app.device)).network == .offline)
        let key = LiveActivityPolicy.ChannelKey(bundleID: app.bundleID, channel: channel)
        let deleted = recorder.setDeviceState(
            DeviceState(), for: app.device, startChannels: ([key], []), now: Self.t0.advanced(by: .seconds(10))
        ) { _ in }
        #expect(
            deleted.changes.contains { if case .insertActivityUpdate(let update) = $0 { update.outcome == .ignored(.unknownChannel) } else { false } }
        )
        #expect(recorder.policy.deviceState(DeviceKey(app.device)).network == .online)
    }

    /// An activity's update token under another app's topic is refused in the same step that
    /// would have applied it: `DeviceTokenNotForTopic`, the push recorded `rejected` with the
    /// cause, nothing waiting for a commit to answer it, and the activity as it was.
    @Test func anUpdateTokenUnderAnotherAppsTopicIsRefusedInItsStep() throws {
        var recorder = Self.recorder()
        let app = LiveActivityApp(device: String(repeating: "ab", count: 32), bundleID: Self.topic)
        let started = recorder.startActivity(
            id: "A1", app: app, attributesType: "T", attributes: "{}", contentState: #"{"v":0}"#, subscription: .token("7e57"),
            channelExists: true, now: Self.t0
        ) { _ in }
        #expect(started.reply == .done, "\(started.reply)")
        let payload = try LiveActivityPayload.parse(Array(#"{"aps":{"timestamp":5,"event":"update","content-state":{"v":1}}}"#.utf8)).get()
        var row = Self.record(1)
        row.deviceToken = "7e57"
        row.topic = "com.evil.app.push-type.liveactivity"
        let push = LiveActivityPolicy.Push(
            source: row.apnsID, token: "7e57", bundleID: "com.evil.app", priority: .high, payload: payload, newActivityID: "A2",
            newToken: "T2", storedUntil: Self.t0.advanced(by: .seconds(3600)))
        let refused = recorder.receiveLiveActivity(row, push: push, inputChannelExists: true, now: Self.t0.advanced(by: .seconds(1))) { _ in }
        #expect(refused.reply == .rejected(.deviceTokenNotForTopic))
        #expect(refused.completion == nil)
        guard case .insertPush(let recorded)? = refused.changes.first, refused.changes.count == 1 else {
            Issue.record("\(refused.changes)")
            return
        }
        #expect(recorded.fate == .rejected(.deviceTokenNotForTopic, cause: "the token is the update token of a Live Activity of \(Self.topic)"))
        #expect(recorder.activities.activities["A1"]?.contentState == #"{"v":0}"#)
    }

    /// A background push to an activity's update token, or to its app's push-to-start
    /// token, is refused in its step: nothing reaches the wake policy.
    @Test func aLiveActivityTokenTakesNoBackgroundPush() {
        var recorder = Self.recorder()
        let app = LiveActivityApp(device: Self.device, bundleID: Self.topic)
        _ = recorder.startActivity(
            id: "A1", app: app, attributesType: "T", attributes: "{}", contentState: "{}", subscription: .token("7e57"),
            channelExists: true, now: Self.t0
        ) { _ in }
        for (token, cause) in [
            ("7e57", "the token is the update token of a Live Activity of \(Self.topic)"),
            (app.pushToStartToken, "the token is the push-to-start token of \(Self.topic)'s Live Activities"),
        ] {
            var row = Self.record(1)
            row.deviceToken = token
            let refused = recorder.receive(row, incoming: IncomingPush(id: 1, priority: .normal), now: Self.t0) { _ in }
            #expect(refused.reply == .rejected(.deviceTokenNotForTopic) && refused.completion == nil)
            #expect(Self.inserted(refused).map(\.fate) == [.rejected(.deviceTokenNotForTopic, cause: cause)])
            #expect(refused.runs.isEmpty)
        }
        // The device's own token is its own; a Live Activity push ActivityKit cannot read
        // (here with no content-state) comes this way too, and is its token's: not refused.
        #expect(Self.receive(&recorder, 2, at: Self.t0).reply != .rejected(.deviceTokenNotForTopic))
        var unreadable = Self.record(3, fate: .dropped(.liveActivityPayload(.missingContentState)))
        unreadable.deviceToken = "7e57"
        unreadable.pushType = "liveactivity"
        unreadable.topic = Self.topic + ".push-type.liveactivity"
        let kept = recorder.receive(unreadable, incoming: nil, now: Self.t0) { _ in }
        #expect(kept.reply == .done && Self.inserted(kept).map(\.fate.kind) == [.dropped], "\(kept.changes)")
    }
}
