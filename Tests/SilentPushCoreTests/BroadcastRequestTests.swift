import SilentPushCore
import Testing

/// A broadcast's headers and payload, checked as "Sending broadcast push notification
/// requests to APNs" and "Handling error responses from APNs" describe.
@Suite struct BroadcastRequestTests {
    struct Headers: APNsHeaderSource {
        var fields: [(String, String)]

        func forEachHeader(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
            for (name, value) in fields {
                try Array(name.utf8).withUnsafeBytes { name in try Array(value.utf8).withUnsafeBytes { try body(name, $0) } }
            }
        }
    }

    static let channel = "dHN0LXNyY2gtY2hubA=="
    /// The documented example's headers.
    static let documented: [(String, String)] = [
        ("apns-push-type", "liveactivity"), ("apns-expiration", "0"), ("apns-priority", "10"), ("apns-channel-id", channel),
    ]

    static func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var fields = documented.filter { $0.0 != name }
        if let value { fields.append((name, value)) }
        return fields
    }

    @Test func theDocumentedExampleReads() throws {
        let request = try BroadcastRequest(headers: Headers(fields: Self.documented))
        #expect(request == BroadcastRequest(channelID: try #require(ChannelID(header: Self.channel)), priority: .high, expiration: 0))
    }

    @Test(arguments: ["LiveActivity", "Liveactivity", "liveactivity"])
    func everySpellingApplesPagesShowIsTaken(_ spelling: String) throws {
        #expect(throws: Never.self) { try BroadcastRequest(headers: Headers(fields: Self.replacing("apns-push-type", with: spelling))) }
    }

    @Test(
        arguments: [
            ("apns-channel-id", nil, APNsReason.missingChannelId),
            ("apns-channel-id", "", .missingChannelId),
            ("apns-channel-id", "not*base64", .badChannelId),
            ("apns-channel-id", "dHN0LXNyY2gtY2hubA", .badChannelId),  // unpadded: not canonical
            ("apns-channel-id", String(repeating: "QUJD", count: 22), .badChannelId),  // 66 bytes: past the length
            ("apns-push-type", nil, .missingPushType),
            ("apns-push-type", "alert", .invalidPushType),
            ("apns-push-type", "LIVEACTIVITY", .invalidPushType),
            ("apns-priority", nil, .badPriority),
            ("apns-priority", "3", .badPriority),
            ("apns-priority", "ten", .badPriority),
            ("apns-priority", "99999999999999999999999", .badPriority),
            ("apns-expiration", nil, .badExpirationDate),
            ("apns-expiration", "-1", .badExpirationDate),
            ("apns-expiration", "1.5", .badExpirationDate),
            ("apns-expiration", "99999999999999999999999", .badExpirationDate),
        ] as [(String, String?, APNsReason)])
    func eachHeaderIsRefusedWithItsReason(name: String, value: String?, reason: APNsReason) {
        #expect(throws: reason) { try BroadcastRequest(headers: Headers(fields: Self.replacing(name, with: value))) }
    }

    @Test(arguments: ["apns-channel-id", "apns-priority", "apns-request-id", "authorization"])
    func aHeaderTwiceIsDuplicateHeaders(_ name: String) {
        let fields = Self.documented + [(name, "x"), (name, "y")]
        #expect(throws: APNsReason.duplicateHeaders) { try BroadcastRequest(headers: Headers(fields: fields)) }
    }

    @Test func aChannelThatStoresNothingTakesOnlyExpirationZero() throws {
        let id = try #require(ChannelID(header: Self.channel))
        func channel(_ policy: MessageStoragePolicy) -> BroadcastChannel {
            BroadcastChannel(
                id: id, bundleID: "com.example.MyApp", environment: .sandbox, configuration: ChannelConfiguration(storagePolicy: policy),
                createdAt: 0)
        }
        let later = BroadcastRequest(channelID: id, priority: .normal, expiration: 1_767_225_600)
        let now = BroadcastRequest(channelID: id, priority: .normal, expiration: 0)
        #expect(throws: APNsReason.badExpirationDate) { try later.check(against: channel(.noMessageStored)) }
        #expect(throws: Never.self) { try now.check(against: channel(.noMessageStored)) }
        #expect(throws: Never.self) { try later.check(against: channel(.mostRecentMessageStored)) }
    }

    @Test func thePayloadIsAJSONObjectOfAtMost5120Bytes() {
        #expect(throws: APNsReason.payloadEmpty) { try BroadcastRequest.checkPayload([]) }
        #expect(throws: APNsReason.badRequestPayload) { try BroadcastRequest.checkPayload(Array("[1]".utf8)) }
        let filler = String(repeating: "x", count: 5120 - #"{"aps":{},"f":""}"#.utf8.count)
        let largest = Array(#"{"aps":{},"f":"\#(filler)"}"#.utf8)
        #expect(largest.count == 5120)
        #expect(throws: Never.self) { try BroadcastRequest.checkPayload(largest) }
        #expect(throws: APNsReason.payloadTooLarge) { try BroadcastRequest.checkPayload(largest + [0x20]) }
    }
}
