import Foundation
import SilentPushTestSupport
import Testing

/// Fault rules through the admin API and the config file of a `silentpushd` process, and
/// `docs/faults.md`'s retry loop with `pushsend`, run as written there.
@Suite struct FaultInjectionLiveTests {
    @Test func theRetryLoopOfTheDocsGetsThroughOnTheThirdAttempt() async throws {
        let script = try #require(try Repository.blocks("sh", in: "docs/faults.md", after: "## Worked example").first)
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start()
        defer { process.signal(SIGKILL) }
        let path = BuiltProducts.directory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try await PeerProcess.run(
            "bash", ["-euo", "pipefail", "-c", "cd '\(Repository.root)'\n" + script],
            environment: ["ADMIN": "http://127.0.0.1:\(admin)", "URL": "http://127.0.0.1:\(h2c)", "PATH": path], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.errorOutput)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result.output)")
        guard lines.count == 5 else { return }
        #expect(lines[0].contains(#""action":{"reason":"ServiceUnavailable"}"#), "\(lines[0])")
        #expect(lines[1] == "503 ServiceUnavailable 00000000-0000-4000-8000-00000000f001")
        #expect(lines[2] == "503 ServiceUnavailable 00000000-0000-4000-8000-00000000f001")
        #expect(lines[3].hasPrefix("200 "), "\(lines[3])")
        #expect(lines[4].contains(#""count":0"#) && lines[4].contains(#""applied":2"#), "\(lines[4])")
        let push = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/00000000-0000-4000-8000-00000000f001")
        #expect(push.json["fate"] as? String == "delivered")  // the latest of the three
        let metrics = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"])
        #expect(metrics.output.contains(#"silentpush_faults_injected_total{action="reason"} 2"#), "\(metrics.output)")
    }

    @Test func rulesComeFromTheConfigFileAndBadOnesAreNamed() async throws {
        let config = #"{"faults": [{"match": {"topic": "com.example.app"}, "action": {"reason": "InternalServerError"}}]}"#
        let path = Scratch.directory.appendingPathComponent("faults-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path])
        defer { process.signal(SIGKILL) }
        let listed = try #require(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/faults").json["faults"] as? [[String: Any]])
        #expect(listed.count == 1 && (listed.first?["action"] as? [String: Any])?["reason"] as? String == "InternalServerError")
        for (body, field) in [
            (#"{"action": {"reason": "Sometimes"}}"#, "action.reason"), (#"{"fraction": 2, "action": {"reset": true}}"#, "fraction"),
            (#"{"action": {"delayMs": 600000}}"#, "action.delayMs"), (#"{"match": {"device": "xyz"}, "action": {"reset": true}}"#, "match.device"),
            (#"{"count": 1}"#, "action"), (#"{"action": {"reset": true}, "weather": "rain"}"#, "weather"),
            // An unknown field is named as unknown whatever its value.
            (#"{"match": {"devcie": 5}, "action": {"reset": true}}"#, "unknown field 'match.devcie'"),
        ] {
            let answer = try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/faults", body: body)
            #expect(answer.status == 422 && (answer.json["error"] as? String)?.contains(field) == true, "\(body): \(answer.json)")
        }
        let id = try #require(listed.first?["id"] as? Int)
        // An id left empty (`/v1/faults/$ID` with no ID) is not the whole list's delete.
        for empty in ["/v1/faults/", "/v1/faults//", "//v1/faults"] {
            let answer = try await SilentPushdDeviceTests.admin(admin, "DELETE", empty, body: "{}")
            #expect(answer.status == 404 && (answer.json["detail"] as? String)?.contains("empty segment") == true, "\(empty): \(answer.json)")
        }
        #expect((try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/faults").json["faults"] as? [Any])?.count == 1)
        #expect(try await SilentPushdDeviceTests.admin(admin, "DELETE", "/v1/faults/\(id)", body: "{}").status == 200)
        #expect(try await SilentPushdDeviceTests.admin(admin, "DELETE", "/v1/faults/\(id)", body: "{}").status == 404)
    }

    /// APNs takes a device token in either case, so a rule's device matches it in either case
    /// (a provider that writes tokens with `%02X` is faulted too); removing one rule answers
    /// how many went, as removing all does.
    @Test func aRuleMatchesItsDeviceInEitherCaseAndItsRemovalIsACount() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start()
        defer { process.signal(SIGKILL) }
        let upper = "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789"
        // A rule before it, so that its id is not the 1 its removal answers.
        _ = try await SilentPushdDeviceTests.admin(
            admin, "POST", "/v1/faults", body: #"{"match": {"topic": "com.example.other"}, "action": {"reset": true}}"#)
        let rule = try await SilentPushdDeviceTests.admin(
            admin, "POST", "/v1/faults", body: #"{"match": {"device": "\#(upper)"}, "count": 2, "action": {"reason": "ServiceUnavailable"}}"#)
        let id = try #require(rule.json["id"] as? Int, "\(rule.json)")
        for (token, answer) in [(upper, "503 ServiceUnavailable"), (upper.lowercased(), "503 ServiceUnavailable"), (upper, "200 ")] {
            let sent = try await PeerProcess.run(
                BuiltProducts.path(of: "pushsend") ?? "pushsend",
                ["--url", "http://127.0.0.1:\(h2c)", "--device", token, Repository.root + "/payloads/background.json"], timeout: .seconds(30))
            #expect(sent.output.hasPrefix(answer), "\(token): \(sent.output)\(sent.errorOutput)")
        }
        let removed = try await SilentPushdDeviceTests.admin(admin, "DELETE", "/v1/faults/\(id)", body: "{}")
        #expect(id != 1 && removed.status == 200 && removed.json["removed"] as? Int == 1, "\(id): \(removed.json)")
    }
}
