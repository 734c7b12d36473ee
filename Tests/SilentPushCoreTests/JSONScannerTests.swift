import Foundation
import SilentPushCore
import Testing

@Suite struct JSONScannerTests {
    static func validate(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            return (try? scanner.skipValue()).map { (try? scanner.expectEnd()) != nil } ?? false
        }
    }

    @Test(arguments: [
        "{}", "[]", "0", "-0", "1.5e10", "-2.25E-3", "\"\"", "true", "false", "null", " { \"a\" : [1, {\"b\": null}] } ",
        #"{"s":"\u00e9\n\t\"\\\/"}"#, #"{"emoji":"\ud83d\ude00"}"#, "{\"é\":\"ü\"}", "[[[[[]]]]]",
    ])
    func acceptsValidJSON(text: String) {
        #expect(Self.validate(text))
    }

    @Test(arguments: [
        "", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "01", "1.", ".5", "1e", "+1", "tru", "nul", "{a:1}",
        "\"unterminated", "\"\u{01}\"", #""\x""#, #""\u12""#, #""\ud83d""#, #""\ude00""#, "{} {}", "[1 2]", "NaN",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(!Self.validate(text))
    }

    @Test func rejectsInvalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
        ] {
            let valid = bytes.withUnsafeBufferPointer { buffer -> Bool in
                var scanner = JSONScanner(buffer)
                return (try? scanner.skipValue()) != nil
            }
            #expect(!valid, "\(bytes)")
        }
    }

    @Test func refusesNestingPastTheLimit() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(!Self.validate(deep))
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(Self.validate(fine))
    }

    @Test func agreesWithFoundationOnStrings() throws {
        let text = #"{"k":"a\"b\\c\/d\u0041\u00e9\ud83d\ude00 end"}"#
        var value: String?
        try Array(text.utf8).withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            try scanner.readObject { scanner, _ in value = try scanner.readString() }
        }
        let expected = try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])?["k"])
        #expect(value == expected)
    }
}

