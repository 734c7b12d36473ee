import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `docs/live-activities.md`'s walkthrough, as written there: its shell blocks, run with
/// bash and curl against a `silentpushd` started with its flags.
@Suite struct LiveActivityWalkthroughTests {
    @Test func theWalkthroughRunsAsWritten() async throws {
        let blocks = try Repository.blocks("sh", in: "docs/live-activities.md", after: "## Walkthrough")
        let command = try #require(blocks.first)
        #expect(command.hasPrefix("silentpushd "))
        let flags = command.dropFirst("silentpushd ".count).split(whereSeparator: \.isWhitespace).map(String.init)
        // The document's own flags, with the listeners on free ports.
        var extra: [String] = []
        var index = 0
        while index < flags.count {
            if flags[index] == "--listen-channels-h2c" {
                extra += [flags[index], "127.0.0.1:0"]
                index += 2
            } else if flags[index] == "--store" {
                index += 2  // the test's own
            } else {
                extra.append(flags[index])
                index += 1
            }
        }
        let (process, ports) = try await SilentPushdProcessTests.startWithPorts(extra)
        defer { process.signal(SIGKILL) }
        let scripts = blocks.dropFirst()
        #expect(scripts.count == 2)
        let result = try await PeerProcess.run(
            "bash", ["-euo", "pipefail", "-c", "cd \(Repository.root)\n" + scripts.joined(separator: "echo ----\n")],
            environment: [
                "ADMIN": "http://127.0.0.1:\(ports["admin"] ?? 0)", "APNS": "http://127.0.0.1:\(ports["h2c"] ?? 0)",
                "CHANNELS": "http://127.0.0.1:\(ports["channels-h2c"] ?? 0)", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            ], timeout: .seconds(60))
        let parts = result.output.components(separatedBy: "----\n")
        #expect(parts.count == 2, "status \(result.status): \(result.output)\(result.errorOutput)")
        let first = (parts.first ?? "").split(separator: "\n")
        #expect(first.count == 2, "\(result.output)\(result.errorOutput)")
        for line in first {
            #expect(line.contains(#""contentState":{"home": 1, "away": 0, "minute": 15}"#), "\(line)")
            #expect(line.contains(#""applied":true"#), "\(line)")
        }
        #expect(first.last?.contains(#""apnsId":"#) == true)
        let second = (parts.last ?? "").split(separator: "\n")
        #expect(second.count == 2, "\(result.output)")
        #expect(second.first?.contains(#""state":"ended""#) == true, "\(result.output)")
        #expect(second.first?.contains(#""contentState":{"home": 2, "away": 1, "minute": 90}"#) == true, "\(result.output)")
        #expect(second.last?.contains(#""state":"dismissed""#) == true, "\(result.output)")
    }

    /// The budget flag reaches the device: with `--activity-budget 1`, the second priority-10
    /// update in the hour waits, and its fate says so; a third replaces it on the device (not
    /// at APNs: the device is online).
    @Test func theBudgetFlagHoldsTheSecondUpdate() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual", "--activity-budget", "1"])
        defer { process.signal(SIGKILL) }
        let device = String(repeating: "ef", count: 32)
        let started = try await SilentPushdDeviceTests.admin(
            admin, "POST", "/v1/devices/\(device)/apps/com.example.app/activities", body: #"{"attributesType": "MatchAttributes"}"#)
        #expect(started.status == 201)
        let token = try #require(started.json["pushToken"] as? String)
        let jwt = try DevProviderToken.make()
        var fates: [String] = []
        let ids = ["00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2", "00000000-0000-4000-8000-0000000000a3"]
        func fate(_ id: String) async throws -> String {
            let push = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(id)")
            return "\(push.json["fate"] ?? "-") \((push.json["why"] as? [String: Any])?["rule"] ?? "-")"
        }
        for (index, id) in ids.enumerated() {
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", "-H", "authorization: bearer \(jwt)",
                    "-H", "apns-topic: com.example.app.push-type.liveactivity", "-H", "apns-push-type: liveactivity", "-H", "apns-id: \(id)",
                    "-d", #"{"aps":{"timestamp":\#(100 + index),"event":"update","content-state":{"n":\#(index)}}}"#,
                    "http://127.0.0.1:\(h2c)/3/device/\(token)",
                ])
            #expect(result.output == "200")
            fates.append(try await fate(id))
        }
        #expect(fates == ["delivered applied", "pending activityBudget", "pending activityBudget"])
        #expect(try await fate(ids[1]) == "coalesced replaced")
        // Stats count it coalesced for good: it rides no wake, so it waits for none.
        let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats").json["pushes"] as? [String: Int]
        #expect(stats?["coalesced"] == 1 && stats?["coalescedWaiting"] == nil, "\(String(describing: stats))")
        // And `pushsend expect` takes it as settled: another fate fails at once, the shared
        // manual clock unmoved.
        let clock = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"] as? String
        let expect = try await PushSendExpectTests.pushsend([
            "expect", "--admin", "http://127.0.0.1:\(admin)", "--apns-id", ids[1], "--fate", "delivered", "--within", "3h",
        ])
        #expect(expect.status == 1 && expect.output.contains("is coalesced"), "\(expect.output)")
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["now"] as? String == clock)
    }
}

