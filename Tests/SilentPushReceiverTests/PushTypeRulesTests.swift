import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// Each push type held to its own rules on `/3/device`, through the endpoint in memory.
@Suite struct PushTypeRulesTests {
    static func headers(type: APNsPushType, priority: String = "10", jwt: String?) -> [(String, String)] {
        var headers = [("apns-topic", SamplePush.topic + (type.topicSuffix ?? "")), ("apns-push-type", type.rawValue), ("apns-priority", priority)]
        if let jwt { headers.append(("authorization", "bearer \(jwt)")) }
        return headers
    }

    /// A client certificate whose subject UID is `topic`, signed by a throwaway key: the
    /// endpoint reads the certificate's topics, the handshake (not run here) checks its chain.
    static func certificate(naming topic: String) async throws -> String {
        let directory = Scratch.directory.appendingPathComponent("cert-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try await PeerProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", directory + "/key.pem",
                "-out", directory + "/cert.pem", "-days", "1", "-subj", "/UID=\(topic)/CN=Apple Push Services: \(topic)",
            ])
        #expect(result.status == 0, "\(result.errorOutput)")
        return directory + "/cert.pem"
    }

    @Test func locationTakesOnlyTokens() async throws {
        let harness = try APNsEndpointHarness()
        let body = Array(#"{"aps":{}}"#.utf8)
        let token = harness.send(headers: Self.headers(type: .location, jwt: try harness.token()), body: body)
        #expect(token.status == 200)
        let pem = try await Self.certificate(naming: SamplePush.topic + ".location-query")
        defer { try? FileManager.default.removeItem(atPath: (pem as NSString).deletingLastPathComponent) }
        let certificate = harness.send(
            headers: Self.headers(type: .location, jwt: nil), body: body, connection: try APNsEndpointHarness.certificateConnection(pem))
        #expect(certificate.status == 400)
        #expect(certificate.reason == "InvalidPushType")
        // Apple's own certificates name no `.location-query` topic: BadTopic comes first.
        let apple = harness.send(
            headers: Self.headers(type: .location, jwt: nil), body: body,
            connection: try APNsEndpointHarness.certificateConnection(DevCertificates.clientCertificate))
        #expect(apple.reason == "BadTopic")
        #expect(harness.sink.accepted.count == 1)
    }

    @Test func pushToTalkIsRefusedOnlyWhenStrict() throws {
        let body = Array(#"{"aps":{}}"#.utf8)
        let lenient = try APNsEndpointHarness()
        #expect(lenient.send(headers: Self.headers(type: .pushtotalk, priority: "5", jwt: try lenient.token()), body: body).status == 200)
        #expect(
            lenient.sink.accepted.first?.warnings == [
                "priority 5 on a pushtotalk push (Apple asks for 10)",
                "no apns-expiration on a pushtotalk push (Apple asks for 0; without one APNs stores it for an offline device)",
            ])
        let strict = try APNsEndpointHarness(strict: true)
        let refused = strict.send(headers: Self.headers(type: .pushtotalk, priority: "5", jwt: try strict.token()), body: body)
        #expect(refused.reason == "BadPriority")
    }

    @Test func aLiveActivityPushActivityKitCannotUseIsAcceptedAndMarked() throws {
        let harness = try APNsEndpointHarness()
        let answer = harness.send(
            headers: Self.headers(type: .liveactivity, jwt: try harness.token()),
            body: Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8))
        #expect(answer.status == 200)
        #expect(harness.sink.accepted.first?.neverWakesReason == .liveActivityPayload(.missingTimestamp))
        let widgets = harness.send(headers: Self.headers(type: .widgets, jwt: try harness.token()), body: Array(#"{"aps":{}}"#.utf8))
        #expect(widgets.status == 200)
        #expect(harness.sink.accepted.last?.neverWakesReason == .noContentChanged(.widgets))
    }
}
