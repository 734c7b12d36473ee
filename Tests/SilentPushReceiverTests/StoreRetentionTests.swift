import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTesting
import Testing

/// A receiver keeps its store within `retention`, by device time.
@Suite struct StoreRetentionTests {
    @Test func pushesPastTheRetentionGoWithTheirWakesButAPendingOneStays() async throws {
        try await Receiver.withTesting({ $0.retention = .init(maximumAge: .seconds(86_400), maximumPushes: nil) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: ForgetAndResetTests.apnsID(1)).status == 200)  // wakes
            await receiver.settle()
            try await receiver.advanceClock(by: .seconds(3600))
            #expect(try await client.push(apnsID: ForgetAndResetTests.apnsID(2)).status == 200)  // wakes an hour later
            await receiver.settle()
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true))
            #expect(try await client.push(apnsID: ForgetAndResetTests.apnsID(3)).status == 200)  // held while Low Power Mode is on
            await receiver.settle()
            #expect(try await receiver.pruneStore().pushesAndWakes == (0, 0), "nothing is a day old yet")

            try await receiver.advanceClock(by: .seconds(86_400 - 1800))
            #expect(try await receiver.pruneStore().pushesAndWakes == (1, 1), "the first push is a day old, the second not yet")
            #expect(try await receiver.fate(of: ForgetAndResetTests.apnsID(1)) == nil)
            #expect(try await receiver.fate(of: ForgetAndResetTests.apnsID(2)) == .delivered)

            try await receiver.advanceClock(by: .seconds(7 * 86_400))
            #expect(try await receiver.pruneStore().pushesAndWakes == (1, 1))
            #expect(try await receiver.fate(of: ForgetAndResetTests.apnsID(3)) == .pending, "the device still holds it")
            #expect(try await receiver.wakes().isEmpty)
        }
    }

    @Test func onlyTheNewestPushesAreKept() async throws {
        try await Receiver.withTesting({ $0.retention = .init(maximumAge: nil, maximumPushes: 5) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            for n in 1...12 {
                #expect(try await client.push(apnsID: ForgetAndResetTests.apnsID(n), rawHeaders: ["apns-priority": "3"]).status == 400)
            }
            await receiver.settle()
            // The receiver's own pass, at start-up and every 10 s, may have pruned some of
            // them already: the count is what every pass removed.
            _ = try await receiver.pruneStore()
            #expect(receiver.metric(#"silentpush_store_pruned_total{table="pushes"}"#) == 7)
            #expect(try await receiver.device.pushes().map(\.apnsID) == (8...12).reversed().map(ForgetAndResetTests.apnsID))
        }
    }
}

extension PushStore.Pruned {
    var pushesAndWakes: (Int, Int) { (pushes, wakes) }
}
