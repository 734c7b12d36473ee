import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import Testing

/// The per-type rules of `/3/device`, driven by curl: what APNs answers, and the fate the
/// device gives a push it cannot use.
@Suite(.serialized) struct PushTypeRulesLiveTests {
    static let token = SamplePush.deviceToken

    static func send(
        _ receiver: Receiver, type: APNsPushType, priority: String = "10", body: String, apnsID: String = UUID().uuidString
    ) async throws -> ChannelManagementLiveTests.Answer {
        try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
            headers: [
                "apns-topic: \(SamplePush.topic)\(type.topicSuffix ?? "")", "apns-push-type: \(type.rawValue)", "apns-priority: \(priority)",
                "apns-id: \(apnsID)",
            ], body: body)
    }

    @Test func aPushTheDeviceCannotUseIsAcceptedThenDroppedSayingWhy() async throws {
        try await Receiver.withTesting { receiver in
            let cases: [(APNsPushType, String, DropReason)] = [
                (.liveactivity, #"{"aps":{"timestamp":1685952000,"content-state":{}}}"#, .liveActivityPayload(.missingEvent)),
                (.liveactivity, #"{"aps":{"timestamp":1685952000000,"event":"update","content-state":{}}}"#, .liveActivityPayload(.badTimestamp)),
                (
                    .liveactivity, #"{"aps":{"timestamp":1685952000,"event":"start","content-state":{},"alert":"x"}}"#,
                    .liveActivityPayload(.missingAttributesType)
                ),
                (.widgets, #"{"aps":{}}"#, .noContentChanged(.widgets)),
                (.controls, #"{"aps":{"content-changed":false}}"#, .noContentChanged(.controls)),
            ]
            for (type, body, reason) in cases {
                let id = UUID().uuidString
                let answer = try await Self.send(receiver, type: type, body: body, apnsID: id)
                #expect(answer.status == 200, "\(type) \(body): \(answer.body)")
                let fate = try await receiver.fate(of: id, becomes: .dropped)
                #expect(fate.dropReason == reason, "\(body)")
            }
            let malformed = try await Self.send(receiver, type: .liveactivity, body: "{nope")
            #expect(malformed.status == 400)
            #expect(malformed.reason() == "BadRequestPayload")
        }
    }

    @Test func strictRefusesWhatAppleAdvisesAgainst() async throws {
        try await Receiver.withTesting({ $0.strict = true }) { receiver in
            let ptt = try await Self.send(receiver, type: .pushtotalk, priority: "5", body: #"{"aps":{}}"#)
            #expect(ptt.status == 400)
            #expect(ptt.reason() == "BadPriority")
            let live = try await Self.send(receiver, type: .liveactivity, priority: "1", body: #"{"aps":{}}"#)
            #expect(live.reason() == "BadPriority")
            let location = try await Self.send(receiver, type: .location, priority: "5", body: #"{"aps":{}}"#)
            #expect(location.status == 200, "a token may send location pushes")
        }
    }
}