extension LiveActivityWalkthroughTests {
    /// A push-to-start APNs keeps for an offline device starts the activity when the device is
    /// back, and its push says delivered (it stayed pending: held with no activity yet, and
    /// looked up by the activity its start made).
    @Test func aStartKeptForAnOfflineDeviceIsDeliveredWhenItIsBack() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let device = String(repeating: "e8", count: 32)
        let app = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/devices/\(device)/apps/com.example.app")
        let pushToStart = try #require(app.json["pushToStartToken"] as? String, "\(app.json)")
        #expect(try await SilentPushdDeviceTests.admin(admin, "PATCH", "/v1/devices/\(device)", body: #"{"network": "offline"}"#).status == 200)
        let id = "00000000-0000-4000-8000-0000000000c9"
        let result = try await PeerProcess.run(
            "curl",
            [
                "-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                "authorization: bearer \(try DevProviderToken.make())",
                "-H", "apns-topic: com.example.app.push-type.liveactivity", "-H", "apns-push-type: liveactivity", "-H", "apns-id: \(id)",
                "-d",
                #"{"aps":{"timestamp":100,"event":"start","content-state":{"n":0},"attributes-type":"MatchAttributes","attributes":{},"alert":"Go"}}"#,
                "http://127.0.0.1:\(h2c)/3/device/\(pushToStart)",
            ])
        #expect(result.output == "200")
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(id)").json["fate"] as? String == "pending")
        #expect(try await SilentPushdDeviceTests.admin(admin, "PATCH", "/v1/devices/\(device)", body: #"{"network": "online"}"#).status == 200)
        let push = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(id)").json
        #expect(push["fate"] as? String == "delivered", "\(push)")
    }

    /// Two priority-5 updates with one apns-id: the second replaces the first while both wait
    /// for their opportunity, and each push's fate is its own (the first stayed pending for
    /// ever, the second took its coalescing).
    @Test func updatesThatShareAnAPNsIDEachGetTheirOwnFate() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let device = String(repeating: "e7", count: 32)
        let started = try await SilentPushdDeviceTests.admin(
            admin, "POST", "/v1/devices/\(device)/apps/com.example.app/activities", body: #"{"attributesType": "MatchAttributes"}"#)
        let token = try #require(started.json["pushToken"] as? String)
        let jwt = try DevProviderToken.make()
        let id = "00000000-0000-4000-8000-0000000000c1"
        for n in 1...2 {
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", "-H", "authorization: bearer \(jwt)",
                    "-H", "apns-topic: com.example.app.push-type.liveactivity", "-H", "apns-push-type: liveactivity", "-H", "apns-id: \(id)",
                    "-H", "apns-priority: 5", "-d", #"{"aps":{"timestamp":\#(100 + n),"event":"update","content-state":{"n":\#(n)}}}"#,
                    "http://127.0.0.1:\(h2c)/3/device/\(token)",
                ])
            #expect(result.output == "200")
        }
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 3600}"#).status == 200)
        let pushes = try #require(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes").json["pushes"] as? [[String: Any]])
        #expect(pushes.map { $0["fate"] as? String ?? "-" } == ["delivered", "coalesced"], "newest first: \(pushes)")
    }
}
