import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// An apns-unique-id names one push, wherever the admin API gives it: a wake's coalesced
/// pushes after a retry reused their apns-id, and a lookup whose id is also a later push's
/// apns-id.
@Suite struct PushLookupLiveTests {
    static func admin(_ receiver: Receiver, _ path: String) async throws -> [String: Any] {
        try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", path).json
    }

    @Test func aWakesCoalescedPushesAreNamedByTheirUniqueIdsToo() async throws {
        try await Receiver.withTesting({
            $0.clock = .manual
            $0.admin = ListenAddress(host: "127.0.0.1", port: 0)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            // One apns-id three times, as a provider's retries send it.
            let apnsID = "00000000-0000-4000-8000-0000000000aa"
            var unique: [String] = []
            for _ in 0..<3 { unique.append(try #require(try await client.push(apnsID: apnsID).uniqueID)) }
            try await receiver.advanceClock(by: .seconds(900))
            let wakes = try #require(try await Self.admin(receiver, "/v1/wakes")["wakes"] as? [[String: Any]])
            let second = try #require(wakes.first { $0["apnsUniqueId"] as? String == unique[2] }, "\(wakes)")
            #expect(second["coalesced"] as? [String] == [apnsID], "\(second)")
            #expect(second["coalescedUniqueIds"] as? [String] == [unique[1]], "\(second)")
            // The unique id finds the coalesced push; the apns-id, the latest sent with it.
            #expect(try await Self.admin(receiver, "/v1/pushes/\(unique[1])")["fate"] as? String == "coalesced")
            #expect(try await Self.admin(receiver, "/v1/pushes/\(apnsID)")["apnsUniqueId"] as? String == unique[2])
        }
    }

    @Test func aUniqueIdNamesItsPushThoughALaterPushTookItAsItsApnsID() async throws {
        try await Receiver.withTesting({ $0.admin = ListenAddress(host: "127.0.0.1", port: 0) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let first = try #require(try await client.push().uniqueID)
            let other = String(repeating: "cd", count: 32)
            #expect(try await client.push(to: other, apnsID: first).status == 200)
            let found = try await Self.admin(receiver, "/v1/pushes/\(first)")
            #expect(found["deviceToken"] as? String == SamplePush.deviceToken && found["apnsUniqueId"] as? String == first, "\(found)")
        }
    }

    /// An expired push held at APNs for an offline device names the time it ran out of: the
    /// storage limit when it comes before the push's own `apns-expiration`, that expiration
    /// when it comes first.
    @Test func anExpiredPushHeldAtAPNsNamesTheTimeItRanOutOf() async throws {
        try await Receiver.withTesting({
            $0.admin = ListenAddress(host: "127.0.0.1", port: 0)
            $0.wakeSettings.apnsStorageLimit = .seconds(3600)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let other = String(repeating: "cd", count: 32)
            for token in [SamplePush.deviceToken, other] {
                try await receiver.setDeviceState(DeviceState(network: .offline), for: token)
            }
            let now = receiver.device.clock.now.millisecondsSinceEpoch / 1000
            #expect(try await client.push(expiration: now + 7200, apnsID: SilentPushdDeviceTests.apnsID(1)).status == 200)  // past the limit
            #expect(try await client.push(to: other, expiration: now + 1800, apnsID: SilentPushdDeviceTests.apnsID(2)).status == 200)  // before it
            try await receiver.advanceClock(by: .seconds(7200))
            await receiver.settle()
            var whys: [String] = []
            for n in 1...2 {
                let push = try await Self.admin(receiver, "/v1/pushes/\(SilentPushdDeviceTests.apnsID(n))")
                #expect(push["fate"] as? String == "expired", "\(push)")
                whys.append((push["why"] as? [String: Any])?["text"] as? String ?? "")
            }
            #expect(
                whys == [
                    "APNs's storage limit for an offline device passed, sooner than its apns-expiration, before a wake could deliver it",
                    "its apns-expiration passed before a wake could deliver it",
                ])
        }
    }
}
