import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// Third-party APNs clients, unmodified, against the receiver over TLS with the dev CA.
@Suite(.serialized) struct LiveAPNsClientTests {
    static let root = Repository.root
    static let payload = root + "/payloads/background.json"

    /// A token made by the openssl CLI as in Apple's recipe: `openssl dgst -sha256 -sign` (DER).
    static func opensslToken() async throws -> String {
        let result = try await PeerProcess.run(root + "/scripts/dev-provider-token.sh", [])
        #expect(result.status == 0, "\(result.errorOutput)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func curlWithAnOpensslSignedTokenAsInApplesRecipe() async throws {
        let jwt = try await Self.opensslToken()
        #expect(jwt.split(separator: ".").count == 3)
        try await Receiver.withTesting { receiver in
            let ok = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-o", "/dev/stderr", "-w", "%{http_code}",
                    "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app", "-H", "apns-push-type: background",
                    "-H", "apns-priority: 5", "-d", "@\(Self.payload)", "https://localhost:\(receiver.tlsPort!)\(SamplePush.path)",
                ])
            #expect(ok.output == "200", "\(ok.errorOutput)")

            // The same token with its signature cut short is refused.
            let broken = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-H", "authorization: bearer \(jwt.dropLast(4))",
                    "-H", "apns-topic: com.example.app", "-d", "@\(Self.payload)", "https://localhost:\(receiver.tlsPort!)\(SamplePush.path)",
                ])
            #expect(broken.output == #"{"reason":"InvalidProviderToken"}"#)
        }
    }

    @Test func curlAnswersCarryApplesErrorShape() async throws {
        try await Receiver.withTesting { receiver in
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-D", "/dev/stderr",
                    "-H", "apns-topic: com.example.app", "-d", "@\(Self.payload)", "https://localhost:\(receiver.tlsPort!)\(SamplePush.path)",
                ])
            #expect(result.output == #"{"reason":"MissingProviderToken"}"#)
            #expect(result.errorOutput.hasPrefix("HTTP/2 403"))
            #expect(result.errorOutput.contains("content-type: application/json"))
            #expect(result.errorOutput.contains("apns-id: "))
        }
    }

    static func aioapns(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await PeerProcess.run("python3", [root + "/Tests/clients/aioapns_push.py"] + arguments, timeout: .seconds(60))
        #expect(result.status == 0, "aioapns failed (is it installed? make test installs it): \(result.errorOutput)")
        return result.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func aioapnsFromPyPIWithATokenFromItsOwnSigner() async throws {
        try await Receiver.withTesting { receiver in
            let lines = try await Self.aioapns([
                "--port", "\(receiver.tlsPort!)", "--ca", DevCertificates.ca, "--key", DevCertificates.authKey,
                "--key-id", "DEVKEY0001", "--team-id", "DEVTEAM001", "--topic", "com.example.app",
                SamplePush.deviceToken, "abc", String(SamplePush.deviceToken.reversed()),
            ])
            #expect(lines.count == 3)
            #expect(lines.first?["success"] as? Bool == true)
            #expect(lines.first?["status"] as? String == "200")
            #expect(lines.dropFirst().first?["reason"] as? String == "BadDeviceToken")
            #expect(lines.last?["success"] as? Bool == true)
        }
    }

    /// aioapns's own Live Activity push type: a start to the push-to-start token that asks
    /// for an update token, then an update to that token.
    @Test func aioapnsSendsLiveActivityPushes() async throws {
        try await Receiver.withTesting({ $0.liveActivities = .unthrottled }) { receiver in
            let device = SamplePush.deviceToken
            let common = [
                "--port", "\(receiver.tlsPort!)", "--ca", DevCertificates.ca, "--key", DevCertificates.authKey, "--key-id", "DEVKEY0001",
                "--team-id", "DEVTEAM001", "--topic", "com.example.app.push-type.liveactivity", "--push-type", "liveactivity",
                "--priority", "10",
            ]
            let start = try await Self.aioapns(
                common + [
                    "--message",
                    #"{"aps":{"timestamp":100,"event":"start","content-state":{"v":0},"attributes-type":"A","attributes":{},"alert":"Go","input-push-token":1}}"#,
                    receiver.device.pushToStartToken(device: device, bundleID: "com.example.app"),
                ])
            #expect(start.first?["status"] as? String == "200", "\(start)")
            let activity = try #require(try await receiver.device.activities(device: device, bundleID: "com.example.app").first)
            guard case .token(let token) = activity.subscription else {
                Issue.record("no update token: \(activity.subscription)")
                return
            }
            let update = try await Self.aioapns(
                common + ["--message", #"{"aps":{"timestamp":200,"event":"update","content-state":{"v":1}}}"#, token])
            #expect(update.first?["status"] as? String == "200", "\(update)")
            let shown = try await receiver.device.activities(device: device, bundleID: "com.example.app").first?.contentState
            #expect(shown?.replacingOccurrences(of: " ", with: "") == #"{"v":1}"#, "as aioapns wrote it: \(shown ?? "-")")
        }
    }

    @Test func aioapnsWithAClientCertificate() async throws {
        let bundle = Scratch.directory.appendingPathComponent("silentpush-client-\(UUID().uuidString).pem")
        let pem =
            try String(contentsOfFile: DevCertificates.clientCertificate, encoding: .utf8)
            + (try String(contentsOfFile: DevCertificates.clientKey, encoding: .utf8))
        try pem.write(to: bundle, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: bundle) }
        try await Receiver.withTesting({ $0.clientCA = DevCertificates.ca }) { receiver in
            let good = try await Self.aioapns([
                "--port", "\(receiver.tlsPort!)", "--ca", DevCertificates.ca, "--cert", bundle.path,
                "--topic", "com.example.app", SamplePush.deviceToken,
            ])
            #expect(good.first?["status"] as? String == "200")
            let wrongTopic = try await Self.aioapns([
                "--port", "\(receiver.tlsPort!)", "--ca", DevCertificates.ca, "--cert", bundle.path,
                "--topic", "com.other.app", SamplePush.deviceToken,
            ])
            #expect(wrongTopic.first?["reason"] as? String == "BadTopic")
        }
    }

    @Test func curlWithTheClientCertificateUsesItsTopics() async throws {
        try await Receiver.withTesting({ $0.clientCA = DevCertificates.ca }) { receiver in
            func push(topic: String, type: String) async throws -> PeerResult {
                try await PeerProcess.run(
                    "curl",
                    [
                        "-sS", "--http2", "--cacert", DevCertificates.ca, "--cert", DevCertificates.clientCertificate,
                        "--key", DevCertificates.clientKey, "-w", " %{http_code}", "-H", "apns-topic: \(topic)", "-H", "apns-push-type: \(type)",
                        "-d", "@\(Self.payload)", "https://localhost:\(receiver.tlsPort!)/3/device/\(String(repeating: "ab", count: 32))",
                    ])
            }
            let voip = try await push(topic: "com.example.app.voip", type: "voip")
            #expect(voip.output == " 200")
            let other = try await push(topic: "com.other.app", type: "background")
            #expect(other.output == #"{"reason":"BadTopic"} 400"#)
        }
    }
}
