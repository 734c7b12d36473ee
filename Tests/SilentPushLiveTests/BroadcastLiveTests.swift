import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import Testing

/// Broadcasts on the provider listener, driven by curl with the request of Apple's "Sending
/// broadcast push notification requests to APNs" page.
@Suite(.serialized) struct BroadcastLiveTests {
    static let app = ChannelManagementLiveTests.app
    static let requestID = ChannelManagementLiveTests.requestID
    /// The documented example's payload.
    static let payload = #"""
        {"aps":{"timestamp":1685952000,"event":"update","content-state":{"currentHealthLevel":0.0,"eventDescription":"Power Panda has been knocked down!"},"alert":{"title":{"loc-key":"%@ is knocked down!","loc-args":["Power Panda"]},"body":{"loc-key":"Use a potion to heal %@!","loc-args":["Power Panda"]},"sound":"HeroDown.mp4"}}}
        """#

    static func documentedHeaders(channel: String) -> [String] {
        ["apns-push-type: liveactivity", "apns-expiration: 0", "apns-priority: 10", "apns-channel-id: \(channel)"]
    }

    @Test func theDocumentedBroadcastOverTLSIsRecorded() async throws {
        try await Receiver.withTesting { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored)
            let answer = try await ChannelManagementLiveTests.curl(
                "POST", "/4/broadcasts/apps/\(Self.app)", port: try #require(receiver.tlsPort),
                headers: Self.documentedHeaders(channel: channel.id.text) + ["apns-request-id: \(Self.requestID)"], body: Self.payload)
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.body.isEmpty)
            #expect(answer.headers["apns-request-id"] == Self.requestID)
            let unique = try #require(answer.headers["apns-unique-id"], "the development environment names it")
            let recorded = try await receiver.broadcasts(bundleID: Self.app)
            #expect(recorded.count == 1)
            #expect(recorded.first?.requestID == Self.requestID)
            #expect(recorded.first?.uniqueID == unique)
            #expect(recorded.first?.channelID == channel.id)
            #expect(recorded.first?.priority == .high)
            #expect(recorded.first.map { String(decoding: $0.payload, as: UTF8.self) } == Self.payload)

            // The token example sends `apns-id`: taken as the request id.
            let withAPNsID = try await ChannelManagementLiveTests.curl(
                "POST", "/4/broadcasts/apps/\(Self.app)", port: try #require(receiver.tlsPort),
                headers: Self.documentedHeaders(channel: channel.id.text) + ["apns-id: eabeae54-14a8-11e5-b60b-1697f925ec7b"],
                body: Self.payload)
            #expect(withAPNsID.status == 200)
            #expect(withAPNsID.headers["apns-request-id"] == "eabeae54-14a8-11e5-b60b-1697f925ec7b")
            let generated = try await ChannelManagementLiveTests.curl(
                "POST", "/4/broadcasts/apps/\(Self.app)", port: try #require(receiver.tlsPort),
                headers: Self.documentedHeaders(channel: channel.id.text), body: Self.payload)
            #expect(UUID(uuidString: generated.headers["apns-request-id"] ?? "") != nil)
            #expect(Set(try await receiver.broadcasts(bundleID: Self.app).compactMap(\.uniqueID)).count == 3)
        }
    }

    /// A broadcast ActivityKit cannot read is accepted (APNs does not read it) and reaches no
    /// activity; the admin API says why, in the words a push to a token gets.
    @Test func aBroadcastActivityKitCannotReadSaysWhyItReachedNoActivity() async throws {
        try await Receiver.withTesting { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored)
            for (id, body) in [
                ("00000000-0000-4000-8000-0000000000c1", Self.payload),
                ("00000000-0000-4000-8000-0000000000c2", #"{"aps":{"event":"update","content-state":{}}}"#),
            ] {
                let answer = try await ChannelManagementLiveTests.curl(
                    "POST", "/4/broadcasts/apps/\(Self.app)", port: try #require(receiver.tlsPort),
                    headers: Self.documentedHeaders(channel: channel.id.text) + ["apns-request-id: \(id)"], body: body)
                #expect(answer.status == 200, "\(answer.body)")
            }
            let listed = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/broadcasts")
            let broadcasts = try #require(listed.json["broadcasts"] as? [[String: Any]])
            #expect(
                broadcasts.map { $0["requestId"] as? String } == ["00000000-0000-4000-8000-0000000000c2", "00000000-0000-4000-8000-0000000000c1"])
            #expect(broadcasts.first?["ignored"] as? String == "Live Activity push ignored: no aps.timestamp")
            #expect(broadcasts.last?["ignored"] is NSNull)
        }
    }

    @Test func everyReasonWithApplesStatusInCleartext() async throws {
        try await Receiver.withTesting({ configuration in
            var off = AppDeclaration(permittedTaskIdentifiers: [], backgroundModes: [])
            off.broadcast = false
            configuration.apps["com.example.off"] = off
        }) { receiver in
            let port = try #require(receiver.h2cPort)
            let none = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored).id.text
            let stored = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .mostRecentMessageStored).id.text
            let path = "/4/broadcasts/apps/\(Self.app)"
            func headers(_ name: String, _ value: String?, channel: String = none) -> [String] {
                var fields = Self.documentedHeaders(channel: channel).filter { !$0.hasPrefix(name + ":") }
                if let value { fields.append("\(name): \(value)") }
                return fields
            }
            let large = #"{"aps":{},"f":""# + String(repeating: "x", count: 5200) + #""}"#
            let cases: [(method: String, path: String, headers: [String], body: String?, token: String?, status: Int, reason: String)] = [
                ("POST", path, headers("apns-channel-id", nil), Self.payload, nil, 400, "MissingChannelId"),
                ("POST", path, headers("apns-channel-id", "not*base64"), Self.payload, nil, 400, "BadChannelId"),
                ("POST", path, headers("apns-channel-id", "dHN0LXNyY2gtY2hubA=="), Self.payload, nil, 400, "ChannelNotRegistered"),
                ("POST", path, headers("apns-push-type", nil), Self.payload, nil, 400, "MissingPushType"),
                ("POST", path, headers("apns-push-type", "alert"), Self.payload, nil, 400, "InvalidPushType"),
                ("POST", path, headers("apns-priority", nil), Self.payload, nil, 400, "BadPriority"),
                ("POST", path, headers("apns-priority", "7"), Self.payload, nil, 400, "BadPriority"),
                ("POST", path, headers("apns-expiration", nil), Self.payload, nil, 400, "BadExpirationDate"),
                ("POST", path, headers("apns-expiration", "1767225600"), Self.payload, nil, 400, "BadExpirationDate"),
                ("POST", path, headers("apns-request-id", "nope"), Self.payload, nil, 400, "BadMessageId"),
                ("POST", path, headers("apns-priority", "5") + ["apns-priority: 10"], Self.payload, nil, 400, "DuplicateHeaders"),
                ("POST", path, headers("apns-channel-id", none), "", nil, 400, "PayloadEmpty"),
                ("POST", path, headers("apns-channel-id", none), "{nope", nil, 400, "BadRequestPayload"),
                ("POST", path, headers("apns-channel-id", none), large, nil, 413, "PayloadTooLarge"),
                ("POST", "/4/broadcasts/apps/\(Self.app).voip", headers("apns-channel-id", none), Self.payload, nil, 400, "TopicDisallowed"),
                (
                    "POST", "/4/broadcasts/apps/\(String(repeating: "a", count: 256))", headers("apns-channel-id", none), Self.payload, nil, 400,
                    "TopicDisallowed"
                ),
                ("POST", "/4/broadcasts/apps/com.example.off", headers("apns-channel-id", none), Self.payload, nil, 400, "FeatureNotEnabled"),
                ("POST", path, headers("apns-channel-id", none), Self.payload, "", 403, "MissingProviderToken"),
                ("POST", path, headers("apns-channel-id", none), Self.payload, "e30.e30.e30", 403, "InvalidProviderToken"),
                ("POST", "/4/broadcasts/\(Self.app)", headers("apns-channel-id", none), Self.payload, nil, 404, "BadPath"),
                ("GET", path, headers("apns-channel-id", none), nil, nil, 405, "MethodNotAllowed"),
            ]
            for item in cases {
                let answer = try await ChannelManagementLiveTests.curl(
                    item.method, item.path, port: port, tls: false, headers: item.headers, body: item.body, token: item.token)
                #expect(answer.status == item.status, "\(item.reason): \(answer.body)")
                #expect(answer.reason() == item.reason, "\(item.method) \(item.path) \(item.headers)")
                #expect(answer.headers["content-type"] == "application/json", "\(item.reason)")
                #expect(UUID(uuidString: answer.headers["apns-request-id"] ?? "") != nil, "\(item.reason)")
            }
            // A channel that stores its latest message takes a later expiration; none was taken before.
            #expect(try await receiver.broadcasts(bundleID: Self.app).isEmpty)
            let kept = try await ChannelManagementLiveTests.curl(
                "POST", path, port: port, tls: false, headers: headers("apns-expiration", "1767225600", channel: stored), body: Self.payload)
            #expect(kept.status == 200)
            #expect(try await receiver.broadcasts(bundleID: Self.app).map(\.expiration) == [1_767_225_600])

            // A key that may not send for the app: TopicMismatch.
            receiver.updateProviderKey(DevProviderToken.keyID) { $0.topics = ["com.other.app"] }
            let mismatch = try await ChannelManagementLiveTests.curl(
                "POST", path, port: port, tls: false, headers: headers("x", nil), body: Self.payload)
            #expect(mismatch.status == 403)
            #expect(mismatch.reason() == "TopicMismatch")
        }
    }

    @Test func productionAnswersNoUniqueID() async throws {
        try await Receiver.withTesting({ $0.environment = .production }) { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored)
            let answer = try await ChannelManagementLiveTests.curl(
                "POST", "/4/broadcasts/apps/\(Self.app)", port: try #require(receiver.h2cPort), tls: false,
                headers: Self.documentedHeaders(channel: channel.id.text), body: Self.payload)
            #expect(answer.status == 200)
            #expect(answer.headers["apns-unique-id"] == nil)
            #expect(try await receiver.broadcasts(bundleID: Self.app).first?.uniqueID == nil)
        }
    }
}
