import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import Testing

/// Forgetting a device, and resetting a shared receiver between tests.
@Suite struct ForgetAndResetTests {
    static func apnsID(_ n: Int) -> String { "00000000-0000-4000-8000-" + String(format: "%012d", n) }

    @Test func aForgottenDeviceStartsAfreshAndItsRecordsAreGone() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let other = String(repeating: "cd", count: 32)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // wakes
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)  // waits 15 minutes
            #expect(try await client.push(to: other, apnsID: Self.apnsID(3)).status == 200)
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true))
            await receiver.settle()
            try await receiver.forget(device: SamplePush.deviceToken)
            #expect(try await receiver.fate(of: Self.apnsID(1)) == nil)
            #expect(try await receiver.fate(of: Self.apnsID(2)) == nil)
            #expect(try await receiver.wakes().allSatisfy { $0.deviceToken == other })
            #expect(receiver.device.deviceState(of: SamplePush.deviceToken) == DeviceState())
            // No interval to wait out: a push wakes the app at once.
            #expect(try await client.push(apnsID: Self.apnsID(4)).status == 200)
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(4)) == .delivered)
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .delivered)  // the other device kept its records
        }
    }

    @Test func aResetForgetsEverythingButTheClock() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)
            receiver.addFault(FaultRule(match: .init(topic: "com.example.other"), action: .reset))
            try await receiver.advanceClock(by: .seconds(60))
            let clock = receiver.device.clock.now
            try await receiver.reset()
            #expect(try await receiver.device.pushes().isEmpty)
            #expect(try await receiver.wakes().isEmpty)
            #expect(receiver.faultRules.isEmpty)
            #expect(receiver.device.clock.now == clock)
            #expect(try await client.push(apnsID: Self.apnsID(3)).status == 200)
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .delivered)
        }
    }
}
