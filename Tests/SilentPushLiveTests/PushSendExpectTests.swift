import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `pushsend expect` against a live receiver on a manual clock: it passes and fails with one
/// line and exit 0 or 1, moves the clock to where the push waits, and its JUnit report is read
/// back with a real XML parser (Python's xml.etree).
@Suite struct PushSendExpectTests {
    static func pushsend(_ arguments: [String]) async throws -> PeerResult {
        try await PeerProcess.run(try #require(BuiltProducts.path(of: "pushsend")), arguments, timeout: .seconds(30))
    }

    /// The report's shape as a parser sees it: root tag, counts, the case's name, its failure.
    static func parsed(_ path: String) async throws -> [String: String] {
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            suite = root.find('testsuite')
            case = suite.find('testcase')
            failure = case.find('failure')
            print(json.dumps({'root': root.tag, 'tests': suite.get('tests'), 'failures': suite.get('failures'),
                'name': case.get('name'), 'failure': failure.get('message') if failure is not None else '',
                'out': case.findtext('system-out')}))
            """
        let result = try await PeerProcess.run("python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.errorOutput)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: String])
    }

    @Test func aPushAndAWakeCountPassAndFailWithAJUnitReport() async throws {
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { receiver.signal(SIGKILL) }
        let first = "00000000-0000-4000-8000-0000000000a1", second = "00000000-0000-4000-8000-0000000000a2"
        for id in [first, second] {
            let sent = try await Self.pushsend(["--url", "http://127.0.0.1:\(h2c)", "--device", SamplePush.deviceToken, "--apns-id", id])
            #expect(sent.status == 0, "\(sent.errorOutput)")
        }
        let url = "http://127.0.0.1:\(admin)"
        let report = Scratch.directory.appendingPathComponent("expect-\(UUID().uuidString).xml").path
        defer { try? FileManager.default.removeItem(atPath: report) }

        // Five minutes are not enough: iOS spaces wakes 15 minutes apart.
        let early = try await Self.pushsend([
            "expect", "--admin", url, "--apns-id", second, "--fate", "delivered", "--within", "5m", "--junit", report,
        ])
        #expect(early.status == 1)
        #expect(early.output.hasPrefix("expected push \(second) is delivered within 5m; push \(second) is pending ("), "\(early.output)")
        #expect(early.output.split(separator: "\n").count == 1)
        let failed = try await Self.parsed(report)
        #expect(failed["root"] == "testsuites" && failed["tests"] == "1" && failed["failures"] == "1")
        #expect(failed["name"] == "push \(second) is delivered within 5m")
        #expect(failed["failure"] == early.output.trimmingCharacters(in: .newlines))

        // Twenty are: the check moves the manual clock to the next wake.
        let later = try await Self.pushsend([
            "expect", "--admin", url, "--apns-id", second, "--fate", "delivered", "--within", "20m", "--junit", report,
        ])
        #expect(later.status == 0, "\(later.output)\(later.errorOutput)")
        #expect(later.output == "ok: push \(second) is delivered (delivered by wake 2)\n")
        let passed = try await Self.parsed(report)
        #expect(passed["failures"] == "0" && passed["failure"] == "" && passed["out"] == later.output.trimmingCharacters(in: .newlines))

        // Each push woke the app once: two wakes, not one.
        let one = try await Self.pushsend(["expect", "--admin", url, "--device", SamplePush.deviceToken, "--wakes", "1"])
        #expect(one.status == 1)
        #expect(one.output.hasSuffix("woke 2 times\n"), "\(one.output)")
        #expect(try await Self.pushsend(["expect", "--admin", url, "--device", SamplePush.deviceToken, "--wakes", "2"]).status == 0)
        // One device a check: a second --device is refused, not the last one kept.
        let two = try await Self.pushsend([
            "expect", "--admin", url, "--device", SamplePush.deviceToken, "--device", SamplePush.deviceToken, "--wakes", "2",
        ])
        #expect(two.status == 2 && two.errorOutput.contains("--device is given 2 times"), "\(two.errorOutput)")
        // --since counts only the wakes from then on: a device an earlier step woke is checked afresh.
        let since = ["expect", "--admin", url, "--device", SamplePush.deviceToken, "--since", "2200-01-01T00:00:00Z"]
        #expect(try await Self.pushsend(since + ["--wakes", "0"]).status == 0)
        let none = try await Self.pushsend(since + ["--wakes", "2"])
        #expect(none.status == 1 && none.output.contains("woke 0 times since 2200-01-01T00:00:00"), "\(none.output)")
        #expect(
            try await Self.pushsend(["expect", "--admin", url, "--device", SamplePush.deviceToken, "--wakes", "2", "--since", "1970-01-01T00:00:00Z"])
                .status == 0)
        // A push never received, and a push whose fate is already another.
        // The manual clock is not moved for a push that never came: other checks share it.
        let clockBefore = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"] as? String
        let unknown = try await Self.pushsend([
            "expect", "--admin", url, "--apns-id", "00000000-0000-4000-8000-0000000000ff", "--fate", "delivered", "--within", "1h",
        ])
        #expect(unknown.status == 1 && unknown.output.contains("no push 00000000-0000-4000-8000-0000000000ff was received"))
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"] as? String == clockBefore)
        #expect(try await Self.pushsend(["expect", "--admin", url, "--apns-id", first, "--fate", "expired", "--within", "1d"]).status == 1)
    }

    /// A push coalesced into one still waiting is not settled: its successor's expiry decides
    /// it, and expect moves the clock on until it does.
    @Test func aPushCoalescedIntoAWaitingOneIsNotYetFinal() async throws {
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { receiver.signal(SIGKILL) }
        let url = "http://127.0.0.1:\(admin)"
        let now = try SilentPushdDeviceTests.milliseconds(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"])
        let client = try await TestPushClient.connect(port: h2c)
        let ids = (1...3).map { "00000000-0000-4000-8000-0000000000e\($0)" }
        #expect(try await client.push(apnsID: ids[0]).status == 200)  // wakes
        #expect(try await client.push(apnsID: ids[1]).status == 200)  // waits for the interval
        #expect(try await client.push(expiration: now / 1000 + 120, apnsID: ids[2]).status == 200)  // replaces it, expires first
        await client.close()
        let waiting = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(ids[1])").json
        #expect(waiting["fate"] as? String == "coalesced" && waiting["wakeId"] is NSNull, "\(waiting)")
        let expired = try await Self.pushsend(["expect", "--admin", url, "--apns-id", ids[1], "--fate", "expired", "--within", "1h"])
        #expect(expired.status == 0 && expired.output.hasPrefix("ok: push \(ids[1]) is expired"), "\(expired.output)")
        // The clock stopped just past the expiry of the push that replaced it, not at its wake
        // 15 minutes on (the clock is the next steps' too).
        try await Self.expectClockJustPastExpiry(of: ids[2], admin: admin, from: now, before: 15 * 60_000)
    }

    /// The manual clock stands just past push `apnsID`'s expiry, less than `before` ms on from
    /// `start`. (Each time is read through a Double: a millisecond either way.)
    static func expectClockJustPastExpiry(of apnsID: String, admin: Int, from start: Int64, before: Int64) async throws {
        let expiry = try SilentPushdDeviceTests.milliseconds(
            try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(apnsID)").json["expiresAt"])
        let clock = try SilentPushdDeviceTests.milliseconds(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"])
        #expect(
            abs(clock - (expiry + 1)) <= 2 && clock - start < before, "the clock moved \(clock - start) ms; the push expired \(expiry - start) ms on")
    }

    /// A push waiting for a device offline expires at its apns-expiration: expect moves the
    /// clock there, not by the whole of `--within`.
    @Test func aPushWaitingForAnOfflineDeviceIsSettledAtItsExpiry() async throws {
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { receiver.signal(SIGKILL) }
        let patched = try await SilentPushdDeviceTests.admin(
            admin, "PATCH", "/v1/devices/\(SamplePush.deviceToken)", body: #"{"network": "offline"}"#)
        #expect(patched.status == 200)
        let now = try SilentPushdDeviceTests.milliseconds(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"])
        let client = try await TestPushClient.connect(port: h2c)
        let id = "00000000-0000-4000-8000-0000000000f1"
        #expect(try await client.push(expiration: now / 1000 + 60, apnsID: id).status == 200)
        await client.close()
        let url = "http://127.0.0.1:\(admin)"
        let expired = try await Self.pushsend(["expect", "--admin", url, "--apns-id", id, "--fate", "expired", "--within", "5m"])
        #expect(expired.status == 0 && expired.output.hasPrefix("ok: push \(id) is expired"), "\(expired.output)")
        try await Self.expectClockJustPastExpiry(of: id, admin: admin, from: now, before: 5 * 60_000)
    }

    /// A push coalesced into one still waiting is settled at that one's wake: expect moves the
    /// clock to the time it waits until, and fails there, not at the end of `--within` (the
    /// clock is the next steps' too).
    @Test func aCoalescedPushIsSettledAtItsSuccessorsWakeAndTheClockStopsThere() async throws {
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { receiver.signal(SIGKILL) }
        let url = "http://127.0.0.1:\(admin)"
        let start = try SilentPushdDeviceTests.milliseconds(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"])
        let client = try await TestPushClient.connect(port: h2c)
        let ids = (1...3).map { "00000000-0000-4000-8000-0000000000c\($0)" }
        for id in ids { #expect(try await client.push(apnsID: id).status == 200) }  // a wake, then one waiting replaced by the third
        await client.close()
        let result = try await Self.pushsend(["expect", "--admin", url, "--apns-id", ids[1], "--fate", "expired", "--within", "2h"])
        #expect(result.status == 1 && result.output.contains("is coalesced"), "\(result.output)")
        let now = try SilentPushdDeviceTests.milliseconds(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"])
        #expect(now - start == 15 * 60_000, "the clock moved \(now - start) ms, not to the wake 15 minutes on")
    }

    /// A count is exact over the whole span: two pushes, the second still waiting, are not
    /// "one wake within 20m" however soon the first wake is seen. The count is the device's
    /// whole, not as many as were asked for; a refusal of the admin API, and a report that
    /// cannot be written, are usage errors (2) found before the clock moves.
    @Test func aCountIsDecidedAtTheSpansEndAndARefusalIsUsage() async throws {
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual", "--admin-token", "s3cret"])
        defer { receiver.signal(SIGKILL) }
        for id in ["00000000-0000-4000-8000-0000000000b1", "00000000-0000-4000-8000-0000000000b2"] {
            let sent = try await Self.pushsend(["--url", "http://127.0.0.1:\(h2c)", "--device", SamplePush.deviceToken, "--apns-id", id])
            #expect(sent.status == 0, "\(sent.errorOutput)")
        }
        let url = "http://127.0.0.1:\(admin)"
        let check = ["expect", "--admin", url, "--admin-token", "s3cret", "--device", SamplePush.deviceToken]

        let unwritable = try await Self.pushsend(check + ["--wakes", "1", "--within", "20m", "--junit", "/nonexistent-\(UUID().uuidString)/x.xml"])
        #expect(unwritable.status == 2 && unwritable.output.isEmpty && unwritable.errorOutput.contains("cannot write --junit"))
        let none = try await Self.pushsend(check + ["--wakes", "0"])
        #expect(none.status == 1 && none.output.hasSuffix("woke 1 time\n"), "\(none.output)")

        let one = try await Self.pushsend(check + ["--wakes", "1", "--within", "20m"])
        #expect(one.status == 1)
        #expect(one.output == "expected device \(SamplePush.deviceToken) wakes 1 time within 20m; device \(SamplePush.deviceToken) woke 2 times\n")
        let zero = try await Self.pushsend(check + ["--wakes", "0"])
        #expect(zero.status == 1 && zero.output.hasSuffix("woke 2 times\n"), "\(zero.output)")
        #expect(try await Self.pushsend(check + ["--wakes", "2", "--within", "1m"]).status == 0)
        let three = try await Self.pushsend(check + ["--wakes", "3", "--within", "500ms"])
        #expect(
            three.output == "expected device \(SamplePush.deviceToken) wakes 3 times within 500ms; device \(SamplePush.deviceToken) woke 2 times\n")

        // A report an earlier run left is replaced by one that says the check was not made.
        let report = Scratch.directory.appendingPathComponent("refused-\(UUID().uuidString).xml").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        #expect(try await Self.pushsend(check + ["--wakes", "2", "--junit", report]).status == 0)
        let wrongToken = try await Self.pushsend([
            "expect", "--admin", url, "--admin-token", "nope", "--device", SamplePush.deviceToken, "--wakes", "2", "--junit", report,
        ])
        #expect(
            wrongToken.status == 2 && wrongToken.errorOutput.hasPrefix("pushsend: the admin API answered 401")
                && wrongToken.errorOutput.hasSuffix("(check --admin-token)\n"))
        let errored = try String(contentsOfFile: report, encoding: .utf8)
        #expect(errored.contains(#"errors="1""#) && errored.contains("<error message=\"the admin API answered 401"), "\(errored)")
        // A report named by a symbolic link is written through it (the link stays); a device
        // is written to, not replaced, and its error said (here /dev/full, through a link, so a
        // regression replaces the link and not the device).
        let link = report + ".link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: report)
        defer { try? FileManager.default.removeItem(atPath: link) }
        try Data().write(to: URL(fileURLWithPath: report))
        #expect(try await Self.pushsend(check + ["--wakes", "2", "--junit", link]).status == 0)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == report)
        #expect(try String(contentsOfFile: report, encoding: .utf8).contains(#"failures="0""#))
        let full = report + ".full"
        try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: "/dev/full")
        defer { try? FileManager.default.removeItem(atPath: full) }
        let noSpace = try await Self.pushsend(check + ["--wakes", "2", "--junit", full])
        #expect(noSpace.status == 2 && noSpace.errorOutput.contains("No space left on device"), "\(noSpace.errorOutput)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) == "/dev/full")
        // An --admin that names the wrong scheme or the wrong listener says what to check.
        for (admin, says) in [
            ("https://127.0.0.1:\(admin)", "the TLS handshake failed (the admin API speaks plain HTTP: use http://)"),
            ("http://127.0.0.1:\(h2c)", "what answered does not speak HTTP/1.1 (an APNs or channel port?"),
        ] {
            let wrong = try await Self.pushsend(["expect", "--admin", admin, "--device", SamplePush.deviceToken, "--wakes", "2"])
            #expect(wrong.status == 2 && wrong.errorOutput.contains(says), "\(admin): \(wrong.errorOutput)")
        }
        let wrongPath = try await Self.pushsend(
            ["expect", "--admin", url + "/prefix", "--admin-token", "s3cret", "--device", SamplePush.deviceToken, "--wakes", "2"])
        #expect(wrongPath.status == 2 && wrongPath.errorOutput.hasSuffix("(check --admin)\n"), "\(wrongPath.errorOutput)")
    }

    @Test(arguments: [
        (
            ["expect", "--fate", "delivered"],
            "give --apns-id ID --fate FATE; or --device TOKEN with --wakes N, --applied N, --activity-state STATE or --transfer STATE"
        ),
        (
            ["expect", "--admin", "127.0.0.1:2199", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered"],
            "--admin '127.0.0.1:2199' is not a URL like http://127.0.0.1:2199"
        ),
        (["export", "pushes", "--from", "yesterday"], "--from 'yesterday' is not an RFC 3339 time"),
        (["export", "pushes", "--admin", "ftp://127.0.0.1:2199"], "--admin 'ftp://127.0.0.1:2199' is not a URL like http://127.0.0.1:2199"),
        (["expect", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "woken"], "--fate 'woken' is not one of pending, delivered"),
        (["expect", "--device", "abc", "--wakes", "1"], "--device 'abc' is not a device token"),
        (
            ["expect", "--device", String(repeating: "0", count: 64), "--wakes", "1", "--transfer", "done"],
            "--transfer is an expectation of its own: give it without --apns-id, --fate, --wakes"
        ),
        (
            ["expect", "--device", String(repeating: "0", count: 64), "--topic", "com.example.app", "--applied", "6", "--wakes", "0"],
            "--applied and --activity-state are an expectation of their own: give them without --apns-id, --fate, --wakes or --since"
        ),
        (
            ["expect", "--device", String(repeating: "0", count: 64), "--transfer", "failed", "--file", "moved"],
            "--file goes with --transfer done: a failed transfer has no file handed to the app"
        ),
        (
            ["expect", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered", "--within", "soon"],
            "--within 'soon' is not a duration"
        ),
        (
            ["expect", "--admin", "http://127.0.0.1:1", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered"],
            "cannot reach the admin API at http://127.0.0.1:1"
        ),
        (
            ["expect", "--admin", "http://127.0.0.1:70000", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered"],
            "--admin 'http://127.0.0.1:70000': the port must be from 1 to 65535"
        ),
        (["export", "pushes", "--admin", "http://[::1]:99999999999999999999"], "the port must be from 1 to 65535"),
        (
            ["expect", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered", "--within", "-5s"],
            "--within '-5s' is not a duration"
        ),
        (
            ["expect", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered", "--junit", "/tmp"],
            "--junit '/tmp' is not a file's path"
        ),
        (
            ["expect", "--admin", "http://ci:pa55@127.0.0.1:1", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered"],
            "cannot reach the admin API at http://***@127.0.0.1:1"
        ),
        (
            ["expect", "--admin-token", "s3cret\r", "--apns-id", "00000000-0000-4000-8000-000000000001", "--fate", "delivered"],
            "the admin token (--admin-token or SILENTPUSH_ADMIN_TOKEN) must be printable characters with no space"
        ),
    ])
    func usageAndUnreachableExitTwo(arguments: [String], message: String) async throws {
        let result = try await Self.pushsend(arguments)
        #expect(result.status == 2)
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("s3cret") && !result.errorOutput.contains("pa55"), "no secret is shown: \(result.errorOutput)")
    }
}
