import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import SilentPushTransport
import Testing

/// Every reason of APNs that one request can trigger, each with its status, and the
/// boundaries. Each case is one request on a fresh connection of a fresh endpoint.
@Suite struct APNsReasonTableTests {
    /// One request and the answer it must get (nil reason: 200).
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let status: Int
        let reason: APNsReason?
        let strict: Bool
        let build: @Sendable (APNsEndpointHarness) throws -> Request

        var testDescription: String { "\(name) → \(status) \(reason?.rawValue ?? "")" }

        init(
            _ name: String, _ status: Int, _ reason: APNsReason?, strict: Bool = false,
            _ build: @escaping @Sendable (APNsEndpointHarness) throws -> Request
        ) {
            self.name = name
            self.status = status
            self.reason = reason
            self.strict = strict
            self.build = build
        }
    }

    struct Request {
        var method = "POST"
        var path = SamplePush.path
        var headers: [(String, String)]
        var body = SamplePush.payload
        var certificate: String?
    }

    /// A valid background push with a fresh dev token, then `change` applied to the headers.
    static func push(_ harness: APNsEndpointHarness, _ change: (inout [(String, String)]) throws -> Void = { _ in }) throws -> Request {
        var headers = SamplePush.headers(jwt: try harness.token())
        try change(&headers)
        return Request(headers: headers)
    }

    static func setting(_ name: String, _ value: String?) -> (inout [(String, String)]) -> Void {
        { headers in
            headers.removeAll { $0.0 == name }
            if let value { headers.append((name, value)) }
        }
    }

    static func payload(size: Int) -> [UInt8] {
        let shell = #"{"aps":{"content-available":1},"pad":""}"#.utf8.count
        return Array(#"{"aps":{"content-available":1},"pad":"\#(String(repeating: "x", count: size - shell))"}"#.utf8)
    }

    static let voipTopic = "com.example.app.voip"

    static let cases: [Case] = [
        // Accepted, and the boundaries on the accepted side.
        Case("a valid background push", 200, nil) { try push($0) },
        Case("collapse id of 64 bytes", 200, nil) { try push($0, setting("apns-collapse-id", String(repeating: "c", count: 64))) },
        Case("payload of 4096 bytes", 200, nil) {
            var r = try push($0); r.body = payload(size: 4096); return r
        },
        Case("voip payload of 5120 bytes", 200, nil) {
            var r = try push($0) {
                $0 =
                    SamplePush.headers(jwt: nil).filter { $0.0 != "apns-topic" && $0.0 != "apns-push-type" } + [
                        ("apns-topic", voipTopic), ("apns-push-type", "voip"),
                    ]
            }
            r.headers.append(("authorization", "bearer \(try $0.token())"))
            r.body = payload(size: 5120)
            return r
        },
        Case("priority 1", 200, nil) { try push($0, setting("apns-priority", "1")) },
        Case("priority 5", 200, nil) { try push($0, setting("apns-priority", "5")) },
        Case("priority 10 on a background push (lenient)", 200, nil) { try push($0, setting("apns-priority", "10")) },
        Case("priority 10 on an alert push", 200, nil) {
            var r = try push($0) {
                $0 = $0.filter { $0.0 != "apns-push-type" && $0.0 != "apns-priority" } + [("apns-push-type", "alert"), ("apns-priority", "10")]
            }
            r.body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
            return r
        },
        Case("iat 59 minutes old", 200, nil) { try push($0, setting("authorization", "bearer \(try $0.token(age: 59 * 60))")) },
        Case("iat as a numeric string", 200, nil) { try push($0, setting("authorization", "bearer \(try $0.token(iatAsString: true))")) },
        Case("DER signature (openssl dgst -sign)", 200, nil) { try push($0, setting("authorization", "bearer \(try $0.token(der: true))")) },
        Case("a given apns-id", 200, nil) { try push($0, setting("apns-id", "123e4567-e89b-12d3-a456-4266554400a0")) },
        Case("expiration 0", 200, nil) { try push($0, setting("apns-expiration", "0")) },
        Case("client certificate, its topic", 200, nil) { _ in
            Request(headers: SamplePush.headers(jwt: nil), certificate: DevCertificates.clientCertificate)
        },

        // 400
        Case("collapse id of 65 bytes", 400, .badCollapseId) { try push($0, setting("apns-collapse-id", String(repeating: "c", count: 65))) },
        Case("device token not hex", 400, .badDeviceToken) {
            var r = try push($0); r.path = "/3/device/" + String(repeating: "z", count: 64); return r
        },
        Case("device token too short", 400, .badDeviceToken) {
            var r = try push($0); r.path = "/3/device/abcdef"; return r
        },
        Case("expiration not a number", 400, .badExpirationDate) { try push($0, setting("apns-expiration", "tomorrow")) },
        Case("expiration with a sign", 400, .badExpirationDate) { try push($0, setting("apns-expiration", "+5")) },
        Case("expiration past 2^63 - 1", 400, .badExpirationDate) { try push($0, setting("apns-expiration", "9223372036854775808")) },
        Case("priority with a sign", 400, .badPriority) { try push($0, setting("apns-priority", "+5")) },
        Case("apns-id not a UUID", 400, .badMessageId) { try push($0, setting("apns-id", "not-a-uuid")) },
        Case("priority 7", 400, .badPriority) { try push($0, setting("apns-priority", "7")) },
        Case("priority 10 on a background push (strict)", 400, .badPriority, strict: true) { try push($0, setting("apns-priority", "10")) },
        Case("client certificate, another topic", 400, .badTopic) { _ in
            Request(
                headers: SamplePush.headers(jwt: nil).map { $0.0 == "apns-topic" ? ($0.0, "com.other.app") : $0 },
                certificate: DevCertificates.clientCertificate)
        },
        Case("a topic with a space", 400, .badTopic) { try push($0, setting("apns-topic", "com example app")) },
        Case("a topic that is not ASCII", 400, .badTopic) { try push($0, setting("apns-topic", "com.exämple.app")) },
        Case("a topic of 256 bytes", 400, .badTopic) { try push($0, setting("apns-topic", String(repeating: "a", count: 256))) },
        Case("token registered to another topic", 400, .deviceTokenNotForTopic) { harness in
            harness.endpoint.withDevices { $0.register(SamplePush.deviceToken, topics: ["com.example.other"]) }
            return try push(harness)
        },
        Case("apns-topic twice", 400, .duplicateHeaders) { try push($0) { $0.append(("apns-topic", SamplePush.topic)) } },
        Case("unknown push type", 400, .invalidPushType) { try push($0, setting("apns-push-type", "fax")) },
        Case("voip push type, plain topic", 400, .invalidPushType) { try push($0, setting("apns-push-type", "voip")) },
        Case("alert push type, voip topic", 400, .invalidPushType) {
            try push($0) { $0 = $0.map { $0.0 == "apns-topic" ? ($0.0, voipTopic) : $0.0 == "apns-push-type" ? ($0.0, "alert") : $0 } }
        },
        Case("background push carrying an alert (strict)", 400, .invalidPushType, strict: true) {
            var r = try push($0); r.body = Array(#"{"aps":{"content-available":1,"alert":"x"}}"#.utf8); return r
        },
        Case("POST /3/device/", 400, .missingDeviceToken) {
            var r = try push($0); r.path = "/3/device/"; return r
        },
        // Refused before the headers are read: the provider's apns-id is echoed all the same.
        Case("POST /3/device/ with an apns-id", 400, .missingDeviceToken) {
            var r = try push($0, setting("apns-id", "00000000-0000-4000-8000-0000000090b1")); r.path = "/3/device/"; return r
        },
        Case("POST /3/foo with an apns-id", 404, .badPath) {
            var r = try push($0, setting("apns-id", "00000000-0000-4000-8000-0000000090b2")); r.path = "/3/foo"; return r
        },
        Case("apns-priority 7 with an apns-id", 400, .badPriority) {
            try push($0) { headers in
                setting("apns-id", "00000000-0000-4000-8000-0000000090b3")(&headers)
                setting("apns-priority", "7")(&headers)
            }
        },
        Case("no apns-topic", 400, .missingTopic) { try push($0, setting("apns-topic", nil)) },
        Case("client certificate with several topics, no apns-topic", 400, .missingTopic) { _ in
            Request(headers: SamplePush.headers(jwt: nil).filter { $0.0 != "apns-topic" }, certificate: DevCertificates.clientCertificate)
        },
        Case("empty payload", 400, .payloadEmpty) {
            var r = try push($0); r.body = []; return r
        },
        Case("payload not JSON", 400, .badRequestPayload) {
            var r = try push($0); r.body = Array(#"{"aps":{"content-available":1},"#.utf8); return r
        },
        Case("payload a JSON array", 400, .badRequestPayload) {
            var r = try push($0); r.body = Array("[1,2]".utf8); return r
        },
        Case("topic not among the key's", 400, .topicDisallowed) {
            try push($0, setting("authorization", "bearer \(try $0.token(keyID: "LIMITED001"))"))
        },

        // 403
        Case("server certificate as client certificate (no topics)", 403, .badCertificate) { _ in
            Request(headers: SamplePush.headers(jwt: nil), certificate: DevCertificates.serverCertificate)
        },
        Case("production certificate on the sandbox", 403, .badCertificateEnvironment) { _ in
            Request(headers: SamplePush.headers(jwt: nil), certificate: DevCertificates.clientProductionCertificate)
        },
        Case("iat 61 minutes old", 403, .expiredProviderToken) { try push($0, setting("authorization", "bearer \(try $0.token(age: 61 * 60))")) },
        Case("revoked key", 403, .forbidden) { try push($0, setting("authorization", "bearer \(try $0.token(keyID: "REVOKED001"))")) },
        Case("malformed token", 403, .invalidProviderToken) { try push($0, setting("authorization", "bearer not.a.jwt")) },
        Case("not a bearer token", 403, .invalidProviderToken) { try push($0, setting("authorization", "basic abc")) },
        Case("signature by another key", 403, .invalidProviderToken) {
            try push($0, setting("authorization", "bearer \(try $0.token(keyFile: DevCertificates.serverKey))"))
        },
        Case("alg HS256", 403, .invalidProviderToken) { try push($0, setting("authorization", "bearer \(try $0.token(algorithm: "HS256"))")) },
        Case("unknown key id", 403, .invalidProviderToken) { try push($0, setting("authorization", "bearer \(try $0.token(keyID: "NOSUCHKEY1"))")) },
        Case("team other than the key's", 403, .invalidProviderToken) {
            try push($0, setting("authorization", "bearer \(try $0.token(teamID: "OTHERTEAM0"))"))
        },
        Case("no authorization", 403, .missingProviderToken) { try push($0, setting("authorization", nil)) },
        Case("production key on the sandbox", 403, .badEnvironmentKeyIdInToken) {
            try push($0, setting("authorization", "bearer \(try $0.token(keyID: "PRODKEY001"))"))
        },

        // 404, 405
        Case("another path", 404, .badPath) {
            var r = try push($0); r.path = "/3/devices/abc"; return r
        },
        Case("GET", 405, .methodNotAllowed) {
            var r = try push($0); r.method = "GET"; return r
        },

        // 410
        Case("unregistered token", 410, .unregistered) { harness in
            harness.endpoint.withDevices { $0.unregister(SamplePush.deviceToken, at: 1_700_000_000_123) }
            return try push(harness)
        },
        Case("expired token", 410, .expiredToken) { harness in
            harness.endpoint.withDevices { $0.expire(SamplePush.deviceToken, at: 1_700_000_000_456) }
            return try push(harness)
        },

        // 413
        Case("payload of 4097 bytes", 413, .payloadTooLarge) {
            var r = try push($0); r.body = payload(size: 4097); return r
        },
        Case("voip payload of 5121 bytes", 413, .payloadTooLarge) {
            var r = try push($0) { $0 = $0.map { $0.0 == "apns-topic" ? ($0.0, voipTopic) : $0.0 == "apns-push-type" ? ($0.0, "voip") : $0 } }
            r.body = payload(size: 5121)
            return r
        },
    ]

    @Test(arguments: cases)
    func answer(_ testCase: Case) throws {
        let harness = try APNsEndpointHarness(strict: testCase.strict)
        let request = try testCase.build(harness)
        let connection = try request.certificate.map(APNsEndpointHarness.certificateConnection)
        let response = harness.send(method: request.method, path: request.path, headers: request.headers, body: request.body, connection: connection)

        #expect(response.status == testCase.status)
        let apnsID = try #require(response.headers.first("apns-id"))
        #expect(UUID(uuidString: apnsID) != nil)
        if let given = request.headers.first(where: { $0.0 == "apns-id" })?.1, APNsHeaders.isCanonicalUUID(given) {
            #expect(apnsID == given)
        }
        if let reason = testCase.reason {
            #expect(reason.status == testCase.status)
            #expect(response.headers.first("content-type") == "application/json")
            #expect(response.reason == reason.rawValue)
            #expect(harness.sink.accepted.isEmpty)
            if testCase.status == 410 { #expect(response.timestamp != nil) } else { #expect(response.timestamp == nil) }
        } else {
            #expect(response.body.isEmpty)
            #expect(harness.sink.accepted.count == 1)
            #expect(harness.sink.accepted.first?.apnsID == apnsID)
        }
    }

    @Test func timestampsOf410AreTheUnregistrationTimes() throws {
        let harness = try APNsEndpointHarness()
        harness.endpoint.withDevices { $0.unregister(SamplePush.deviceToken, at: 1_700_000_000_123) }
        let response = harness.send(headers: SamplePush.headers(jwt: try harness.token()))
        #expect(response.body == Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8))
    }

    @Test(arguments: [APNsReason.internalServerError, .serviceUnavailable, .shutdown])
    func refusalsOfTheDeviceSideKeepTheirStatus(reason: APNsReason) throws {
        let harness = try APNsEndpointHarness()
        harness.sink.refusal = reason
        let response = harness.send(headers: SamplePush.headers(jwt: try harness.token()))
        #expect(response.status == reason.status)
        #expect(response.reason == reason.rawValue)
    }

    /// The push API's reasons (SPEC §3) and those only the broadcast and channel-management
    /// APIs answer with (§14, Apple's "Handling error responses from APNs").
    @Test func everyReasonHasTheStatusOfSpecSections3And14() {
        let expected: [Int: Set<String>] = [
            400: [
                "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
                "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
                "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadRequestPayload",
                "FeatureNotEnabled", "MissingChannelId", "BadChannelId", "ChannelNotRegistered", "BadRequestParams", "MissingPushType",
                "CannotCreateChannelConfig",
            ],
            403: [
                "BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden", "InvalidProviderToken",
                "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "TopicMismatch",
            ],
            404: ["BadPath"], 405: ["MethodNotAllowed"], 410: ["ExpiredToken", "Unregistered"], 413: ["PayloadTooLarge"],
            429: ["TooManyProviderTokenUpdates", "TooManyRequests"], 500: ["InternalServerError"], 503: ["ServiceUnavailable", "Shutdown"],
        ]
        let actual = Dictionary(grouping: APNsReason.allCases, by: \.status).mapValues { Set($0.map(\.rawValue)) }
        #expect(actual == expected)
    }
}
