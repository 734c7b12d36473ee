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

        // Forget one device, then everything.
        #expect(try await SilentPushdDeviceTests.admin(admin, "DELETE", "/v1/devices/\(other)", body: "{}").status == 200)
        let left = try #require(try await Self.curl(admin, "/v1/devices").body["devices"] as? [[String: Any]])
        #expect(left.map { $0["deviceToken"] as? String } == [SamplePush.deviceToken])
        #expect(try await Self.curl(admin, "/v1/pushes/\(SilentPushdDeviceTests.apnsID(6))").status == 404)
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/reset", body: "{}").status == 200)
        #expect((try await Self.curl(admin, "/v1/pushes").body["pushes"] as? [[String: Any]])?.isEmpty == true)
        #expect((try await Self.curl(admin, "/v1/devices").body["devices"] as? [[String: Any]])?.isEmpty == true)
    }
}
