import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A device stays listed by `/v1/devices` when retention prunes every record of it: by the
/// receiver that pruned them, and after a restart on the same store. Every listing reads the
/// store's known apps, on its own or in a cluster; forgetting the device takes it off.
@Suite struct PrunedDeviceListTests {
    static let first = String(repeating: "a1", count: 32)
    static let second = String(repeating: "b2", count: 32)

    @Test func aDeviceWhoseRecordsWerePrunedStaysListedAcrossARestart() async throws {
        let directory = try Scratch.newDirectory("pruned-devices")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.retention = .init(maximumAge: nil, maximumPushes: 1)
        }
        let both = [Self.first: [SamplePush.topic], Self.second: [SamplePush.topic]]
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(to: Self.first, apnsID: SilentPushdDeviceTests.apnsID(1)).status == 200)
            await receiver.settle()
            #expect(try await client.push(to: Self.second, apnsID: SilentPushdDeviceTests.apnsID(2)).status == 200)
            await receiver.settle()
            // The receiver's own pass may have pruned it already.
            _ = try await receiver.pruneStore()
            #expect(try await receiver.fate(of: SilentPushdDeviceTests.apnsID(1)) == nil, "the first device's only push was pruned")
            #expect(try await receiver.wakes().allSatisfy { $0.deviceToken != Self.first }, "and its wake")
            #expect(try await DroppedPushDeviceListTests.listed(receiver) == both)
            #expect(try await receiver.device.knownDevices() == both.mapValues(Set.init))
        }
        try await Receiver.withTesting(configure) { receiver in
            #expect(try await DroppedPushDeviceListTests.listed(receiver) == both, "after a restart")
            let forgotten = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "DELETE", "/v1/devices/\(Self.first)")
            #expect(forgotten.status == 200)
            #expect(try await DroppedPushDeviceListTests.listed(receiver) == [Self.second: [SamplePush.topic]], "the one forgotten")
        }
    }
}
