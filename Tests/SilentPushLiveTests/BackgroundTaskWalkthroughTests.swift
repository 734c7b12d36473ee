import Foundation
import SilentPushTestSupport
import Testing

/// `docs/background-tasks.md`'s walkthrough, as written there: its config file and its shell
/// blocks, run with bash and curl against a `silentpushd` started with that config.
@Suite struct BackgroundTaskWalkthroughTests {
    /// The fenced blocks of `language` in the document's walkthrough section, in order.
    static func blocks(_ language: String) throws -> [String] {
        try Repository.blocks(language, in: "docs/background-tasks.md", after: "## Walkthrough")
    }

    @Test func theWalkthroughRunsAsWritten() async throws {
        let config = try #require(try Self.blocks("json").first)
        let scripts = try Self.blocks("sh").filter { !$0.hasPrefix("silentpushd ") }
        #expect(scripts.count == 2)
        let path = Scratch.directory.appendingPathComponent("walkthrough-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path])
        defer { process.signal(SIGKILL) }

        // One shell, as a reader runs them: the second block uses the first's variables.
        let result = try await PeerProcess.run(
            "bash", ["-euo", "pipefail", "-c", scripts[0] + "echo ----\n" + scripts[1]], environment: ["ADMIN": "http://127.0.0.1:\(admin)"],
            timeout: .seconds(60))
        let parts = result.output.components(separatedBy: "----\n")
        #expect(parts.count == 2, "\(result.output)\(result.errorOutput)")
        let lines = (parts.first ?? "").split(separator: "\n")
        #expect(lines.count == 2, "\(result.output)")
        // Submitted: pending for its earliest begin date; an hour later, held by the setting.
        #expect(lines.first?.contains(#""state":"pending""#) == true, "\(result.output)")
        #expect(lines.first?.contains(#""rule":"earliestBegin""#) == true, "\(result.output)")
        #expect(lines.last?.contains(#""rule":"backgroundRefreshOff""#) == true, "\(result.output)")
        #expect(lines.last?.contains(#""text":"held: Background App Refresh is off""#) == true, "\(result.output)")
        // Turned on again: it ran.
        let runs = parts.last ?? ""
        #expect(runs.contains(#""outcome":"completed""#), "\(result.output)")
        #expect(runs.contains(#""identifier":"com.example.app.refresh""#), "\(result.output)")
    }

    /// A request held by the device's network or Low Power Mode says so in a task's words,
    /// not a push's ("held at APNs", "priority-5 wakes").
    @Test func aHeldRequestSaysWhatHoldsItInATasksWords() async throws {
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["net", "lpm"], "backgroundModes": ["fetch", "processing"]}}}"#
        let path = Scratch.directory.appendingPathComponent("tasks-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path, "--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let device = "/v1/devices/" + String(repeating: "cd", count: 32)
        func why(_ body: String) async throws -> String? {
            let answer = try await SilentPushdDeviceTests.admin(admin, "POST", device + "/apps/com.example.app/tasks", body: body)
            return (answer.json["why"] as? [String: Any])?["text"] as? String
        }
        #expect(try await SilentPushdDeviceTests.admin(admin, "PATCH", device, body: #"{"network": "offline"}"#).status == 200)
        let held = try await why(#"{"identifier": "net", "kind": "processing", "requiresNetworkConnectivity": true}"#)
        #expect(held == "waiting: the task requires network connectivity and the device is offline", "\(String(describing: held))")
        #expect(
            try await SilentPushdDeviceTests.admin(admin, "PATCH", device, body: #"{"network": "online", "lowPowerMode": true}"#).status == 200)
        let deferred = try await why(#"{"identifier": "lpm", "kind": "refresh"}"#)
        #expect(deferred == "deferred: Low Power Mode holds background tasks", "\(String(describing: deferred))")
    }

    /// A continued task refused `immediateRunIneligible` says what kept it from starting:
    /// the device's continued tasks all running, then the app force-quit.
    @Test func anImmediateRunRefusalSaysWhatHeldTheTask() async throws {
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["export.*"], "backgroundModes": ["processing"]}}}"#
        let path = Scratch.directory.appendingPathComponent("tasks-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start([
            "--config", path, "--clock", "manual", "--continued-task-capacity", "1", "--fetch-exec", "sleep 30",
        ])
        defer { process.signal(SIGKILL) }
        let device = "/v1/devices/" + String(repeating: "ce", count: 32)
        let tasks = device + "/apps/com.example.app/tasks"
        let running = try await SilentPushdDeviceTests.admin(admin, "POST", tasks, body: #"{"identifier": "export.a", "kind": "continued"}"#)
        #expect(running.status == 201, "\(running.json)")
        let full = try await SilentPushdDeviceTests.admin(
            admin, "POST", tasks, body: #"{"identifier": "export.b", "kind": "continued", "strategy": "fail"}"#)
        #expect(full.status == 409 && full.json["code"] as? String == "immediateRunIneligible", "\(full.json)")
        #expect((full.json["why"] as? [String: Any])?["rule"] as? String == "continuedSlots", "\(full.json)")
        #expect((full.json["detail"] as? String)?.contains("1 of the device's 1 continued tasks are running") == true, "\(full.json)")

        #expect(try await SilentPushdDeviceTests.admin(admin, "PATCH", device, body: #"{"forceQuit": true}"#).status == 200)
        let quit = try await SilentPushdDeviceTests.admin(
            admin, "POST", tasks, body: #"{"identifier": "export.c", "kind": "continued", "strategy": "fail"}"#)
        #expect(quit.status == 409 && (quit.json["why"] as? [String: Any])?["rule"] as? String == "forceQuit", "\(quit.json)")
    }

    @Test func theTaskRoutesAnswerWithApplesErrorNames() async throws {
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["a", "b", "clean"], "backgroundModes": ["fetch", "processing"]}}}"#
        let path = Scratch.directory.appendingPathComponent("tasks-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path, "--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let device = "/v1/devices/" + String(repeating: "ab", count: 32)
        let tasks = device + "/apps/com.example.app/tasks"
        func call(_ method: String, _ path: String, _ body: String? = nil) async throws -> (status: Int, json: [String: Any]) {
            try await SilentPushdDeviceTests.admin(admin, method, path, body: body)
        }

        let undeclared = try await call("POST", tasks, #"{"identifier": "z", "kind": "refresh"}"#)
        #expect(undeclared.status == 403 && undeclared.json["code"] as? String == "notPermitted" && undeclared.json["errorCode"] as? Int == 3)
        #expect(try await call("POST", tasks, #"{"identifier": "a", "kind": "sometimes"}"#).status == 422)
        #expect(try await call("POST", tasks, #"{"identifier": "a", "kind": "refresh", "requiresExternalPower": true}"#).status == 422)
        // A path identifier outside visible ASCII (here U+FFFD) is refused, saying what one looks like.
        let unreadable = try await call("DELETE", tasks + "/a%EF%BF%BDb")
        #expect(unreadable.status == 422 && (unreadable.json["detail"] as? String)?.contains("1 to 200 visible ASCII characters") == true)
        let first = try await call("POST", tasks, #"{"identifier": "a", "kind": "refresh", "earliestBeginDate": "2200-01-01T00:00:00Z"}"#)
        #expect(first.status == 201 && first.json["state"] as? String == "pending")
        let second = try await call("POST", tasks, #"{"identifier": "b", "kind": "refresh"}"#)
        #expect(second.status == 409 && second.json["code"] as? String == "tooManyPendingTaskRequests" && second.json["errorCode"] as? Int == 2)
        #expect((try await call("GET", tasks).json["requests"] as? [[String: Any]])?.map { $0["identifier"] as? String } == ["a"])

        #expect(try await call("POST", tasks + "/a/simulate-expiration", "{}").status == 404)  // not running
        let launched = try await call("POST", tasks + "/a/simulate-launch", "{}")
        // The answer comes once the launch is committed; the default handler completes the
        // run on its own task, so the outcome may still be on its way.
        #expect(launched.status == 200 && launched.json["simulated"] as? Bool == true)
        #expect(["running", "completed"].contains(launched.json["outcome"] as? String ?? "running"), "\(launched.json)")
        var outcome: String?
        for _ in 0..<100 where outcome != "completed" {
            let runs = try await call("GET", "/v1/task-runs?topic=com.example.app").json["runs"] as? [[String: Any]]
            outcome = runs?.first?["outcome"] as? String
            if outcome != "completed" { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(outcome == "completed")
        #expect(try await call("DELETE", tasks + "/a", "{}").status == 404)  // no longer pending

        let clean = try await call("POST", tasks, #"{"identifier": "clean", "kind": "processing"}"#)
        #expect((clean.json["why"] as? [String: Any])?["rule"] as? String == "idle")
        // The same identifier again replaces the pending request.
        #expect(try await call("POST", tasks, #"{"identifier": "clean", "kind": "processing"}"#).status == 201)
        let cancelled = try await call("DELETE", tasks, "{}")
        #expect(cancelled.status == 200 && cancelled.json["cancelled"] as? Int == 1)

        #expect(try await call("PATCH", device, #"{"backgroundRefresh": false}"#).status == 200)
        let unavailable = try await call("POST", tasks, #"{"identifier": "a", "kind": "refresh"}"#)
        #expect(unavailable.status == 409 && unavailable.json["code"] as? String == "unavailable")
        // The cancelled request is listed with the run, as a request that never ran.
        let runs = try #require(try await call("GET", "/v1/task-runs?topic=com.example.app").json["runs"] as? [[String: Any]])
        #expect(runs.map { $0["identifier"] as? String } == ["clean", "clean", "a"], "\(runs)")
        #expect(runs.map { $0["outcome"] as? String } == ["cancelled", "replaced", "completed"], "\(runs)")
        #expect(runs.first?["id"] is NSNull && runs.first?["startedAt"] is NSNull && runs.first?["finishedAt"] is String)
        #expect((runs.first?["why"] as? [String: Any])?["rule"] as? String == "cancelled")
        #expect(runs.last?["id"] is Int && runs.last?["startedAt"] is String)
        let ranOnly = try await call("GET", "/v1/task-runs?topic=com.example.app&neverRan=false").json["runs"] as? [[String: Any]]
        #expect(ranOnly?.map { $0["identifier"] as? String } == ["a"], "\(String(describing: ranOnly))")
        #expect(try await call("GET", "/v1/task-runs?neverRan=maybe").status == 422)
        let metrics = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"])
        #expect(metrics.output.contains(#"silentpush_task_outcomes_total{outcome="completed"} 1"#), "\(metrics.output)")
        #expect(metrics.output.contains(#"silentpush_task_outcomes_total{outcome="cancelled"} 1"#))
        #expect(metrics.output.contains(#"silentpush_task_outcomes_total{outcome="replaced"} 1"#))
        #expect(metrics.output.contains("silentpush_task_runs_started_total 1"))
        // Every family says what it counts.
        let lines = metrics.output.split(separator: "\n")
        let families = lines.filter { $0.hasPrefix("# TYPE silentpush_") }.map { $0.split(separator: " ")[2] }
        let helped = Set(lines.filter { $0.hasPrefix("# HELP silentpush_") }.map { $0.split(separator: " ")[2] })
        #expect(!families.isEmpty && families.allSatisfy(helped.contains), "no help: \(families.filter { !helped.contains($0) })")
    }
}
