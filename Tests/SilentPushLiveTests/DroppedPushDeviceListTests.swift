import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A device whose every push was dropped for what it carried (a voip push, an alert without
/// `content-available`) is still one the receiver was pushed to: listed by `/v1/devices`,
/// after a restart too, and gone once forgotten.
@Suite struct DroppedPushDeviceListTests {
    static let token = String(repeating: "d7", count: 32)
    static let voipToken = String(repeating: "e8", count: 32)

    static func listed(_ receiver: Receiver) async throws -> [String: [String]] {
        let answer = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/devices")
        let devices = answer.json["devices"] as? [[String: Any]] ?? []
        return Dictionary(
            uniqueKeysWithValues: devices.compactMap { device in
                (device["deviceToken"] as? String).map { ($0, device["topics"] as? [String] ?? []) }
            })
    }

    @Test func aDeviceWhosePushesWereAllDroppedIsListedAcrossARestart() async throws {
        let directory = try Scratch.newDirectory("dropped-devices")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = { $0.store = .file(directory + "/store.sqlite") }
        try await Receiver.withTesting(configure) { receiver in
            let answer = try await ChannelManagementLiveTests.curl(
                "POST", "/3/device/\(Self.token)", port: try #require(receiver.h2cPort), tls: false,
                headers: ["apns-topic: \(SamplePush.topic)", "apns-push-type: alert", "apns-id: \(SilentPushdDeviceTests.apnsID(1))"],
                body: #"{"aps":{"alert":"hi"}}"#)
            #expect(answer.status == 200)
            #expect(try await receiver.fate(of: SilentPushdDeviceTests.apnsID(1))?.dropReason == .noContentAvailable)
            // A voip push goes to the app's .voip topic; the device is listed with the bundle id.
            let voip = try await ChannelManagementLiveTests.curl(
                "POST", "/3/device/\(Self.voipToken)", port: try #require(receiver.h2cPort), tls: false,
                headers: [
                    "apns-topic: \(SamplePush.topic).voip", "apns-push-type: voip", "apns-priority: 10",
                    "apns-id: \(SilentPushdDeviceTests.apnsID(2))",
                ],
                body: #"{"aps":{}}"#)
            #expect(voip.status == 200)
            #expect(try await receiver.fate(of: SilentPushdDeviceTests.apnsID(2))?.dropReason == .pushTypeNeverWakes(.voip))
            #expect(try await Self.listed(receiver) == [Self.token: [SamplePush.topic], Self.voipToken: [SamplePush.topic]])
        }
        try await Receiver.withTesting(configure) { receiver in
            #expect(
                try await Self.listed(receiver) == [Self.token: [SamplePush.topic], Self.voipToken: [SamplePush.topic]], "after a restart")
            let forgotten = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "DELETE", "/v1/devices/\(Self.token)")
            #expect(forgotten.status == 200)
            #expect(try await Self.listed(receiver) == [Self.voipToken: [SamplePush.topic]], "the one forgotten")
        }
    }
}
