import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The admin API's shape as a new user meets it: problem documents for errors and unknown
/// routes, the device list, and push filters with cursor paging.
@Suite struct AdminAPIShapeTests {
    static func curl(_ admin: Int, _ path: String) async throws -> (status: Int, type: String, body: [String: Any]) {
        let result = try await PeerProcess.run(
            "curl", ["-sS", "-w", "\n%{http_code} %{content_type}", "http://127.0.0.1:\(admin)\(path)"], timeout: .seconds(60))
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let last = (lines.last ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        let body = (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))) as? [String: Any] ?? [:]
        return (Int(last.first ?? "") ?? 0, last.count > 1 ? last[1] : "", body)
    }

    @Test func errorsAreProblemDocumentsAndUnknownRoutesSaySo() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start()
        defer { process.signal(SIGKILL) }
        let unknown = try await Self.curl(admin, "/v1/nothing")
        #expect(unknown.status == 404 && unknown.type == "application/problem+json", "\(unknown)")
        #expect(unknown.body["status"] as? Int == 404 && (unknown.body["detail"] as? String)?.contains("docs/admin-api.md") == true)
        let malformed = try await Self.curl(admin, "/v1/devices/not-a-token")
        #expect(malformed.status == 422 && malformed.type == "application/problem+json")
        #expect(malformed.body["title"] as? String == "Unprocessable Content" || malformed.body["title"] as? String == "Unprocessable Entity")
        #expect(try await Self.curl(admin, "/v1/pushes?fate=lost").status == 422)
        #expect(try await Self.curl(admin, "/v1/devices?state=sleepy").status == 422)
        // A body past the cap is a problem document too, not a bare 413.
        let body = Scratch.directory.appendingPathComponent("big-\(UUID().uuidString).json").path
        _ = FileManager.default.createFile(atPath: body, contents: Data(("{\"seconds\":1" + String(repeating: " ", count: 70_000) + "}").utf8))
        let large = try await PeerProcess.run(
            "curl",
            [
                "-sS", "-w", "\n%{http_code} %{content_type}", "-X", "POST", "-H", "content-type: application/json", "--data-binary", "@" + body,
                "http://127.0.0.1:\(admin)/v1/clock/advance",
            ])
        #expect(large.output.hasSuffix("413 application/problem+json"), "\(large.output)")
        #expect(large.output.contains("larger than the admin API takes (64 KB)"), "\(large.output)")
        // A body that is not JSON says where reading stopped.
        let notJSON = try await SilentPushdDeviceTests.admin(
            admin, "PATCH", "/v1/devices/\(String(repeating: "ab", count: 32))", body: #"{"batteryLevel": 1e309}"#)
        #expect(notJSON.status == 400 && notJSON.json["detail"] as? String == "the body is not JSON: reading stopped at byte 17", "\(notJSON.json)")
    }

    @Test func devicesAreListedAndPushesFilteredAndPaged() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        let other = String(repeating: "cd", count: 32)
        for n in 1...5 { #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200) }
        #expect(try await client.push(to: other, apnsID: SilentPushdDeviceTests.apnsID(6)).status == 200)
        #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(7), rawHeaders: ["apns-priority": "3"]).status == 400)
        await client.close()
        #expect(try await SilentPushdDeviceTests.admin(admin, "PATCH", "/v1/devices/\(other)", body: #"{"lowPowerMode": true}"#).status == 200)

        let devices = try #require(try await Self.curl(admin, "/v1/devices").body["devices"] as? [[String: Any]])
        #expect(Set(devices.compactMap { $0["deviceToken"] as? String }) == [SamplePush.deviceToken, other])
        let saving = try #require(try await Self.curl(admin, "/v1/devices?state=lowPowerMode").body["devices"] as? [[String: Any]])
        #expect(saving.map { $0["deviceToken"] as? String } == [other])
        let first = try await Self.curl(admin, "/v1/devices?limit=1")
        let cursor = try #require(first.body["next"] as? String)
        let second = try await Self.curl(admin, "/v1/devices?limit=1&cursor=\(cursor)")
        #expect((second.body["devices"] as? [[String: Any]])?.count == 1 && second.body["next"] is NSNull)
        // A cursor that is no device token is refused, not read as a place to start from.
        #expect(try await Self.curl(admin, "/v1/devices?cursor=abc").status == 422)

        // The first push woke the app; 2–4 were replaced by 5, which waits.
        let coalesced = try #require(try await Self.curl(admin, "/v1/pushes?fate=coalesced").body["pushes"] as? [[String: Any]])
        #expect(coalesced.compactMap { $0["apnsId"] as? String } == [4, 3, 2].map(SilentPushdDeviceTests.apnsID))
        let rejected = try #require(try await Self.curl(admin, "/v1/pushes?fate=rejected").body["pushes"] as? [[String: Any]])
        #expect(rejected.count == 1)
        var seen: [String] = []
        var next: String? = nil
        repeat {
            let page = try await Self.curl(admin, "/v1/pushes?device=\(SamplePush.deviceToken)&limit=2" + (next.map { "&cursor=\($0)" } ?? ""))
            seen += (page.body["pushes"] as? [[String: Any]] ?? []).compactMap { $0["apnsId"] as? String }
            next = page.body["next"] as? String
        } while next != nil && seen.count < 20
        #expect(seen == [7, 5, 4, 3, 2, 1].map(SilentPushdDeviceTests.apnsID))
        // A full page that ends the list says so: no `next` that leads to an empty page.
        let whole = try await Self.curl(admin, "/v1/pushes?device=\(SamplePush.deviceToken)&limit=6")
        #expect((whole.body["pushes"] as? [[String: Any]])?.count == 6 && whole.body["next"] is NSNull, "\(whole.body)")
        // The device's one wake (the first push's) is a full last page of wakes.
        let wake = try await Self.curl(admin, "/v1/wakes?device=\(SamplePush.deviceToken)&limit=1")
        #expect((wake.body["wakes"] as? [[String: Any]])?.count == 1 && wake.body["next"] is NSNull, "\(wake.body)")

        // Forget one device, then everything.
        #expect(try await SilentPushdDeviceTests.admin(admin, "DELETE", "/v1/devices/\(other)", body: "{}").status == 200)
        let left = try #require(try await Self.curl(admin, "/v1/devices").body["devices"] as? [[String: Any]])
        #expect(left.map { $0["deviceToken"] as? String } == [SamplePush.deviceToken])
        #expect(try await Self.curl(admin, "/v1/pushes/\(SilentPushdDeviceTests.apnsID(6))").status == 404)
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/reset", body: "{}").status == 200)
        #expect((try await Self.curl(admin, "/v1/pushes").body["pushes"] as? [[String: Any]])?.isEmpty == true)
        #expect((try await Self.curl(admin, "/v1/devices").body["devices"] as? [[String: Any]])?.isEmpty == true)
    }

    /// A cell a spreadsheet would read as a formula (a provider's collapse id here) is
    /// exported to CSV with a `'` before it; NDJSON keeps it as sent.
    @Test func aCSVCellAFormulaWouldStartIsNotOne() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start()
        defer { process.signal(SIGKILL) }
        let formula = #"=HYPERLINK("http://example.com","open")"#
        let sent = try await PeerProcess.run(
            BuiltProducts.path(of: "pushsend") ?? "pushsend",
            [
                "--url", "http://127.0.0.1:\(h2c)", "--device", String(repeating: "ab", count: 32), "--collapse-id", formula, "--quiet",
                Repository.root + "/payloads/background.json",
            ],
            timeout: .seconds(60))
        #expect(sent.status == 0, "\(sent.errorOutput)")
        let csv = try await PeerProcess.run("curl", ["-sS", "-H", "accept: text/csv", "http://127.0.0.1:\(admin)/v1/pushes"], timeout: .seconds(60))
        let row = try #require(csv.output.split(separator: "\n").dropFirst().first, "\(csv.output)")
        #expect(row.contains(#",""# + "'" + formula.replacingOccurrences(of: "\"", with: "\"\"") + #"","#), "\(row)")
        let ndjson = try await PeerProcess.run(
            "curl", ["-sS", "-H", "accept: application/x-ndjson", "http://127.0.0.1:\(admin)/v1/pushes"], timeout: .seconds(60))
        let push = try JSONSerialization.jsonObject(with: Data(ndjson.output.utf8)) as? [String: Any]
        #expect(push?["collapseId"] as? String == formula, "\(ndjson.output)")
    }

    @Test func pushesAndWakesExportAsNDJSONAndCSVPastOnePage() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--profile", "fast"])
        defer { process.signal(SIGKILL) }
        let devices = Scratch.directory.appendingPathComponent("export-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: devices) }
        try Data((1...2_500).map { String(format: "%064x", $0) }.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: devices))
        let sent = try await PeerProcess.run(
            BuiltProducts.path(of: "pushsend") ?? "pushsend",
            [
                "--url", "http://127.0.0.1:\(h2c)", "--devices", devices, "--concurrency", "100", "--quiet",
                Repository.root + "/payloads/background.json",
            ],
            timeout: .seconds(120))
        #expect(sent.status == 0, "\(sent.errorOutput)")
        func export(_ path: String, _ accept: String) async throws -> (type: String, lines: [Substring]) {
            let result = try await PeerProcess.run(
                "curl", ["-sS", "-H", "accept: \(accept)", "-D", "/dev/stderr", "http://127.0.0.1:\(admin)\(path)"], timeout: .seconds(120))
            let type = result.errorOutput.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("content-type:") } ?? ""
            return (String(type), result.output.split(separator: "\n"))
        }
        let ndjson = try await export("/v1/pushes", "application/x-ndjson")
        #expect(ndjson.type.contains("application/x-ndjson"))
        #expect(ndjson.lines.count == 2_500)
        let parsed = ndjson.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(parsed.count == 2_500 && Set(parsed.compactMap { $0["deviceToken"] as? String }).count == 2_500)
        let csv = try await export("/v1/pushes?fate=delivered", "text/csv")
        #expect(csv.type.contains("text/csv"))
        #expect(csv.lines.first == "apnsId,deviceToken,topic,pushType,priority,receivedAt,expiresAt,collapseId,fate,wakeId,reason,why")
        #expect(csv.lines.count == 2_501 && csv.lines.dropFirst().allSatisfy { $0.contains(",delivered,") })
        // Each wake's handler ends at once with noData (the default).
        var wakes: (type: String, lines: [Substring]) = ("", [])
        for _ in 0..<100 {
            wakes = try await export("/v1/wakes", "text/csv")
            if wakes.lines.count == 2_501 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(wakes.lines.first == "id,deviceToken,topic,apnsId,startedAt,deadline,finishedAt,result,reason,coalesced,kind")
        #expect(wakes.lines.count == 2_501)
        // A cursor starts the export after that record, as it starts a page; a limit, which an
        // export would not keep, is refused.
        let page = try #require(
            try await Self.curl(admin, "/v1/wakes?limit=1000").body["next"] as? String)
        #expect(try await export("/v1/wakes?cursor=\(page)", "text/csv").lines.count == 1_501)
        #expect(try await export("/v1/wakes?cursor=abc", "text/csv").lines.first?.contains("cursor must be") == true)
        #expect(try await export("/v1/pushes?limit=10", "application/x-ndjson").lines.first?.contains("leave out limit") == true)
        // Accept's weights choose: q=0 is not acceptable, and the heavier of two wins.
        let oneDevice = "/v1/pushes?device=\(try #require(parsed.first?["deviceToken"] as? String))"
        for (accept, type) in [
            ("text/csv;q=0, application/json", "application/json"), ("application/json;q=0.5, text/csv", "text/csv"),
            ("text/csv;q=0.2, application/x-ndjson;q=0.9", "application/x-ndjson"), ("*/*", "application/json"),
            ("text/csv; q=1.0, */*;q=0.1", "text/csv"), ("text/csv;q=zero, application/json", "application/json"),
        ] {
            let answer = try await export(oneDevice, accept)
            #expect(answer.type.contains(type), "\(accept): \(answer.type)")
        }

        // pushsend export wraps them: the same lines, to stdout or a file.
        let pushsend = BuiltProducts.path(of: "pushsend") ?? "pushsend"
        let adminURL = "http://127.0.0.1:\(admin)"
        let exported = try await PeerProcess.run(pushsend, ["export", "pushes", "--admin", adminURL], timeout: .seconds(120))
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.output.split(separator: "\n") == ndjson.lines)
        let file = devices + ".csv"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let toFile = try await PeerProcess.run(
            pushsend, ["export", "wakes", "--admin", adminURL, "--format", "csv", "--output", file], timeout: .seconds(120))
        #expect(toFile.status == 0 && toFile.output.isEmpty, "\(toFile.errorOutput)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") == wakes.lines)
        let one = try await PeerProcess.run(
            pushsend, ["export", "pushes", "--admin", adminURL, "--device", String(format: "%064x", 7), "--format", "csv"], timeout: .seconds(60))
        #expect(one.output.split(separator: "\n").count == 2 && one.output.contains(String(format: "%064x", 7)))
        // Through a symbolic link the file it names is replaced whole (no tail of a longer one
        // left), and the link stays.
        let link = devices + ".link.csv"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        defer { try? FileManager.default.removeItem(atPath: link) }
        let linked = try await PeerProcess.run(
            pushsend, ["export", "pushes", "--admin", adminURL, "--device", String(format: "%064x", 7), "--format", "csv", "--output", link],
            timeout: .seconds(60))
        #expect(linked.status == 0, "\(linked.errorOutput)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == one.output)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == file)
        _ = try await PeerProcess.run(
            pushsend, ["export", "wakes", "--admin", adminURL, "--format", "csv", "--output", file], timeout: .seconds(120))
        let refused = try await PeerProcess.run(pushsend, ["export", "pushes", "--admin", adminURL, "--fate", "lost"], timeout: .seconds(60))
        #expect(refused.status == 1 && refused.errorOutput.contains("the admin API answered 422: fate must be one of"), "\(refused.errorOutput)")
        let nobody = try await PeerProcess.run(
            pushsend, ["export", "wakes", "--admin", "http://127.0.0.1:1", "--output", file], timeout: .seconds(60))
        #expect(nobody.status == 2 && nobody.errorOutput.contains("cannot reach the admin API"), "\(nobody.errorOutput)")
        // The file the export before wrote is left as it was, and nothing beside it.
        #expect(try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") == wakes.lines)
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
        let wrong = try await PeerProcess.run(pushsend, ["export", "wakes", "--fate", "delivered"], timeout: .seconds(60))
        #expect(wrong.status == 2 && wrong.errorOutput.contains("--fate is for pushes"), "\(wrong.errorOutput)")
        // Wakes in a window of device time: all of them started before now, none after.
        let now = ISO8601DateFormatter().string(from: Date().addingTimeInterval(60))
        let before = try await PeerProcess.run(pushsend, ["export", "wakes", "--admin", adminURL, "--until", now], timeout: .seconds(120))
        #expect(before.status == 0 && before.output.split(separator: "\n").count == 2_500, "\(before.errorOutput)")
        let after = try await PeerProcess.run(pushsend, ["export", "wakes", "--admin", adminURL, "--from", now], timeout: .seconds(120))
        #expect(after.status == 0 && after.output.isEmpty, "\(after.errorOutput)")
        let later = try await Self.curl(admin, "/v1/wakes?from=\(now)")
        #expect(later.status == 200 && (later.body["wakes"] as? [Any])?.isEmpty == true, "\(later)")
        #expect(try await Self.curl(admin, "/v1/wakes?until=soon").status == 422)
    }
}
