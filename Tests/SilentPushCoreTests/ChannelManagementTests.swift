import SilentPushCore
import Testing

@Suite struct ChannelRouteTests {
    @Test(arguments: [
        ("POST", "/1/apps/com.example.MyApp/channels", ChannelRoute.create(bundleID: "com.example.MyApp")),
        ("GET", "/1/apps/com.example.MyApp/channels", .read(bundleID: "com.example.MyApp")),
        ("DELETE", "/1/apps/com.example.MyApp/channels", .delete(bundleID: "com.example.MyApp")),
        ("GET", "/1/apps/com.example.MyApp/all-channels", .list(bundleID: "com.example.MyApp")),
        ("PUT", "/1/apps/com.example.MyApp/channels", .methodNotAllowed),
        ("POST", "/1/apps/com.example.MyApp/all-channels", .methodNotAllowed),
        ("DELETE", "/1/apps/com.example.MyApp/all-channels", .methodNotAllowed),
        ("POST", "/1/apps//channels", .badPath),
        ("POST", "/1/apps/com.example.MyApp/channels?x=1", .badPath),
        ("POST", "/1/apps/com.example.MyApp/channels/", .badPath),
        ("POST", "/1/apps/com.example.MyApp/channel", .badPath),
        ("POST", "/2/apps/com.example.MyApp/channels", .badPath),
        ("POST", "/3/device/abcdef", .badPath),
        ("POST", "1/apps/com.example.MyApp/channels", .badPath),
        ("GET", "/", .badPath),
        ("GET", "", .badPath),
    ])
    func routes(method: String, path: String, expected: ChannelRoute) {
        #expect(ChannelRoute(method: method, path: path) == expected)
    }
}

@Suite struct Base64Tests {
    @Test func roundTripsEveryLengthAndPadsToFour() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64.encode(bytes)
            #expect(text.utf8.count % 4 == 0)
            #expect(Base64.decode(text.utf8) == bytes)
        }
        #expect(Base64.encode(Array("tst-srch-chnl".utf8)) == "dHN0LXNyY2gtY2hubA==")
    }

    @Test(arguments: [
        "dHN0LXNyY2gtY2hubA", "dHN0LXNyY2gtY2hubA=", "dHN0LXNyY2gtY2hubA===", "dHN0-XNyY2gtY2hubA==", "dH=0LXNy", "dHN0LXNyY2gtY2hubB==", "====",
        "YQ=a",
    ])
    func refusesWhatACanonicalEncoderNeverWrites(text: String) {
        #expect(Base64.decode(text.utf8) == nil)
    }
}

@Suite struct ChannelIDTests {
    @Test func readsApplesExampleAndRefusesOthers() {
        #expect(ChannelID(header: "dHN0LXNyY2gtY2hubA==")?.text == "dHN0LXNyY2gtY2hubA==")
        #expect(ChannelID(header: "") == nil)
        #expect(ChannelID(header: "not base64!") == nil)
        #expect(ChannelID(header: "dHN0LXNyY2gtY2hubA") == nil, "unpadded")
        let longest = Base64.encode([UInt8](repeating: 7, count: ChannelID.maximumBytes))
        #expect(ChannelID(header: longest) != nil)
        #expect(ChannelID(header: Base64.encode([UInt8](repeating: 7, count: ChannelID.maximumBytes + 1))) == nil, "longer than allowed")
    }

    @Test func newIdsAreTheirBytesInBase64() {
        let id = ChannelID(bytes: [UInt8](0..<16))
        #expect(id.text.utf8.count == 24)
        #expect(ChannelID(header: id.text) == id)
    }
}

