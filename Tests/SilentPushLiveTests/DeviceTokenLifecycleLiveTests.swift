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

        let reinstall = try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/\(SamplePush.deviceToken)/reinstall", body: "{}")
        #expect(reinstall.status == 200)
        let fresh = try #require(reinstall.json["deviceToken"] as? String)
        #expect(reinstall.json["previousDeviceToken"] as? String == SamplePush.deviceToken)
        #expect(try await Self.push(h2c: h2c).status == 410)
        #expect(try await Self.push(h2c: h2c, token: fresh).status == 200)
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/devices/xyz/reinstall", body: "{}").status == 422)
    }
}