@Suite struct APNsPayloadTests {
    static func parse(_ text: String) throws(APNsReason) -> APNsPayload {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(APNsReason) in try APNsPayload.parse(buffer) }
    }

    @Test func readsASilentPush() throws {
        let payload = try Self.parse(#"{"aps":{"content-available":1},"feed":"news","n":3,"nested":{"a":[1]}}"#)
        #expect(payload.isBackgroundOnly)
        #expect(payload.customValue("feed") == "news")
        #expect(payload.customValue("n") == "3")
        #expect(payload.customValue("nested") == nil)
        #expect(payload.customValues.map(\.key) == ["feed", "n", "nested"])
    }

    @Test func contentAvailableMustBeTheNumberOne() throws {
        #expect(try !Self.parse(#"{"aps":{"content-available":"1"}}"#).contentAvailable)
        #expect(try !Self.parse(#"{"aps":{"content-available":0}}"#).contentAvailable)
        #expect(try Self.parse(#"{"aps":{"content-available":1}}"#).contentAvailable)
    }

    /// Whitespace around `:` and `,` (as `json.dumps` and pretty printers write) reads the same,
    /// including values the parser looks at and leaves (`content-available` not 1).
    @Test(arguments: [
        #"{"aps":{"content-available":true}}"#, #"{"aps":{"content-available":"1","alert":"hi"},"feed":"news"}"#,
        #"{"aps":{"content-changed":1}}"#, #"{"aps":{"content-changed":true,"badge":2},"n":3}"#,
        #"{"aps":{"content-available":1},"nested":{"a":[1, 2]}}"#, #"{"aps":"text"}"#,
    ])
    func spacedPayloadsReadAsCompactOnes(_ compact: String) throws {
        let spaced = compact.replacingOccurrences(of: ":", with: " : \n\t").replacingOccurrences(of: ",", with: " ,\r\n ")
        #expect(try Self.parse(spaced) == Self.parse(compact), "\(spaced)")
    }

    @Test func alertBadgeAndSoundAreSeen() throws {
        let payload = try Self.parse(#"{"aps":{"content-available":1,"alert":{"title":"t"},"badge":2,"sound":"default"}}"#)
        #expect(payload.hasAlert && payload.hasBadge && payload.hasSound)
        #expect(!payload.isBackgroundOnly)
    }

    @Test func emptyAndMalformedPayloads() {
        #expect(throws: APNsReason.payloadEmpty) { try Self.parse("") }
        #expect(throws: APNsReason.badRequestPayload) { try Self.parse("[]") }
        #expect(throws: APNsReason.badRequestPayload) { try Self.parse("\"aps\"") }
        #expect(throws: APNsReason.badRequestPayload) { try Self.parse(#"{"aps":{"content-available":1}"#) }
        #expect(throws: APNsReason.badRequestPayload) { try Self.parse(#"{"aps":{}} trailing"#) }
    }
}

@Suite struct ProviderTokenTests {
    static func jwt(header: String, claims: String, signature: [UInt8] = [1, 2, 3]) -> Substring {
        Substring(Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + "." + Base64URL.encode(signature))
    }

    @Test func base64URLRoundTrips() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(Array(text.utf8)) == bytes)
        }
        #expect(Base64URL.decode(Array("ab*c".utf8)) == nil)
        #expect(Base64URL.decode(Array("a".utf8)) == nil)
    }

    @Test func parsesHeaderAndClaims() throws {
        let token = try ProviderToken.parse(
            Self.jwt(header: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claims: #"{"iss":"DEF123GHIJ","iat":1437179036}"#))
        #expect(token.keyID == "ABC123DEFG")
        #expect(token.teamID == "DEF123GHIJ")
        #expect(token.issuedAt == 1_437_179_036)
        #expect(token.signature == [1, 2, 3])
        let input = String(decoding: token.signingInput, as: UTF8.self)
        #expect(input.split(separator: ".").count == 2)
    }

    /// RFC 7519 NumericDate: a fraction (Python clients send `time.time()`), kept in whole seconds.
    @Test func iatMayBeAFraction() throws {
        let token = try ProviderToken.parse(Self.jwt(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":1437179036.75}"#))
        #expect(token.issuedAt == 1_437_179_036)
    }

    @Test func iatMayBeANumericString() throws {
        let token = try ProviderToken.parse(Self.jwt(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":"1437179036"}"#))
        #expect(token.issuedAt == 1_437_179_036)
    }

    @Test(arguments: [
        (#"{"alg":"HS256","kid":"K"}"#, #"{"iss":"T","iat":1}"#),
        (#"{"alg":"ES256"}"#, #"{"iss":"T","iat":1}"#),
        (#"{"alg":"ES256","kid":"K"}"#, #"{"iat":1}"#),
        (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":"T","iat":"soon"}"#),
        (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":"T","iat":1e999}"#),  // a number, but beyond any date
        (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":"T","iat":-9223372036854775808}"#),
        (#"not json"#, #"{"iss":"T","iat":1}"#),
    ])
    func refusesMalformedTokens(header: String, claims: String) {
        #expect(throws: APNsReason.invalidProviderToken) { try ProviderToken.parse(Self.jwt(header: header, claims: claims)) }
    }

    @Test func refusesWrongShapes() {
        for text in ["", "a.b", "a.b.c.d", "..", "!!.!!.!!"] {
            #expect(throws: APNsReason.invalidProviderToken) { try ProviderToken.parse(Substring(text)) }
        }
    }
}

@Suite struct DeviceRegistryTests {
    @Test func unregisteredAndExpiredTokensCarryTheirTimes() {
        var registry = DeviceRegistry()
        registry.unregister("AA", at: 5)
        registry.expire("bb", at: 7)
        #expect(throws: APNsRejection(.unregistered, timestamp: 5)) { try registry.admit(token: "aa", topic: "t") }
        #expect(throws: APNsRejection(.expiredToken, timestamp: 7)) { try registry.admit(token: "bb", topic: "t") }
        registry.register("aa", topics: ["t"])
        #expect(throws: Never.self) { try registry.admit(token: "aa", topic: "t") }
    }

    @Test func aTokenSeenFirstTakesAnyTopic() {
        var registry = DeviceRegistry()
        #expect(throws: Never.self) { try registry.admit(token: "aa", topic: "com.a") }
        #expect(throws: Never.self) { try registry.admit(token: "aa", topic: "com.b") }
        #expect(registry.count == 0)  // nothing kept for a token merely accepted
    }

    @Test func registeredTokensTakeOnlyTheirTopics() {
        var registry = DeviceRegistry(mode: .registeredOnly)
        registry.register("aa", topics: ["t1", "t2"])
        #expect(throws: Never.self) { try registry.admit(token: "aa", topic: "t2") }
        #expect(throws: APNsRejection(.deviceTokenNotForTopic)) { try registry.admit(token: "aa", topic: "t3") }
        #expect(throws: APNsRejection(.badDeviceToken)) { try registry.admit(token: "cc", topic: "t1") }
    }

    @Test func theRateLimiterRefillsEvenly() {
        var limiter = TokenRateLimiter(limit: 2, window: .seconds(10))
        #expect(throws: Never.self) { try limiter.admit(token: "a", now: 0) }
        #expect(throws: Never.self) { try limiter.admit(token: "a", now: 0) }
        #expect(throws: APNsReason.tooManyRequests) { try limiter.admit(token: "a", now: 100) }
        #expect(throws: Never.self) { try limiter.admit(token: "b", now: 100) }
        #expect(throws: Never.self) { try limiter.admit(token: "a", now: 5_000) }
    }

    /// A token whose bucket has refilled costs nothing: 200,000 tokens, each pushed 1 ms
    /// apart, leave the limiter holding about the last half second's worth, not all of them.
    @Test func theRateLimiterForgetsTokensWhoseBucketRefilled() throws {
        var limiter = TokenRateLimiter(limit: 2, window: .seconds(1))
        for n in 0..<200_000 { try limiter.admit(token: String(n), now: Int64(n)) }
        #expect(limiter.trackedTokens < 4_096, "\(limiter.trackedTokens)")
        // A token still limited keeps its bucket through a sweep.
        var limited = TokenRateLimiter(limit: 1, window: .seconds(3600))
        try limited.admit(token: "hot", now: 0)
        for n in 0..<5_000 { try limited.admit(token: String(n), now: 1) }
        #expect(throws: APNsReason.tooManyRequests) { try limited.admit(token: "hot", now: 2) }
    }

    @Test func theCacheKeepsItsBound() {
        var cache = BoundedCache<Int, Int>(capacity: 8)
        for key in 0..<100 { cache.insert(key, for: key) }
        #expect(cache.count <= 8)
        #expect(cache.value(for: 99) == 99)
        #expect(cache.value(for: 0) == nil)
    }
}

@Suite struct ClientCertificateIdentityTests {
    /// The DER of the dev client certificate's extension: app, voip, complication topics.
    static let extensionDER: [UInt8] = {
        func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }
        func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }
        let inner = utf8("com.example.app") + tlv(0x30, utf8("app")) + utf8("com.example.app.voip") + tlv(0x30, utf8("voip"))
        return tlv(0x30, inner)
    }()

    @Test func topicsComeFromTheUIDAndTheExtension() throws {
        let identity = ClientCertificateIdentity(
            subjectUID: "com.example.app", topicExtension: Self.extensionDER, development: false, production: false)
        #expect(identity.topics == ["com.example.app", "com.example.app.voip"])
        #expect(try identity.topic(for: "com.example.app.voip", environment: .sandbox) == "com.example.app.voip")
        #expect(throws: APNsReason.badTopic) { try identity.topic(for: "com.other", environment: .sandbox) }
        #expect(throws: APNsReason.missingTopic) { try identity.topic(for: nil, environment: .sandbox) }
    }

    @Test func aSingleTopicIsTheDefault() throws {
        let identity = ClientCertificateIdentity(subjectUID: "com.example.app", topicExtension: nil, development: true, production: false)
        #expect(try identity.topic(for: nil, environment: .sandbox) == "com.example.app")
        #expect(throws: APNsReason.badCertificateEnvironment) { try identity.topic(for: nil, environment: .production) }
    }

    @Test func noTopicsIsABadCertificate() {
        let identity = ClientCertificateIdentity(subjectUID: nil, topicExtension: [0x30, 0x80, 0x00], development: false, production: false)
        #expect(identity.topics.isEmpty)
        #expect(throws: APNsReason.badCertificate) { try identity.topic(for: "x", environment: .sandbox) }
    }
}

@Suite struct APNsPushTypeTests {
    @Test(arguments: [
        (APNsPushType.voip, "com.a.voip", true), (.voip, "com.a", false), (.alert, "com.a.voip", false), (.alert, "com.a", true),
        (.complication, "com.a.complication", true), (.liveactivity, "com.a.push-type.liveactivity", true), (.widgets, "com.a", false),
        (.mdm, "com.apple.mgmt.External.x", true), (.background, "com.a", true), (.fileprovider, "com.a.pushkit.fileprovider", true),
        (.voip, ".voip", false),
    ])
    func topicsMatchTheirTypes(type: APNsPushType, topic: String, accepted: Bool) {
        #expect(type.accepts(topic: topic) == accepted)
    }
}
