import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `apns-unique-id` and `POST /v1/devices/{token}/reinstall` through curl against `silentpushd`.
@Suite struct DeviceTokenLifecycleLiveTests {
    static func push(h2c: Int, token: String = SamplePush.deviceToken) async throws -> (status: Int, headers: String) {
        let result = try await PeerProcess.run(
            "curl",
            [
                "-sS", "--http2-prior-knowledge", "-D", "-", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary",
                #"{"aps":{"content-available":1}}"#,
                "http://127.0.0.1:\(h2c)/3/device/\(token)",
            ]
                + SamplePush.headerArguments(jwt: try DevProviderToken.make()))
        let status = Int(result.output.split(whereSeparator: \.isNewline).last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        return (status, result.output.lowercased() + result.errorOutput)
    }

    @Test func aUniqueIDFindsItsPushAndAReinstalledTokenIsUnregistered() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start()
        defer { process.signal(SIGKILL) }
        let first = try await Self.push(h2c: h2c)
        #expect(first.status == 200, "\(first.headers)")
        let line = try #require(first.headers.split(whereSeparator: \.isNewline).first { $0.hasPrefix("apns-unique-id:") })
        let uniqueID = line.dropFirst("apns-unique-id:".count).trimmingCharacters(in: .whitespacesAndNewlines)
        let found = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(uniqueID)")
        #expect(found.status == 200 && found.json["deviceToken"] as? String == SamplePush.deviceToken, "\(found.json)")
        // An apns-id is a UUID: found in either case.
        let apnsID = try #require(found.json["apnsId"] as? String)
        for id in [apnsID.lowercased(), apnsID.uppercased()] {
            #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(id)").json["apnsId"] as? String == apnsID, "\(id)")
        }

        let reinstall = try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/\(SamplePush.deviceToken)/reinstall", body: "{}")
        #expect(reinstall.status == 200)
        let fresh = try #require(reinstall.json["deviceToken"] as? String)
        #expect(reinstall.json["previousDeviceToken"] as? String == SamplePush.deviceToken)
        #expect(try await Self.push(h2c: h2c).status == 410)
        #expect(try await Self.push(h2c: h2c, token: fresh).status == 200)
        // The old token is no installed app's: a second reinstall from it would make two.
        let again = try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/\(SamplePush.deviceToken)/reinstall", body: "{}")
        #expect(again.status == 409 && (again.json["detail"] as? String)?.contains("reinstall from the app's current token") == true, "\(again.json)")
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/\(fresh)/reinstall", body: "{}").status == 200)
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/xyz/reinstall", body: "{}").status == 422)
    }

    /// What waited for the deleted install never reaches it: the push waiting in its slot is
    /// dropped (`app deleted`), its pending task request cancelled, its Live Activity
    /// dismissed; the clock moving past the interval wakes nothing for the old token.
    @Test func aReinstallDropsThePushTheOldInstallWaitedForAndCancelsItsTasks() async throws {
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["a"], "backgroundModes": ["fetch"]}}}"#
        let path = Scratch.directory.appendingPathComponent("reinstall-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--config", path, "--clock", "manual", "--profile", "ios"])
        defer { process.signal(SIGKILL) }
        let token = SamplePush.deviceToken
        #expect(try await Self.push(h2c: h2c).status == 200)  // wakes the app
        let waiting = try await Self.push(h2c: h2c)  // waits for the interval
        let id = try #require(
            waiting.headers.split(whereSeparator: \.isNewline).first { $0.hasPrefix("apns-id:") }?.dropFirst("apns-id:".count)
                .trimmingCharacters(in: .whitespaces))
        let tasks = "/v1/devices/\(token)/apps/com.example.app/tasks"
        let submitted = try await SilentPushdDeviceTests.admin(
            admin, "POST", tasks, body: #"{"identifier": "a", "kind": "refresh", "earliestBeginDate": "2200-01-01T00:00:00Z"}"#)
        #expect(submitted.status == 201)
        let activities = "/v1/devices/\(token)/apps/com.example.app/activities"
        let started = try await SilentPushdDeviceTests.admin(
            admin, "POST", activities, body: #"{"attributesType": "GameAttributes", "attributes": {}, "contentState": {"score": 1}}"#)
        #expect(started.status == 201 && started.json["state"] as? String == "active", "\(started.json)")
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/\(token)/reinstall", body: "{}").status == 200)
        let activity = (try await SilentPushdDeviceTests.admin(admin, "GET", activities).json["activities"] as? [[String: Any]])?.first
        #expect(activity?["state"] as? String == "dismissed" && activity?["endedAt"] is String, "\(String(describing: activity))")
        // The helper lowercases the answer's headers; the apns-id as APNs wrote it is upper-case.
        let push = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(id.uppercased())")
        #expect(push.json["fate"] as? String == "dropped" && (push.json["why"] as? [String: Any])?["rule"] as? String == "appDeleted", "\(push.json)")
        let pending = try await SilentPushdDeviceTests.admin(admin, "GET", tasks).json["requests"] as? [Any]
        #expect(pending?.isEmpty == true, "\(String(describing: pending))")
        _ = try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 3600}"#)
        let wakes = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes?device=\(token)").json["wakes"] as? [Any]
        #expect(wakes?.count == 1, "only the wake before the reinstall: \(String(describing: wakes))")
    }
}
