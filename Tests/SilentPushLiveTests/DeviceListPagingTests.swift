import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `GET /v1/devices` reads the store a chunk of devices at a time from the cursor on: a
/// filter that passes few of them still fills its page, and `next` is set only when one more
/// device passes it.
@Suite struct DeviceListPagingTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    @Test func aFilterThatPassesFewDevicesPagesAcrossChunks() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            for n in 1...250 {
                #expect(try await client.push(to: Self.token(n), apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200)
            }
            // Low Power Mode on three devices far apart: past the first chunk (100) and the second.
            for n in [7, 180, 240] {
                try await receiver.setDeviceState(DeviceState(lowPowerMode: true), for: Self.token(n))
            }
            let admin = try #require(receiver.adminPort)
            let first = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/devices?state=lowPowerMode&limit=2")
            let firstTokens = (first.json["devices"] as? [[String: Any]])?.compactMap { $0["deviceToken"] as? String }
            #expect(firstTokens == [Self.token(7), Self.token(180)])
            let next = try #require(first.json["next"] as? String)
            #expect(next == Self.token(180))
            let second = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/devices?state=lowPowerMode&limit=2&cursor=\(next)")
            #expect((second.json["devices"] as? [[String: Any]])?.compactMap { $0["deviceToken"] as? String } == [Self.token(240)])
            #expect(second.json["next"] is NSNull, "no device after it passes")
            let all = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/devices?limit=1000")
            #expect((all.json["devices"] as? [[String: Any]])?.count == 250)
        }
    }
}
