import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A daily budget given to a device while the receiver runs counts the launches it already
/// made, as a restart does: the push it holds reads the same before and after a restart.
@Suite struct DailyBudgetLiveTests {
    @Test func aBudgetSetWhileRunningCountsTheLaunchesAlreadyMadeAsARestartDoes() async throws {
        let directory = try Scratch.newDirectory("daily-budget")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.clock = .manual
        }
        var held = ""
        var why: WaitReason<DeviceInstant>?
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let first = try await client.push().apnsID
            #expect(try await receiver.fate(of: first)?.kind == .delivered)
            try await receiver.setDeviceState(DeviceState(dailyBudget: 1))
            held = try await client.push().apnsID
            why = try await receiver.fate(of: held)?.waitReason
            #expect(why?.rule == .dailyBudget, "\(String(describing: why))")
            // Past the app's 15-minute interval, the budget still holds it.
            try await receiver.advanceClock(by: .seconds(20 * 60))
            #expect(try await receiver.fate(of: held)?.waitReason?.rule == .dailyBudget)
        }
        try await Receiver.withTesting(configure) { receiver in
            let restarted = try await receiver.fate(of: held)
            #expect(restarted?.waitReason == why, "\(String(describing: restarted))")
        }
    }

    /// On the system clock the device keeps its launches to the nanosecond and the store to
    /// the millisecond: a budget changed from the profile's counts each launch once.
    @Test func aBudgetChangedOnTheSystemClockCountsEachLaunchOnce() async throws {
        try await Receiver.withTesting({ $0.wakeSettings = WakeSettings(minimumInterval: .zero, dailyBudget: 72) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            func push(_ app: Int) async throws -> String { try await client.push(topic: "com.example.app\(app)").apnsID }
            for app in 1...2 {
                let id = try await push(app)
                _ = try await receiver.fate(of: id, becomes: .delivered)
            }
            try await receiver.setDeviceState(DeviceState(dailyBudget: 3))
            let third = try await push(3)
            _ = try await receiver.fate(of: third, becomes: .delivered)
            let fourth = try await push(4)
            let why = try await receiver.fate(of: fourth)?.waitReason
            guard case .dailyBudget(let used, let budget, _)? = why else {
                Issue.record("not held by the budget: \(String(describing: why))")
                return
            }
            #expect(used == 3 && budget == 3)
        }
    }
}
