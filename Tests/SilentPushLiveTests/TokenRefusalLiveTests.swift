import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A refused provider token: the wire answer is Apple's alone, while the receiver says why in
/// one notice line per cause (not per request), in the push's record and its admin API view.
@Suite struct TokenRefusalLiveTests {
    @Test func theCauseIsLoggedOnceKeptAndShownButNotSent() async throws {
        let (receiver, _, h2c, admin) = try await SilentPushdProcessTests.start()
        var stopped = false
        defer { if !stopped { receiver.signal(SIGKILL) } }
        let wrongTeam = try DevProviderToken.make(teamID: "OTHERTEAM1")
        var answers: [String] = []
        for index in 1...3 {
            let id = "00000000-0000-4000-8000-00000000000\(index)"
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-s", "--http2-prior-knowledge", "-H", "authorization: bearer \(wrongTeam)", "-H", "apns-topic: com.example.app",
                    "-H", "apns-push-type: background", "-H", "apns-priority: 5", "-H", "apns-id: \(id)", "-d", #"{"aps":{"content-available":1}}"#,
                    "-w", " %{http_code}", "http://127.0.0.1:\(h2c)\(SamplePush.path)",
                ])
            answers.append(result.output)
        }
        #expect(answers.allSatisfy { $0 == #"{"reason":"InvalidProviderToken"} 403"# }, "\(answers)")

        let cause = "key 'DEVKEY0001' belongs to team 'DEVTEAM001', but the token's iss is 'OTHERTEAM1'"
        let push = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/00000000-0000-4000-8000-000000000002")
        #expect(push.status == 200)
        #expect(push.json["fate"] as? String == "rejected" && push.json["reason"] as? String == "InvalidProviderToken")
        #expect(push.json["cause"] as? String == cause)
        #expect((push.json["why"] as? [String: Any])?["text"] as? String == "rejected by APNs: InvalidProviderToken (\(cause))")

        receiver.signal(SIGTERM)
        stopped = true
        let log = await receiver.wait().errorOutput
        let lines = log.split(separator: "\n").filter { $0.contains("provider token refused") }
        #expect(lines.count == 1, "\(log)")
        #expect(lines.first?.contains("notice") == true && lines.first?.contains("InvalidProviderToken): \(cause)") == true, "\(lines)")
    }

    /// A sender's text in a token (its kid) cannot start a log line of its own, and a sender
    /// varying it gets one line a minute, as one that does not.
    @Test func aSendersKidNeitherForgesNorFloodsLogLines() async throws {
        let (receiver, _, h2c, _) = try await SilentPushdProcessTests.start()
        var stopped = false
        defer { if !stopped { receiver.signal(SIGKILL) } }
        // The first kid, as its JSON header writes it, holds a line break ("\\n" in the JSON).
        for kid in [#"KID0000001\n2026-11-29T00:00:00+0000 critical silentpushd: FORGED"#, "KID0000002", "KID0000003"] {
            let token = try DevProviderToken.make(keyID: kid)
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-s", "--http2-prior-knowledge", "-H", "authorization: bearer \(token)", "-H", "apns-topic: com.example.app",
                    "-d", #"{"aps":{"content-available":1}}"#, "-w", " %{http_code}", "http://127.0.0.1:\(h2c)\(SamplePush.path)",
                ])
            #expect(result.output.hasSuffix(" 403"), "\(result.output)")
        }
        receiver.signal(SIGTERM)
        stopped = true
        let log = await receiver.wait().errorOutput.split(separator: "\n")
        #expect(log.filter { $0.contains("provider token refused") }.count == 1, "\(log)")
        #expect(!log.contains { $0.contains("FORGED") && !$0.contains("provider token refused") }, "\(log)")
        #expect(log.contains { $0.contains(#"no key with kid 'KID0000001\u{a}2026"#) }, "\(log)")
    }
}
