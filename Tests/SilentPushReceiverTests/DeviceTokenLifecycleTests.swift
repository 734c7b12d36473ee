import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A token that changes with a reinstall, and the `apns-unique-id` of the development
/// environment.
@Suite struct DeviceTokenLifecycleTests {
    @Test func theDevelopmentEnvironmentAnswersAUniqueIDThatFindsThePush() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let answer = try await client.push(apnsID: "00000000-0000-4000-8000-0000000000a1")
            let uniqueID = try #require(answer.uniqueID)
            #expect(uniqueID == uniqueID.lowercased() && UUID(uuidString: uniqueID) != nil)
            #expect(uniqueID != answer.apnsID.lowercased())
            await receiver.settle()
            #expect(try await receiver.device.push(uniqueID: uniqueID)?.apnsID == answer.apnsID)
            // A unique id that carries the push's id but not its apns-id finds nothing.
            let forged = "11111111" + uniqueID.dropFirst(8)
            #expect(try await receiver.device.push(uniqueID: String(forged)) == nil)
        }
    }

    @Test func productionAnswersNoUniqueID() async throws {
        try await Receiver.withTesting({ $0.environment = .production }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let answer = try await client.push()
            #expect(answer.status == 200 && answer.uniqueID == nil)
        }
    }

    @Test func aReinstallGivesANewTokenAndTheOldOneIsUnregistered() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            try await receiver.setDeviceState(DeviceState(batteryLevel: 15))
            let fresh = try await receiver.reinstall(SamplePush.deviceToken)
            #expect(fresh != SamplePush.deviceToken && fresh.count == 64 && fresh.allSatisfy(\.isHexDigit))
            let old = try await client.push(to: SamplePush.deviceToken)
            #expect(old.status == 410 && old.reason == .unregistered && old.timestamp != nil)
            #expect(try await client.push(to: fresh).status == 200)
            #expect(receiver.device.deviceState(of: fresh) == DeviceState(batteryLevel: 15))
        }
    }

    /// The 410's timestamp is device time, as every time in the record: on a manual clock
    /// moved a year on, the reinstall's and a fault rule's answer say that year, not today.
    @Test func anUnregistrationIsStampedWithDeviceTime() async throws {
        try await Receiver.withTesting { receiver in
            try await receiver.advanceClock(by: .seconds(365 * 86400))
            let now = receiver.device.clock.now.millisecondsSinceEpoch
            let fresh = try await receiver.reinstall(SamplePush.deviceToken)
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(to: SamplePush.deviceToken).timestamp == now)
            _ = receiver.addFault(FaultRule(match: .init(device: fresh), action: .reason(.expiredToken)))
            #expect(try await client.push(to: fresh).timestamp == now)
        }
    }

    @Test func anUnregisteredTokenStillAnswers410AfterARestart() async throws {
        let path = Scratch.directory.appendingPathComponent("tokens-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let (fresh, timestamp) = try await Receiver.withTesting({ $0.store = .file(path) }) { receiver in
            let fresh = try await receiver.reinstall(SamplePush.deviceToken)
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            return (fresh, try #require(try await client.push(to: SamplePush.deviceToken).timestamp))
        }
        // The start-up reads the device table once, with the rest of the snapshot.
        try await Receiver.withTesting({ $0.store = .file(path) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let old = try await client.push(to: SamplePush.deviceToken)
            #expect(old.status == 410 && old.reason == .unregistered && old.timestamp == timestamp)
            #expect(try await client.push(to: fresh).status == 200)
        }
    }

    /// A reinstall's new token is registered to the old one's topics, and stays so across a
    /// restart: a receiver that takes registered tokens only still takes it, for those topics.
    @Test func aReinstalledTokensRegistrationOutlivesARestart() async throws {
        let path = Scratch.directory.appendingPathComponent("tokens-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(path)
            $0.deviceRegistryMode = .registeredOnly
            $0.registeredDevices = [SamplePush.deviceToken: [SamplePush.topic]]
        }
        let fresh = try await Receiver.withTesting(configure) { receiver in
            try await receiver.reinstall(SamplePush.deviceToken)
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(to: fresh).status == 200)
            let other = try await client.push(to: fresh, topic: "com.example.other")
            #expect(other.status == 400 && other.reason == .deviceTokenNotForTopic)
            #expect(try await client.push(to: SamplePush.deviceToken).reason == .unregistered)
            #expect(receiver.withDevices { $0.entry(fresh)?.topics } == [SamplePush.topic])
        }
    }
}
