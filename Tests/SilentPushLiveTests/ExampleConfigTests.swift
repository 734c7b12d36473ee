import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `Examples/silentpushd.json`, the commented sample a team starts from, loads and does what
/// its comments say (its addresses and store moved to this test's own).
@Suite struct ExampleConfigTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theSampleConfigLoadsAndServesAsItsCommentsSay() async throws {
        let sample = Self.root.appendingPathComponent("Examples/silentpushd.json").path
        let text = try String(contentsOfFile: sample, encoding: .utf8)
        #expect(text.contains("//"), "the sample is meant to explain itself in comments")
        let store = Scratch.directory.appendingPathComponent("example-\(UUID().uuidString)/s.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().path) }
        // The file's addresses and store are the staging machine's; the command line wins.
        let (receiver, tls, _, admin) = try await SilentPushdProcessTests.start(["--config", sample], store: store)
        defer { receiver.signal(SIGKILL) }
        #expect(tls > 0)
        let open = try await PeerProcess.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(admin)/v1/clock"])
        #expect(open.output == "401")
        let token = try #require(text.firstMatch(of: #/"adminToken": "([^"]+)"/#)?.1)
        let authorized = try await PeerProcess.run(
            "curl", ["-s", "-H", "authorization: Bearer \(token)", "http://127.0.0.1:\(admin)/v1/clock"])
        #expect(authorized.output.contains(#""clock":"system""#), "\(authorized.output)")
        receiver.signal(SIGTERM)
        let log = await receiver.wait().errorOutput
        // logFormat json: every line an object.
        #expect(log.split(separator: "\n").allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") }, "\(log)")
    }
}
