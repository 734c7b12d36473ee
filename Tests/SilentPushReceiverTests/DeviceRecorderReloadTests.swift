import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import Testing

/// Widget and control pushes through the device side's state machine: a reload is a wake of
/// its own kind that runs no fetch and spends no background launch.
@Suite struct DeviceRecorderReloadTests {
    static let device = DeviceRecorderTests.device
    static let widgets = "com.example.app.push-type.widgets"
    static func at(_ seconds: Int64) -> DeviceInstant { DeviceRecorderTests.at(seconds) }

    static func recorder(reloadBudget: Int? = 2) -> DeviceRecorder {
        var settings = WakeSettings.ios
        settings.reloadBudget = reloadBudget
        settings.dailyBudget = 1
        return DeviceRecorder(policy: DeviceRecorder.Policy(settings: settings), armsTimers: true)
    }

    static func row(_ id: UInt64, topic: String = widgets, type: APNsPushType = .widgets, at now: DeviceInstant) -> PushRecord {
        PushRecord(
            id: id, apnsID: "00000000-0000-4000-8000-\(String(format: "%012d", id))", deviceToken: device, topic: topic,
            pushType: type.rawValue, priority: 10, receivedAt: now.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil,
            payload: Array(#"{"aps":{"content-changed":true}}"#.utf8), warnings: [], fate: .pending)
    }

    static func wakes(_ actions: DeviceRecorder.Actions) -> [WakeRecord] {
        actions.changes.compactMap { if case .insertWake(let wake) = $0 { wake } else { nil } }
    }

    /// A reinstall drops the widget push the deleted install held for its budget, and the
    /// pushes it replaced with it: it reloaded the unregistered token a day later.
    @Test func aReinstallDropsTheWidgetPushTheDeletedInstallHeld() throws {
        var recorder = Self.recorder(reloadBudget: 1)
        _ = recorder.receiveReload(Self.row(1, at: Self.at(0)), now: Self.at(0)) { _ in }
        _ = recorder.receiveReload(Self.row(2, at: Self.at(1)), now: Self.at(1)) { _ in }
        let deleted = recorder.appDeleted(Self.device, now: Self.at(2)) { _ in }
        #expect(deleted.changes.contains(.setFate(push: 2, fate: .dropped(.appDeleted), generation: nil)), "\(deleted.changes)")
        #expect(Self.wakes(recorder.advance(to: Self.at(2 * 86_400))).isEmpty)
    }

    /// A widget push for an offline device is recorded held at APNs, so an expiry at its
    /// storage limit is said as such; one that reloads at once is not.
    @Test func aWidgetPushForAnOfflineDeviceIsRecordedHeldAtAPNs() throws {
        var recorder = Self.recorder()
        _ = recorder.setDeviceState(DeviceState(network: .offline), for: Self.device, now: Self.at(0)) { _ in }
        let held = recorder.receiveReload(Self.row(1, at: Self.at(1)), now: Self.at(1)) { _ in }
        #expect(DeviceRecorderTests.inserted(held).map(\.heldAtAPNs) == [true])
        #expect(DeviceRecorderTests.inserted(held).first?.fate.kind == .pending)
        _ = recorder.setDeviceState(DeviceState(), for: Self.device, now: Self.at(2)) { _ in }
        let reloaded = recorder.receiveReload(Self.row(2, at: Self.at(3)), now: Self.at(3)) { _ in }
        #expect(DeviceRecorderTests.inserted(reloaded).map(\.heldAtAPNs) == [false])
    }

    @Test func aWidgetPushIsAReloadWakeThatRunsNoFetch() throws {
        var recorder = Self.recorder()
        let actions = recorder.receiveReload(Self.row(1, at: Self.at(0)), now: Self.at(0)) { _ in }
        let wake = try #require(Self.wakes(actions).first)
        #expect(wake.kind == .widgets && wake.pushID == 1 && wake.topic == Self.widgets)
        #expect(wake.startedAt == Self.at(0) && wake.finishedAt == Self.at(0) && wake.result == nil)
        let row = try #require(DeviceRecorderTests.inserted(actions).first)
        #expect(row.fate == .delivered && row.fate.wakeID == wake.id)
        #expect(actions.runs.isEmpty, "no fetch handler runs")
        #expect(recorder.running.isEmpty)
        // A control push reloads the controls: its own kind, its own budget.
        let control = recorder.receiveReload(
            Self.row(2, topic: "com.example.app.push-type.controls", type: .controls, at: Self.at(1)), now: Self.at(1)
        ) { _ in }
        #expect(Self.wakes(control).map(\.kind) == [.controls])
        #expect(Self.wakes(control).first.map(\.id) != wake.id)
    }

    @Test func reloadsSpendNoBackgroundLaunchAndFetchWakesNoReload() throws {
        var recorder = Self.recorder()
        _ = recorder.receiveReload(Self.row(1, at: Self.at(0)), now: Self.at(0)) { _ in }
        _ = recorder.receiveReload(Self.row(2, at: Self.at(1)), now: Self.at(1)) { _ in }
        // The device's daily budget is 1 launch: a background push still wakes the app.
        let fetch = DeviceRecorderTests.receive(&recorder, 3, at: Self.at(2))
        #expect(fetch.runs.count == 1)
        #expect(Self.wakes(fetch).map(\.kind) == [.fetch])
        #expect(recorder.reloads.reloadsUsed(ReloadPolicy.Target(device: Self.device, topic: Self.widgets), now: Self.at(2)) == 2)
    }

    @Test func overTheBudgetAPushWaitsThenReloadsWhenTheTimerFires() throws {
        var recorder = Self.recorder()
        _ = recorder.receiveReload(Self.row(1, at: Self.at(0)), now: Self.at(0)) { _ in }
        _ = recorder.receiveReload(Self.row(2, at: Self.at(1)), now: Self.at(1)) { _ in }
        let refill = Self.at(86_400)
        let held = recorder.receiveReload(Self.row(3, at: Self.at(2)), now: Self.at(2)) { _ in }
        #expect(DeviceRecorderTests.inserted(held).first?.fate == .pending(.reloadBudget(used: 2, budget: 2, until: refill)))
        #expect(DeviceRecorderTests.inserted(held).first?.fate.waitReason == .reloadBudget(used: 2, budget: 2, until: refill))
        #expect(held.armTimer == refill)
        let replacing = recorder.receiveReload(Self.row(4, at: Self.at(3)), now: Self.at(3)) { _ in }
        #expect(DeviceRecorderTests.inserted(replacing).first?.replaced == 3, "its row names the push it replaced")
        let fired = recorder.timerFired(at: refill, now: refill)
        let wake = try #require(Self.wakes(fired).first)
        #expect(wake.pushID == 4 && wake.startedAt == refill)
        #expect(fired.changes.contains(.setFate(push: 4, fate: .delivered(by: wake.id), generation: nil)))
        #expect(fired.changes.contains(.closeGeneration(head: 4, fate: .delivered(by: wake.id))), "the push it replaced rides the reload")
    }

    @Test func offlineTheLatestPushWaitsAtAPNsUntilTheDeviceReconnects() throws {
        var recorder = Self.recorder()
        var offline = DeviceState()
        offline.network = .offline
        _ = recorder.setDeviceState(offline, for: Self.device, now: Self.at(0)) { _ in }
        let first = recorder.receiveReload(Self.row(1, at: Self.at(1)), now: Self.at(1)) { _ in }
        #expect(DeviceRecorderTests.inserted(first).first?.fate.waitReason == .offline)
        let second = recorder.receiveReload(Self.row(2, at: Self.at(2)), now: Self.at(2)) { _ in }
        #expect(second.changes.contains(.setCoalescedByAPNs(push: 1)))
        let back = recorder.setDeviceState(DeviceState(), for: Self.device, now: Self.at(10)) { _ in }
        #expect(Self.wakes(back).map(\.pushID) == [2])
    }

    @Test func underTheDebuggerEveryPushReloads() {
        var settings = WakeSettings.debugger
        settings.reloadBudget = 1
        var recorder = DeviceRecorder(policy: DeviceRecorder.Policy(settings: settings), armsTimers: false)
        for id in UInt64(1)...5 {
            #expect(Self.wakes(recorder.receiveReload(Self.row(id, at: Self.at(Int64(id))), now: Self.at(Int64(id))) { _ in }).count == 1)
        }
    }
}
