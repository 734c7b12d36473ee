import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `docs/background-transfers.md`'s walkthrough, as written there: its shell blocks, run with
/// bash, curl and Python's `http.server` as the origin against a `silentpushd` started with
/// its flags.
@Suite struct BackgroundTransferWalkthroughTests {
    @Test func theWalkthroughRunsAsWritten() async throws {
        let blocks = try Repository.blocks("sh", in: "docs/background-transfers.md", after: "## Walkthrough")
        let command = try #require(blocks.first)
        #expect(command.hasPrefix("silentpushd "))
        // The document's own flags (the exec command is one quoted argument), its store the test's.
        let flags = try #require(command.split(separator: "'").first?.dropFirst("silentpushd ".count))
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let exec = try #require(command.split(separator: "'").dropFirst().first.map(String.init))
        var extra: [String] = []
        var index = 0
        while index < flags.count {
            if flags[index] == "--store" { index += 2 } else { extra.append(flags[index]); index += 1 }
        }
        #expect(extra.last == "--fetch-exec")
        let kept = Scratch.directory.appendingPathComponent("walkthrough-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: kept) }
        // The handler runs in the repository, as the document's command does, and keeps its
        // files under the test's TMPDIR.
        let (process, ports) = try await SilentPushdProcessTests.startWithPorts(
            extra + ["cd \(Repository.root) && TMPDIR=\(kept) " + exec])
        defer { process.signal(SIGKILL) }
        let scripts = blocks.dropFirst()
        #expect(scripts.count == 2)
        let result = try await PeerProcess.run(
            "bash", ["-euo", "pipefail", "-c", "cd \(Repository.root)\n" + scripts.joined(separator: "echo ----\n")],
            environment: [
                "ADMIN": "http://127.0.0.1:\(ports["admin"] ?? 0)", "APNS": "http://127.0.0.1:\(ports["h2c"] ?? 0)", "TMPDIR": kept,
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            ], timeout: .seconds(90))
        let parts = result.output.components(separatedBy: "----\n")
        #expect(parts.count == 2, "status \(result.status): \(result.output)\(result.errorOutput)")
        let first = parts.first ?? ""
        #expect(first.contains(#""state":"done""#) && first.contains(#""bytes":5000000"#) && first.contains(#""file":"moved""#), "\(first)")
        #expect(first.contains(#""relaunchRequestId":1"#), "\(first)")
        #expect(first.contains("the app kept every byte"), "\(result.output)\(result.errorOutput)")
        let second = (parts.last ?? "").split(separator: "\n")
        #expect(second.count == 2, "\(result.output)\(result.errorOutput)")
        #expect(second.first?.contains(#""state":"waiting""#) == true && second.first?.contains(#""rule":"discretionary""#) == true, "\(second)")
        #expect(second.last?.contains(#""state":"done""#) == true && second.last?.contains(#""file":"moved""#) == true, "\(second)")
    }
}
