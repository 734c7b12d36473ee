import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// An exec fetch handler's stderr is kept with its wake and logged at debug, whatever it
/// answered: an app team debugging its handler sees what it said.
@Suite struct ExecHandlerErrorOutputTests {
    @Test func stderrIsKeptWithTheWakeAndLoggedWhateverTheResult() async throws {
        let command = #"echo "token $SILENTPUSH_TOKEN" >&2; head -c 5000 /dev/zero | tr '\0' x >&2; echo " the end" >&2; echo newData"#
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start(["--fetch-exec", command, "--log-level", "debug"])
        var stopped = false
        defer { if !stopped { receiver.signal(SIGKILL) } }
        let sent = try await PeerProcess.run(
            "curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge", "-H",
                "authorization: bearer \(try DevProviderToken.make())",
                "-H", "apns-topic: com.example.app", "-H", "apns-push-type: background", "-H", "apns-priority: 5",
                "-d", #"{"aps":{"content-available":1}}"#, "http://127.0.0.1:\(h2c)\(SamplePush.path)",
            ])
        #expect(sent.output == "200")
        var wake: [String: Any]?
        for _ in 0..<100 {
            let wakes = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes").json["wakes"] as? [[String: Any]]
            if let first = wakes?.first, first["result"] is String {
                wake = first
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let recorded = try #require(wake)
        #expect(recorded["result"] as? String == "newData")
        let stderr = try #require(recorded["stderr"] as? String)
        // The last 4 KB: the start is cut, the end kept.
        #expect(stderr.utf8.count == 4096 && stderr.hasSuffix("xxx the end\n") && !stderr.contains("token"), "\(stderr.prefix(80))")
        receiver.signal(SIGTERM)
        stopped = true
        let log = await receiver.wait().errorOutput
        #expect(log.split(separator: "\n").contains { $0.contains("debug") && $0.contains("fetch handler stderr") && $0.contains("the end") })
    }

    /// A task command that fails (a crash, a non-zero exit) leaves its run `failed`; the log
    /// says why, with its exit status and the last line of its stderr.
    @Test func aFailingTaskCommandIsLoggedWithItsExitStatusAndStderr() async throws {
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["a"], "backgroundModes": ["fetch"]}}}"#
        let path = Scratch.directory.appendingPathComponent("tasks-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command = #"echo "SyntaxError: invalid syntax" >&2; exit 3"#
        let (receiver, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path, "--clock", "manual", "--fetch-exec", command])
        var stopped = false
        defer { if !stopped { receiver.signal(SIGKILL) } }
        let tasks = "/v1/devices/" + String(repeating: "ab", count: 32) + "/apps/com.example.app/tasks"
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", tasks, body: #"{"identifier": "a", "kind": "refresh"}"#).status == 201)
        // Launched now, unless the device launched it already (then there is none to launch: 404).
        let launched = try await SilentPushdDeviceTests.admin(admin, "POST", tasks + "/a/simulate-launch", body: "{}")
        #expect([200, 404].contains(launched.status), "\(launched)")
        var outcome: String?
        for _ in 0..<100 where outcome == nil {
            let runs = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/task-runs").json["runs"] as? [[String: Any]]
            outcome = runs?.first?["outcome"] as? String
            if outcome == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(outcome == "failed")
        receiver.signal(SIGTERM)
        stopped = true
        let log = await receiver.wait().errorOutput
        #expect(log.contains("task handler failed: exit 3: SyntaxError: invalid syntax"), "\(log)")
    }
}
