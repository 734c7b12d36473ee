import Foundation
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Synchronization
import Testing

/// The device side of the `silentpushd` process, driven as users drive it: curl pushes, the
/// admin API over HTTP/1.1 (curl), signals, and the SQLite file it leaves behind.
@Suite(.serialized) struct SilentPushdDeviceTests {
    /// An admin API call with curl: the status and the JSON answered.
    static func admin(_ port: Int, _ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]) {
        var arguments = ["-sS", "-X", method, "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"]
        if let body { arguments += ["-H", "content-type: application/json", "--data-binary", body] }
        let result = try await PeerProcess.run("curl", arguments, timeout: .seconds(60))
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let text = lines.dropLast().joined(separator: "\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (status, json)
    }

    static func apnsID(_ n: Int) -> String {
        let digits = String(n)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    static func milliseconds(_ iso: Any?) throws -> Int64 {
        let text = try #require(iso as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Int64((try #require(formatter.date(from: text))).timeIntervalSince1970 * 1000)
    }

    @Test func theExampleOfSpecSection4WithCurlAndTheAdminAPI() async throws {
        let (process, tls, _, admin) = try await SilentPushdProcessTests.start(["--clock", "manual", "--min-interval", "15m"])
        defer { process.signal(SIGKILL) }
        let jwt = try DevProviderToken.make()
        for minute in stride(from: 0, through: 91, by: 7) {
            if minute > 0 {
                let advanced = try await Self.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 420}"#)
                #expect(advanced.status == 200)
            }
            let curl = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-o", "/dev/null", "-w", "%{http_code}",
                    "-H", "apns-id: \(Self.apnsID(minute))", "-d", #"{"aps":{"content-available":1}}"#,
                    "https://localhost:\(tls)\(SamplePush.path)",
                ] + SamplePush.headerArguments(jwt: jwt))
            #expect(curl.output == "200", "\(curl.errorOutput)")
        }
        let listed = try await Self.admin(admin, "GET", "/v1/wakes?device=\(SamplePush.deviceToken)&topic=\(SamplePush.topic)")
        let wakes = try #require(listed.json["wakes"] as? [[String: Any]]).reversed()
        let start = try Self.milliseconds(try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(0))").json["receivedAt"])
        #expect(try wakes.map { (try Self.milliseconds($0["startedAt"]) - start) / 60_000 } == [0, 15, 30, 45, 60, 75, 90])
        #expect(wakes.map { $0["apnsId"] as? String } == [0, 14, 28, 42, 56, 70, 84].map(Self.apnsID))
        #expect(wakes.dropFirst().map { $0["coalesced"] as? [String] } == [7, 21, 35, 49, 63, 77].map { [Self.apnsID($0)] })
        for (coalesced, wake) in zip([7, 21, 35, 49, 63, 77], wakes.dropFirst()) {
            let fate = try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(coalesced))").json
            #expect(fate["fate"] as? String == "coalesced")
            #expect(fate["wakeId"] as? Int == wake["id"] as? Int)
            #expect((fate["why"] as? [String: Any])?["rule"] as? String == "replaced")
        }
        let waiting = try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(91))").json
        #expect(waiting["fate"] as? String == "pending")
        // Why it waits, with the numbers: the wake at minute 90, 15 minutes, until minute 105.
        let why = try #require(waiting["why"] as? [String: Any])
        #expect(why["rule"] as? String == "minimumInterval")
        #expect(try (Self.milliseconds(why["until"]) - start) / 60_000 == 105)
        #expect((why["text"] as? String)?.hasPrefix("waiting: next wake at ") == true, "\(why)")
        #expect((why["text"] as? String)?.contains("(15 min after the wake at ") == true, "\(why)")
        #expect(try await Self.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 780}"#).status == 200)  // minute 104
        let stillWaiting = try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(91))").json
        #expect(stillWaiting["fate"] as? String == "pending")
        #expect((stillWaiting["why"] as? [String: Any])?["rule"] as? String == "minimumInterval")
        #expect(try await Self.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 60}"#).status == 200)  // minute 105
        let delivered = try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(91))").json
        #expect(delivered["fate"] as? String == "delivered")
        #expect((delivered["why"] as? [String: Any])?["rule"] as? String == "woke")
        let last = try #require((try await Self.admin(admin, "GET", "/v1/wakes").json["wakes"] as? [[String: Any]])?.first)
        #expect(last["id"] as? Int == delivered["wakeId"] as? Int)
        #expect((try Self.milliseconds(last["startedAt"]) - start) / 60_000 == 105)
    }

    /// A push that survived a restart is pending, delivered or coalesced, and its `why` is
    /// the rule that goes with that fate.
    static func fateAndReasonAgree(_ push: [String: Any]) -> Bool {
        guard let rule = (push["why"] as? [String: Any])?["rule"] as? String else { return false }
        switch push["fate"] as? String {
        case "pending": return WaitRule(rawValue: rule) != nil
        case "delivered": return rule == "woke"
        case "coalesced": return rule == "replaced"
        default: return false
        }
    }

    @Test(arguments: [("ios", 1), ("debugger", 3), ("strict", 1)])
    func theProfileDecidesHowOftenTheAppWakes(profile: String, wakes: Int) async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual", "--profile", profile])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        for n in 1...3 { #expect(try await client.push(apnsID: Self.apnsID(n)).status == 200) }
        await client.close()
        let listed = try await Self.admin(admin, "GET", "/v1/wakes").json["wakes"] as? [[String: Any]] ?? []
        #expect(listed.count == wakes, "\(profile): \(listed)")
        let last = try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(3))").json
        let rule = (last["why"] as? [String: Any])?["rule"] as? String
        #expect(rule == (wakes == 3 ? "woke" : "minimumInterval"), "\(profile): \(last)")
    }

    @Test func badAdminRequestsAreRefusedAndChangeNothing() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start()  // system clock
        defer { process.signal(SIGKILL) }
        let device = "/v1/devices/\(SamplePush.deviceToken)"
        let before = try await Self.admin(admin, "GET", device)
        #expect(before.status == 200 && before.json["backgroundRefresh"] as? Bool == true)
        for (body, status, message) in [
            ("{not json", 400, "not JSON"),
            ("[1,2]", 422, "must be a JSON object"),
            (#"{"forceQuit": "yes"}"#, 422, "forceQuit must be true or false"),
            (#"{"lowPowerMode": 1}"#, 422, "lowPowerMode must be true or false"),
            (#"{"dailyBudget": -1}"#, 422, "dailyBudget must be a whole number"),
            (#"{"dailyBudget": 2.5}"#, 422, "dailyBudget must be a whole number"),
            (#"{"hourlyBudget": 2}"#, 422, "hourlyBudget is now dailyBudget"),
            (#"{"batteryLevel": 101}"#, 422, "batteryLevel must be a whole number from 0 to 100"),
            (#"{"thermalState": "toasty"}"#, 422, "thermalState must be nominal, fair, serious or critical"),
            (#"{"charging": "yes"}"#, 422, "charging must be true or false"),
            (#"{"network": "wifi"}"#, 422, "network must be online or offline"),
            (#"{"backgroundRefresh": false, "colour": "red"}"#, 422, "unknown field 'colour'"),
        ] {
            let answer = try await Self.admin(admin, "PATCH", device, body: body)
            #expect(answer.status == status, "\(body)")
            #expect((answer.json["error"] as? String)?.contains(message) == true, "\(body): \(answer.json)")
        }
        let after = try await Self.admin(admin, "GET", device)
        #expect(NSDictionary(dictionary: after.json) == NSDictionary(dictionary: before.json))
        #expect(try await Self.admin(admin, "PATCH", "/v1/devices/xyz", body: "{}").status == 422)
        let forecast = try await Self.admin(admin, "GET", "\(device)/apps/\(SamplePush.topic)/forecast?priority=10")
        #expect(forecast.status == 200 && forecast.json["wakeAt"] as? String != nil, "\(forecast.json)")
        #expect((forecast.json["why"] as? [String: Any])?["rule"] as? String == "woke")
        #expect(try await Self.admin(admin, "GET", "\(device)/apps/\(SamplePush.topic)/forecast?priority=7").status == 422)
        #expect(try await Self.admin(admin, "GET", "/v1/devices/xyz/apps/\(SamplePush.topic)/forecast").status == 422)
        let rebooted = try await Self.admin(admin, "POST", "\(device)/reboot", body: "{}")
        #expect(rebooted.status == 200 && rebooted.json["warmUpUntil"] as? String != nil, "\(rebooted.json)")
        #expect(try await Self.admin(admin, "POST", "/v1/devices/xyz/reboot", body: "{}").status == 422)
        let app = "\(device)/apps/\(SamplePush.topic)"
        #expect(try await Self.admin(admin, "GET", app).json["lastOpenedAt"] is NSNull)
        let opened = try await Self.admin(admin, "PATCH", app, body: #"{"lastOpenedAt": "2026-01-02T03:04:05Z"}"#)
        #expect(opened.status == 200 && opened.json["lastOpenedAt"] as? String == "2026-01-02T03:04:05.000Z", "\(opened.json)")
        #expect(try await Self.admin(admin, "PATCH", app, body: #"{"opened": true}"#).json["lastOpenedAt"] as? String != nil)
        for body in [#"{"lastOpenedAt": "yesterday"}"#, #"{"opened": "yes"}"#, "{}"] {
            let answer = try await Self.admin(admin, "PATCH", app, body: body)
            #expect(answer.status == 422 && (answer.json["error"] as? String)?.contains("lastOpenedAt") == true, "\(body): \(answer.json)")
        }

        let advance = try await Self.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 60}"#)
        #expect(advance.status == 409)
        #expect((advance.json["error"] as? String)?.contains("--clock manual") == true)
        #expect(try await Self.admin(admin, "GET", "/v1/pushes/\(Self.apnsID(404))").status == 404)
        #expect(try await Self.admin(admin, "GET", "/v1/pushes?limit=0").status == 422)
        #expect(try await Self.admin(admin, "GET", "/healthz").json["status"] as? String == "ok")

        let changed = try await Self.admin(
            admin, "PATCH", device,
            body: #"{"lowPowerMode": true, "dailyBudget": 4, "batteryLevel": 15, "thermalState": "fair", "unregistered": true}"#)
        #expect(changed.status == 200)
        #expect(changed.json["lowPowerMode"] as? Bool == true && changed.json["dailyBudget"] as? Int == 4)
        #expect(changed.json["batteryLevel"] as? Int == 15 && changed.json["thermalState"] as? String == "fair")
        #expect(changed.json["charging"] as? Bool == false && changed.json["debuggerAttached"] as? Bool == false)
        #expect(changed.json["network"] as? String == "online")
        #expect(changed.json["unregistered"] as? Bool == true)
    }

    /// Streams pushes from 16 concurrent streams over one connection (to 40 apps) until
    /// `enough` were answered 200, then runs `interrupt`; returns the apns-ids answered 200.
    static func streamPushes(h2c: Int, enough: Int, total: Int = .max, interrupt: @escaping @Sendable () -> Void) async throws -> [String] {
        let client = try await TestPushClient.connect(port: h2c)
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    while true {
                        let n = tally.sent.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard n < total else { return }
                        let token = String(format: "%064x", n % 40 + 1)
                        let id = UUID().uuidString.lowercased()
                        guard let answer = try? await client.push(to: token, apnsID: id), answer.status == 200 else { return }
                        let count = tally.accepted.withLock { accepted in
                            accepted.append(id)
                            return accepted.count
                        }
                        if count == enough, !tally.interrupted.exchange(true, ordering: .relaxed) { interrupt() }
                    }
                }
            }
        }
        await client.close()
        return tally.accepted.withLock { $0 }
    }

    final class Tally: Sendable {
        let accepted = Mutex<[String]>([])
        let sent = Atomic<Int>(0)
        let interrupted = Atomic<Bool>(false)
    }

    static func storePath() -> String {
        Scratch.directory.appendingPathComponent("silentpushd-\(UUID().uuidString)/store.sqlite").path
    }

    @Test func afterKillNineEveryPushAnswered200HasItsFate() async throws {
        let path = Self.storePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let (process, _, h2c, _) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: path)
        let accepted = try await Self.streamPushes(h2c: h2c, enough: 2_000) { process.signal(SIGKILL) }
        let result = await process.wait(timeout: .seconds(10))
        #expect(result.status != 0)
        #expect(accepted.count >= 2_000)

        // The file as the killed process left it, then a restart on it (once this process
        // has closed it: one process per store).
        do {
            let store = try await PushStore.open(.file(path))
            var missing: [String] = []
            for id in accepted where try await store.push(apnsID: id) == nil { missing.append(id) }
            #expect(missing.isEmpty, "\(missing.count) of \(accepted.count) pushes answered 200 have no fate")
        }
        let (restarted, _, _, admin) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: path)
        defer { restarted.signal(SIGKILL) }
        for id in accepted.suffix(20) {
            let fate = try await Self.admin(admin, "GET", "/v1/pushes/\(id)")
            #expect(fate.status == 200)
            #expect(Self.fateAndReasonAgree(fate.json), "\(fate.json)")
        }
    }

    /// A wake that a `kill -9` left running is ended `interrupted` by the restart, in its
    /// first step: the new process's `/metrics` counts it (a failure), as `/v1/stats` does.
    @Test func aWakeAKillLeftRunningIsInTheRestartsMetrics() async throws {
        let path = Self.storePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--fetch-exec", "sleep 30"], store: path)
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push().status == 200)
        await client.close()
        #expect(try await HardeningLiveTests.metric(admin, "silentpush_wakes_started_total") == 1)
        process.signal(SIGKILL)
        _ = await process.wait(timeout: .seconds(10))

        let (restarted, _, _, again) = try await SilentPushdProcessTests.start([], store: path)
        defer { restarted.signal(SIGKILL) }
        #expect(try await HardeningLiveTests.metric(again, #"silentpush_fetch_results_total{result="failed"}"#) == 1)
        let stats = try await Self.admin(again, "GET", "/v1/stats")
        #expect((stats.json["wakes"] as? [String: Any])?["failed"] as? Int == 1, "\(stats.json)")
    }

    /// During SIGTERM's drain the admin API still answers reads, and refuses a change of the
    /// device 503, changing nothing: a reboot would kill the wake the drain lets end, and a
    /// state written now would not be what the device did.
    @Test func aDeviceChangeDuringTheDrainIs503AndChangesNothing() async throws {
        let path = Self.storePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(
            ["--fetch-exec", "cat >/dev/null; sleep 3; echo newData", "--shutdown-grace", "30s"], store: path)
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push().status == 200)
        await client.close()
        #expect(try await HardeningLiveTests.metric(admin, "silentpush_wakes_started_total") == 1)
        process.signal(SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        let device = "/v1/devices/\(SamplePush.deviceToken)"
        let patched = try await Self.admin(admin, "PATCH", device, body: #"{"lowPowerMode":true}"#)
        #expect(patched.status == 503 && (patched.json["detail"] as? String)?.contains("shutting down") == true, "\(patched.json)")
        let rebooted = try await Self.admin(admin, "POST", device + "/reboot", body: "{}")
        #expect(rebooted.status == 503, "\(rebooted.json)")
        let read = try await Self.admin(admin, "GET", device)
        #expect(read.status == 200 && read.json["lowPowerMode"] as? Bool == false, "\(read.json)")
        let stopped = await process.wait(timeout: .seconds(30))
        #expect(stopped.status == 0 && !stopped.timedOut, "\(stopped.errorOutput)")

        let (restarted, _, _, again) = try await SilentPushdProcessTests.start([], store: path)
        defer { restarted.signal(SIGKILL) }
        let wakes = try await Self.admin(again, "GET", "/v1/wakes").json["wakes"] as? [[String: Any]] ?? []
        #expect(wakes.map { $0["result"] as? String } == ["newData"], "the drain let the wake end: \(wakes)")
        #expect(try await Self.admin(again, "GET", device).json["lowPowerMode"] as? Bool == false)
    }

    @Test func afterSigtermEveryPushAnswered200HasItsFateAndTheExitCodeIsZero() async throws {
        let path = Self.storePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let (process, _, h2c, _) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: path)
        // A 10,000-push run, SIGTERM half-way through.
        let accepted = try await Self.streamPushes(h2c: h2c, enough: 5_000, total: 10_000) { process.signal(SIGTERM) }
        let result = await process.wait(timeout: .seconds(30))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.timedOut)
        #expect(accepted.count >= 5_000 && accepted.count < 10_000)
        do {
            let store = try await PushStore.open(.file(path))
            var missing = 0
            for id in accepted where try await store.push(apnsID: id) == nil { missing += 1 }
            #expect(missing == 0, "\(missing) of \(accepted.count) pushes answered 200 have no fate")
            #expect(try await store.unfinishedWakes().isEmpty)
        }
        let (restarted, _, _, admin) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: path)
        defer { restarted.signal(SIGKILL) }
        for id in accepted.suffix(20) {
            let fate = try await Self.admin(admin, "GET", "/v1/pushes/\(id)")
            #expect(Self.fateAndReasonAgree(fate.json), "\(fate.json)")
        }
    }
}

/// `--fetch-exec` in the `silentpushd` process: descriptors and children counted from outside.
@Suite struct SilentPushdExecTests {
    /// What the open pipes and files point at: what a wake could leak (an exec'd command's
    /// pipes, a file). Not counted: sockets, which come and go with the test's own admin and
    /// HTTP/2 connections (keep-alive); the event machinery (`anon_inode:` eventfd, timerfd,
    /// epoll), which the runtimes create lazily the first time a clock or thread needs one
    /// (one more appeared once during the burst); and the store's SQLite files, whose reader
    /// pool opens another connection whenever reads overlap, and keeps it.
    static func descriptors(of pid: Int32) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return entries.compactMap { entry -> String? in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)")) ?? ""
            let storeFile = [".sqlite", ".sqlite-wal", ".sqlite-shm"].contains { target.hasSuffix($0) }
            return target.hasPrefix("pipe:") || (target.hasPrefix("/") && !storeFile) ? target : nil
        }.sorted()
    }

    static func children(of pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").map(String.init)
        }
    }

    static let warmUpToken = String(format: "%064x", 0)

    /// Waits until `count` wakes (besides the warm-up's) have a result; returns those results.
    static func results(admin: Int, count: Int) async throws -> [String] {
        for _ in 0..<600 {
            let listed = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes?limit=1000").json["wakes"] as? [[String: Any]] ?? []
            let results = listed.filter { count == 0 || $0["deviceToken"] as? String != warmUpToken }.compactMap { $0["result"] as? String }
            if results.count >= max(count, 1) { return results }
            try await Task.sleep(for: .milliseconds(100))
        }
        return []
    }

    @Test func aThousandWakesLeaveNoDescriptorAndNoProcessBehind() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--profile", "fast", "--fetch-exec", "echo newData"])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push(to: Self.warmUpToken).status == 200)  // threads and connections warmed up
        #expect(try await Self.results(admin: admin, count: 0) == ["newData"])
        let before = Self.descriptors(of: process.pid)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for app in 1...1000 {
                group.addTask { try await client.push(to: String(format: "%064x", app)).status }
            }
            for try await status in group { #expect(status == 200) }
        }
        let results = try await Self.results(admin: admin, count: 1000)
        #expect(results.count == 1000)
        #expect(results.allSatisfy { $0 == "newData" })
        #expect(Self.children(of: process.pid).isEmpty)
        let metrics = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output
        #expect(metrics.contains(#"silentpush_fetch_results_total{result="newData"} 1001"#), "\(metrics)")
        #expect(metrics.contains("silentpush_fetch_duration_seconds_count 1001"), "\(metrics)")
        let after = Self.descriptors(of: process.pid)
        #expect(after.count <= before.count, "descriptors: \(before) before, \(after) after")
        await client.close()
    }

    /// Runs a refresh task whose exec handler is `perl -e CODE; true` (the `; true` keeps the
    /// shell from exec'ing perl: perl is its child, and its orphan once the group's SIGTERM
    /// ends the shell) on the manual clock with a task grace of 1 s, simulates its expiration,
    /// and expects the run to end `outcome` and the command to be gone, while the receiver
    /// still runs (its end would kill the group anyway). `code` writes its pid to `$PIDFILE`.
    static func expireRunOfCommand(perl code: String, endsAs outcome: String) async throws {
        let directory = try Scratch.newDirectory("orphan")
        let config = directory + "/config.json"
        let app = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["r"], "backgroundModes": ["fetch"]}}}"#
        try Data(app.utf8).write(to: URL(fileURLWithPath: config))
        let pidFile = directory + "/perl"
        let handler = "perl -e '\(code.replacingOccurrences(of: "$PIDFILE", with: pidFile))'; true"
        let (process, _, _, admin) = try await SilentPushdProcessTests.start([
            "--config", config, "--clock", "manual", "--task-expiration-grace", "1s", "--fetch-exec", handler,
        ])
        defer { process.signal(SIGKILL) }
        let tasks = "/v1/devices/" + String(repeating: "ab", count: 32) + "/apps/com.example.app/tasks"
        // A refresh with nothing to hold it runs at once.
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", tasks, body: #"{"identifier": "r", "kind": "refresh"}"#).status == 201)
        var pid: Int32?
        for _ in 0..<200 where pid == nil {
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            try await Task.sleep(for: .milliseconds(20))
        }
        let command = try #require(pid, "the handler's command did not start")
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", tasks + "/r/simulate-expiration", body: "{}").status == 200)
        var ended: String?
        for _ in 0..<200 {
            let runs = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/task-runs").json["runs"] as? [[String: Any]] ?? []
            ended = runs.first?["outcome"] as? String
            if let ended, ended != "running" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(ended == outcome, "the run ended \(ended ?? "never") within its 1 s grace")
        #expect(try await AppKillLiveTests.gone(command), "process \(command) outlived its run")
    }

    /// A command that outlives its shell on the SIGTERM (the shell died of it; the command,
    /// its orphan, ends on it a moment later) has ended when it exits, not when the machine's
    /// init reaps it (a second later here, or never in some containers): its run has expired,
    /// within a grace of 1 s.
    @Test func aCommandThatOutlivesItsShellOnTheSIGTERMHasEndedWhenItExitsAndItsRunExpired() async throws {
        try await Self.expireRunOfCommand(
            perl: #"$SIG{TERM} = sub { exit 0 }; open(my $f, ">", "$PIDFILE"); print $f "$$\n"; close $f; sleep 60"#, endsAs: "expired")
    }

    /// A command that ignores the SIGTERM its shell died of still runs, whatever its process
    /// name (here bytes that are not UTF-8, a parenthesis and spaces, which procfs shows as
    /// they are; perl sets the name before it writes its pid): its run is terminated at the
    /// grace's end, and it is killed then. Its child, a zombie it never reaps, is in the group
    /// too: a scan that missed the command would see only that and call the handler ended.
    @Test func aCommandThatIgnoresTheSIGTERMItsShellDiedOfIsTerminatedWhateverItsName() async throws {
        try await Self.expireRunOfCommand(
            perl:
                #"use POSIX; POSIX::_exit(0) unless fork; $0 = "\xc3\xa9\xff) a b"; $SIG{TERM} = "IGNORE"; open(my $f, ">", "$PIDFILE"); print $f "$$\n"; close $f; sleep 60"#,
            endsAs: "terminated")
    }

    /// A handler does not outlive its receiver, however the receiver ends: after a `kill -9`
    /// the handler's group is killed at once, with the child it started. Its own waits (a
    /// first wake's) are for its own children only.
    @Test func aHandlerDoesNotOutliveAReceiverKilledWithSIGKILL() async throws {
        let directory = try Scratch.newDirectory("lifeline")
        // The first wake's program, exec'd in the shell's place, waits for every child it has:
        // the watcher is the receiver's child, not one of them.
        let handler = [
            "cat >/dev/null", "sleep 0.1 & wait",
            #"[ -e \#(directory)/hold ] || exec perl -e 'fork or exit; 1 while wait != -1; print "newData\n"'"#,
            "echo $$ > \(directory)/pid; sleep 300 & echo $! > \(directory)/child; wait",
        ].joined(separator: "; ")
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--profile", "fast", "--fetch-exec", handler])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push(to: Self.warmUpToken).status == 200)
        #expect(try await Self.results(admin: admin, count: 0) == ["newData"])
        #expect(FileManager.default.createFile(atPath: directory + "/hold", contents: nil))
        #expect(try await client.push(to: String(format: "%064x", 1)).status == 200)
        var pids: [Int32] = []
        for _ in 0..<200 where pids.count < 2 {
            pids = ["pid", "child"].compactMap { name in
                (try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8)).flatMap {
                    Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(pids.count == 2, "the second wake's handler did not start")
        await client.close()
        process.signal(SIGKILL)
        _ = await process.wait(timeout: .seconds(10))
        for pid in pids { #expect(try await AppKillLiveTests.gone(pid), "process \(pid) outlived the receiver") }
    }
}

/// `/metrics` against `/v1/stats` after 10,000 accepted pushes and 400 rejected.
@Suite struct SilentPushdMetricsTests {
    /// `name{labels} value` lines of a Prometheus text page.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test func afterTenThousandPushesTheMetricsAndTheStoreAgree() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual", "--profile", "fast"])
        defer { process.signal(SIGKILL) }
        let devices = Scratch.directory.appendingPathComponent("devices-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: devices) }
        let tokens = (1...50).map { String(format: "%064x", $0) } + ["abcd", "not-hex"]
        try Data(tokens.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: devices))
        let pushsend = try #require(BuiltProducts.path(of: "pushsend"))
        let sent = try await PeerProcess.run(
            pushsend,
            [
                "--url", "http://127.0.0.1:\(h2c)", "--devices", devices, "--count", "200", "--concurrency", "100", "--quiet",
                Repository.root + "/payloads/background.json",
            ], timeout: .seconds(120))
        #expect(sent.status == 1)  // the two bad tokens
        #expect(sent.errorOutput.contains("sent 10400, accepted 10000, rejected 400 (400 BadDeviceToken: 400)"), "\(sent.errorOutput)")
        // Let every waiting push wake its app, and every fetch end.
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 5}"#).status == 200)
        var stats: [String: Any] = [:]
        for _ in 0..<500 {
            stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats").json
            let wakes = stats["wakes"] as? [String: Int] ?? [:]
            if wakes["running"] == nil, wakes.values.reduce(0, +) == 100 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let pushes = try #require(stats["pushes"] as? [String: Int])
        let wakes = try #require(stats["wakes"] as? [String: Int])
        #expect(pushes == ["delivered": 100, "coalesced": 9_900, "rejected": 400], "\(stats)")
        #expect(wakes == ["noData": 100], "\(stats)")

        let metrics = Self.samples(try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output)
        #expect(metrics["silentpush_pushes_accepted_total"] == 10_000)
        #expect(
            metrics[#"silentpush_pushes_rejected_total{reason="BadDeviceToken"}"#]
                == Double((stats["rejected"] as? [String: Int])?["BadDeviceToken"] ?? -1))
        #expect(metrics[#"silentpush_push_fates_total{fate="delivered"}"#] == Double(pushes["delivered"] ?? -1))
        #expect(metrics[#"silentpush_push_fates_total{fate="coalesced"}"#] == Double(pushes["coalesced"] ?? -1))
        #expect(metrics["silentpush_pending_slots"] == Double(pushes["pending"] ?? 0))
        #expect(metrics["silentpush_wakes_started_total"] == Double(wakes.values.reduce(0, +)))
        #expect(metrics[#"silentpush_fetch_results_total{result="noData"}"#] == Double(wakes["noData"] ?? -1))
        #expect(metrics["silentpush_fetch_duration_seconds_count"] == 100)
        #expect(metrics["silentpush_connections_open"] != nil && metrics["silentpush_streams_open"] == 0)
        #expect(!metrics.keys.contains { $0.contains("0000000000000000000000000000000000000000000000000000000000000001") })
    }

    /// A wake whose handler overruns its deadline is counted in the metrics by the step that
    /// records it, at the deadline: `/metrics` agrees with `/v1/stats` as the clock's move
    /// answers, before the handler has ended.
    @Test func aDeadlineOverrunIsInTheMetricsWhenTheMoveAnswers() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start([
            "--clock", "manual", "--deadline", "1s", "--fetch-exec", "trap '' TERM; sleep 20",
        ])
        defer { process.signal(SIGKILL) }
        let pushed = try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(SamplePush.deviceToken)", port: h2c, tls: false,
            headers: ["apns-topic: \(SamplePush.topic)", "apns-push-type: background", "apns-priority: 5"], body: #"{"aps":{"content-available":1}}"#)
        #expect(pushed.status == 200)
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 10}"#).status == 200)
        let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats").json
        #expect((stats["wakes"] as? [String: Int])?["deadlineExceeded"] == 1, "\(stats)")
        let metrics = Self.samples(try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output)
        #expect(metrics[#"silentpush_fetch_results_total{result="deadlineExceeded"}"#] == 1)
    }

    /// A Live Activity push applied is delivered in the metrics as in `/v1/stats`.
    @Test func liveActivityPushesAreCountedAsTheStatsCountThem() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let started = try await SilentPushdDeviceTests.admin(
            admin, "POST", "/v1/devices/\(SamplePush.deviceToken)/apps/com.example.app/activities", body: #"{"attributesType": "Match"}"#)
        let token = try #require(started.json["pushToken"] as? String, "\(started)")
        let client = try await TestPushClient.connect(port: h2c)
        let update = try await client.push(
            #"{"aps":{"timestamp":1,"event":"update","content-state":{"score":1}}}"#, to: token,
            topic: "com.example.app.push-type.liveactivity", priority: .high, pushType: .liveactivity)
        #expect(update.status == 200)
        await client.close()
        let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats").json
        #expect(stats["pushes"] as? [String: Int] == ["delivered": 1], "\(stats)")
        let metrics = Self.samples(try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output)
        #expect(metrics[#"silentpush_push_fates_total{fate="delivered"}"#] == 1)
    }

    /// Activities that began at one device instant list in the order they began (the newest
    /// last, as `limit` and `pushsend expect` read it); one asked for under a push type's
    /// topic is refused, naming the bundle id to use.
    @Test func activitiesOfOneInstantListInTheOrderTheyBegan() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let path = "/v1/devices/\(SamplePush.deviceToken)/apps/com.example.app/activities"
        let names = (1...8).map { "T\($0)" }
        for name in names {
            #expect(try await SilentPushdDeviceTests.admin(admin, "POST", path, body: #"{"attributesType": "\#(name)"}"#).status == 201)
        }
        let listed = try await SilentPushdDeviceTests.admin(admin, "GET", path).json["activities"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["attributesType"] as? String } == names, "\(listed)")
        let refused = try await SilentPushdDeviceTests.admin(
            admin, "POST", "/v1/devices/\(SamplePush.deviceToken)/apps/com.example.app.push-type.liveactivity/activities",
            body: #"{"attributesType": "T"}"#)
        #expect(refused.status == 422 && (refused.json["error"] as? String)?.contains("under the app's bundle id") == true, "\(refused)")
    }

    @Test func expiriesAndDropsAreCountedByReason() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push().status == 200)  // wakes the app
        #expect(try await client.push().status == 200)  // waits in the slot…
        #expect(try await client.push(expiration: 0).status == 200)  // …replaced by one that must go now: expires
        #expect(try await client.push(#"{"aps":{"alert":"hi"}}"#, pushType: .alert).status == 200)  // never wakes
        let patched = try await SilentPushdDeviceTests.admin(
            admin, "PATCH", "/v1/devices/\(SamplePush.deviceToken)", body: #"{"forceQuit": true}"#)
        #expect(patched.status == 200)
        #expect(try await client.push().status == 200)  // dropped: force-quit
        await client.close()
        let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats").json
        #expect(stats["pushes"] as? [String: Int] == ["delivered": 1, "expired": 2, "dropped": 2], "\(stats)")
        let metrics = Self.samples(try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output)
        #expect(metrics[#"silentpush_push_fates_total{fate="expired"}"#] == 2)  // the expired push and the one coalesced into its slot
        // Each says why: the newest by its own expiration, the one it replaced with it.
        let expired = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes?fate=expired").json["pushes"] as? [[String: Any]] ?? []
        let whys = expired.map { ($0["why"] as? [String: Any])?["text"] as? String ?? "" }
        #expect(
            whys == [
                "its apns-expiration passed before a wake could deliver it",
                "replaced in the app's slot by a newer push, and expired with it before a wake could deliver it",
            ], "\(expired)")
        #expect(metrics[#"silentpush_push_drops_total{reason="app force-quit"}"#] == 1)
        #expect(metrics[#"silentpush_push_drops_total{reason="no content-available: 1, so the app is not woken"}"#] == 1)
        #expect(metrics["silentpush_pending_slots"] == 0)
    }

    /// Pushes replaced in their slot before a restart, a chain of two, ride the wake of the
    /// push that replaced them after the restart, and are counted with that wake by the new
    /// process, as one never restarted counts them; so are those of a slot that expires or
    /// is dropped.
    @Test(arguments: ["wake", "expire", "drop"])
    func pushesReplacedBeforeARestartAreCountedWithTheirSlotAfterIt(ending: String) async throws {
        let path = SilentPushdDeviceTests.storePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        do {
            let (process, _, h2c, _) = try await SilentPushdProcessTests.start(["--clock", "manual"], store: path)
            let client = try await TestPushClient.connect(port: h2c)
            #expect(try await client.push().status == 200)  // wakes the app
            #expect(try await client.push().status == 200)  // waits in the slot…
            #expect(try await client.push().status == 200)  // …replaced by this one, and it…
            // …by this one (for "expire", one that expires 5 minutes on: after the restart,
            // the manual clock starting at the real time)
            let expiration = ending == "expire" ? Int64(Date().timeIntervalSince1970) + 300 : nil
            #expect(try await client.push(expiration: expiration).status == 200)
            await client.close()
            process.signal(SIGTERM)
            #expect(await process.wait(timeout: .seconds(30)).status == 0)
        }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"], store: path)
        defer { process.signal(SIGKILL) }
        if ending == "drop" {
            let patched = try await SilentPushdDeviceTests.admin(
                admin, "PATCH", "/v1/devices/\(SamplePush.deviceToken)", body: #"{"forceQuit": true}"#)
            #expect(patched.status == 200)
        }
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 900}"#).status == 200)
        let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats").json
        let metrics = Self.samples(try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output)
        switch ending {
        case "wake":
            #expect(stats["pushes"] as? [String: Int] == ["delivered": 2, "coalesced": 2], "\(stats)")
            #expect(metrics[#"silentpush_push_fates_total{fate="coalesced"}"#] == 2)
            #expect(metrics[#"silentpush_push_fates_total{fate="delivered"}"#] == 1)
        case "expire":
            #expect(stats["pushes"] as? [String: Int] == ["delivered": 1, "expired": 3], "\(stats)")
            #expect(metrics[#"silentpush_push_fates_total{fate="expired"}"#] == 3)
        default:
            #expect(stats["pushes"] as? [String: Int] == ["delivered": 1, "dropped": 3], "\(stats)")
            #expect(metrics[#"silentpush_push_drops_total{reason="app force-quit"}"#] == 3)
        }
    }
}
