import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A force-quit, a restart or a deletion kills the app's process on iOS: a handler running
/// then never answers. Here an exec handler that would run 30 s is stopped, and its wake or
/// task run is recorded `killed` at that moment, through the Swift API and the admin API.
@Suite struct AppKillLiveTests {
    /// Does to the sample app what `cause` names, as a user or the admin API would.
    static func kill(_ cause: AppKill, _ receiver: Receiver) async throws {
        switch cause {
        case .forceQuit: try await receiver.setDeviceState(DeviceState(forceQuit: true))
        case .reboot: try await receiver.reboot()
        case .appDeleted:
            let admin = try #require(receiver.adminPort)
            let patched = try await SilentPushdDeviceTests.admin(
                admin, "PATCH", "/v1/devices/\(SamplePush.deviceToken)", body: #"{"unregistered": true}"#)
            #expect(patched.status == 200, "\(patched.json)")
        }
    }

    /// The handler's process id, once it has written it; then whether it is gone.
    static func pid(in file: String) async throws -> Int32 {
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: file, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return pid
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CancellationError()
    }

    static func gone(_ pid: Int32) async throws -> Bool {
        for _ in 0..<200 {
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            if status == nil || status!.contains("State:\tZ") { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test(arguments: AppKill.allCases) func killingTheAppStopsItsRunningWakeAndRecordsItKilled(cause: AppKill) async throws {
        let directory = try Scratch.newDirectory("kill")
        let pidFile = directory + "/pid"
        try await Receiver.withTesting({ $0.fetchHandler = .exec("cat >/dev/null; echo $$ > \(pidFile); exec sleep 30") }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let push = try await client.push()
            #expect(push.status == 200)
            let pid = try await Self.pid(in: pidFile)
            let began = ContinuousClock.now
            try await Self.kill(cause, receiver)
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.result == .killed(cause), "\(wake)")
            #expect(try await Self.gone(pid), "the handler's process is stopped")
            #expect(await receiver.settle(timeout: .seconds(10)))
            #expect(ContinuousClock.now - began < .seconds(15), "not its 30 s")
            // What the handler said on its way out is not recorded over it.
            #expect(try await receiver.wakes().first?.result == .killed(cause))

            let admin = try #require(receiver.adminPort)
            let listed = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes")
            let served = try #require((listed.json["wakes"] as? [[String: Any]])?.first, "\(listed.json)")
            #expect(served["result"] as? String == "failed" && served["endedBy"] as? String == "killed", "\(served)")
            #expect(served["reason"] as? String == "killed: \(cause.description)", "\(served)")
            await client.close()
        }
    }

    @Test(arguments: AppKill.allCases) func killingTheAppStopsItsTaskRunAndRecordsItKilled(cause: AppKill) async throws {
        let directory = try Scratch.newDirectory("kill")
        let pidFile = directory + "/pid"
        try await Receiver.withTesting({
            $0.fetchHandler = .exec("cat >/dev/null; echo $$ > \(pidFile); exec sleep 30")
            $0.apps = [SamplePush.topic: AppDeclaration(permittedTaskIdentifiers: ["com.example.refresh"], backgroundModes: [.fetch])]
        }) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            let pid = try await Self.pid(in: pidFile)
            try await Self.kill(cause, receiver)
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .killed && run.killedBy == cause, "\(run)")
            #expect(try await Self.gone(pid), "the handler's process is stopped")
            #expect(await receiver.settle(timeout: .seconds(10)))
            #expect(try await receiver.taskRuns().first?.outcome == .killed)
            // The admin API's why names what killed the app.
            let admin = try #require(receiver.adminPort)
            let listed = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/task-runs")
            let served = try #require((listed.json["runs"] as? [[String: Any]])?.first, "\(listed.json)")
            let why = try #require(served["why"] as? [String: Any], "\(served)")
            #expect(served["outcome"] as? String == "killed" && (why["text"] as? String)?.contains("(\(cause.description))") == true, "\(served)")
            #expect(served["killedBy"] as? String == cause.rawValue, "\(served)")
        }
    }
}