@Suite struct ChannelConfigurationTests {
    @Test(arguments: [
        (#"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#, MessageStoragePolicy.mostRecentMessageStored),
        (#"{"message-storage-policy":0,"push-type":"Liveactivity"}"#, .noMessageStored),
        (#" {"push-type": "liveactivity", "message-storage-policy": 0} "#, .noMessageStored),
    ])
    func readsEverySpellingApplesPagesShow(body: String, policy: MessageStoragePolicy) throws {
        #expect(try ChannelConfiguration(parsing: Array(body.utf8)).storagePolicy == policy)
    }

    @Test(arguments: [
        ("", APNsReason.payloadEmpty),
        ("{", .badRequestPayload),
        ("[]", .badRequestPayload),
        (#""LiveActivity""#, .badRequestPayload),
        (#"{"message-storage-policy": 1, "push-type": "LiveActivity"} x"#, .badRequestPayload),
        (#"{"message-storage-policy": 1}"#, .missingPushType),
        (#"{"message-storage-policy": 1, "push-type": "alert"}"#, .invalidPushType),
        (#"{"message-storage-policy": 1, "push-type": "LIVEACTIVITY"}"#, .invalidPushType),
        (#"{"message-storage-policy": 1, "push-type": 1}"#, .invalidPushType),
        (#"{"push-type": "LiveActivity"}"#, .badRequestParams),
        (#"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#, .badRequestParams),
        (#"{"message-storage-policy": -1, "push-type": "LiveActivity"}"#, .badRequestParams),
        (#"{"message-storage-policy": 1.0, "push-type": "LiveActivity"}"#, .badRequestParams),
        (#"{"message-storage-policy": "1", "push-type": "LiveActivity"}"#, .badRequestParams),
        (#"{"message-storage-policy": 99999999999999999999999, "push-type": "LiveActivity"}"#, .badRequestParams),
        (#"{"message-storage-policy": 1, "push-type": "LiveActivity", "name": "x"}"#, .badRequestParams),
    ])
    func refusesAsAPNsDoes(body: String, reason: APNsReason) {
        #expect(throws: reason) { try ChannelConfiguration(parsing: Array(body.utf8)) }
    }

    @Test func answersAReadWithApplesFields() {
        #expect(ChannelConfiguration(storagePolicy: .mostRecentMessageStored).json == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
    }
}

@Suite struct ChannelTableTests {
    private func channel(_ byte: UInt8, app: String = "com.example.app", environment: APNsEnvironment = .sandbox, at: Int64 = 0) -> BroadcastChannel {
        BroadcastChannel(
            id: ChannelID(bytes: [byte]), bundleID: app, environment: environment,
            configuration: ChannelConfiguration(storagePolicy: .noMessageStored), createdAt: at)
    }

    @Test func keepsEnvironmentsAndAppsApart() throws {
        var table = ChannelTable()
        table.insert(channel(1))
        #expect(try table.channel(ChannelID(bytes: [1]), bundleID: "com.example.app", environment: .sandbox) == channel(1))
        #expect(throws: APNsReason.channelNotRegistered) {
            try table.channel(ChannelID(bytes: [1]), bundleID: "com.example.app", environment: .production)
        }
        #expect(throws: APNsReason.channelNotRegistered) {
            try table.channel(ChannelID(bytes: [1]), bundleID: "com.example.other", environment: .sandbox)
        }
        #expect(table.channels(bundleID: "com.example.app", environment: .production).isEmpty)
    }

    @Test func refusesTheChannelPastTheLimitPerAppAndEnvironment() throws {
        var table = ChannelTable(limit: 3)
        for byte in 1...3 as ClosedRange<UInt8> {
            try table.admitsAnother(bundleID: "com.example.app", environment: .sandbox)
            table.insert(channel(byte, at: Int64(byte)))
        }
        #expect(throws: APNsReason.cannotCreateChannelConfig) { try table.admitsAnother(bundleID: "com.example.app", environment: .sandbox) }
        try table.admitsAnother(bundleID: "com.example.app", environment: .production)
        try table.admitsAnother(bundleID: "com.example.other", environment: .sandbox)
        #expect(table.remove(ChannelID(bytes: [2]), bundleID: "com.example.app", environment: .sandbox) != nil)
        #expect(table.remove(ChannelID(bytes: [2]), bundleID: "com.example.app", environment: .sandbox) == nil, "deleted once")
        try table.admitsAnother(bundleID: "com.example.app", environment: .sandbox)
        #expect(table.channels(bundleID: "com.example.app", environment: .sandbox).map(\.createdAt) == [1, 3])
        #expect(ChannelTable.defaultLimit == 10_000)
    }

    @Test func channelReasonsHaveApplesStatuses() {
        for reason in [
            APNsReason.featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams, .missingPushType,
            .cannotCreateChannelConfig,
        ] {
            #expect(reason.status == 400, "\(reason)")
        }
        #expect(APNsReason.topicMismatch.status == 403)
        #expect(APNsReason.topicMismatch.rawValue == "TopicMismatch")
    }
}
