import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The README's manual-clock walkthrough ("Watch the device decide"), run as written, twice
/// in a row: `make run ARGS=…` becomes the built silentpushd with those arguments, each other
/// line runs in bash, and a line whose comment quotes JSON (`# "fate":"pending"`) must print it.
/// It uses the README's own ports (2197, 2199) and a store in a temporary working directory.
@Suite(.serialized) struct ReadmeWalkthroughTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The walkthrough's code block: the `make run` arguments and the lines after it.
    static func walkthrough() throws -> (arguments: String, lines: [String]) {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Watch the device decide").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        var lines = block.split(separator: "\n").map(String.init)
        let run = try #require(lines.first?.firstMatch(of: #/^make run ARGS="([^"]*)"/#))
        lines.removeFirst()
        return (String(run.1), lines)
    }

    /// A line as bash runs it, printing its output and failing when a quoted expectation is missing.
    static func checked(_ line: String) -> String {
        guard let comment = line.range(of: "   # ") ?? line.range(of: "  # "), line[comment.upperBound...].hasPrefix("\"") else { return line }
        let command = line[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
        let expected = line[comment.upperBound...].trimmingCharacters(in: .whitespaces)
        let quoted = "'" + expected.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return """
            out=$(\(command)); printf '%s\\n' "$out"
            [[ "$out" == *\(quoted)* ]] || { echo "README: \(command.replacingOccurrences(of: "\"", with: "\\\"")) did not print \(expected.replacingOccurrences(of: "\"", with: "\\\""))" >&2; exit 1; }
            """
    }

    @Test func theManualClockWalkthroughGivesTheSameFatesTwiceInARow() async throws {
        let binary = try #require(BuiltProducts.path(of: "silentpushd"), "silentpushd is not built")
        let (arguments, lines) = try Self.walkthrough()
        #expect(arguments.contains("--fresh"))
        #expect(lines.contains { $0.contains(#"# "fate":"pending""#) }, "the walkthrough lost its expectations")
        let work = Scratch.directory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        for name in ["certs", "payloads", "scripts"] {
            try FileManager.default.createSymbolicLink(
                at: work.appendingPathComponent(name), withDestinationURL: Self.root.appendingPathComponent(name))
        }
        let script = """
            set -euo pipefail
            cd '\(work.path)'
            for port in 2197 2199; do
              if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "port $port is in use" >&2; exit 3; fi
            done
            for run in 1 2; do
              '\(binary)' \(arguments) > "silentpushd.$run.log" 2>&1 & pid=$!
              for _ in $(seq 200); do curl -sf localhost:2199/readyz >/dev/null && break; sleep 0.05; done
              echo "run $run"
            \(lines.map(Self.checked).joined(separator: "\n"))
              kill -TERM "$pid"; wait "$pid"
            done
            cat silentpushd.2.log >&2
            """
        let result = try await PeerProcess.run("bash", ["-c", script], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        // The second run set the first one's store aside and said where.
        #expect(
            result.errorOutput.contains("started from an empty store; the previous one is kept as .silentpush/silentpush.sqlite."),
            "\(result.errorOutput)")
        #expect(result.output.components(separatedBy: #""fate":"delivered","wakeId":2"#).count == 3, "\(result.output)")
    }

    /// Without --fresh, a restart carries on with what the store holds and says what.
    @Test func aRestartSaysWhatItResumed() async throws {
        let store = Scratch.directory.appendingPathComponent("resume-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().path) }
        let (first, _, h2c, _) = try await SilentPushdProcessTests.start(["--clock", "manual"], store: store)
        for id in ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"] {
            let jwt = try DevProviderToken.make()
            let pushed = try await PeerProcess.run(
                "curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge", "-H", "authorization: bearer \(jwt)",
                    "-H", "apns-topic: com.example.app", "-H", "apns-push-type: background", "-H", "apns-priority: 5", "-H", "apns-id: \(id)",
                    "-d", #"{"aps":{"content-available":1}}"#, "http://127.0.0.1:\(h2c)\(SamplePush.path)",
                ])
            #expect(pushed.output == "200")
        }
        first.signal(SIGTERM)
        _ = await first.wait()
        let (second, _, _, _) = try await SilentPushdProcessTests.start(["--clock", "manual"], store: store)
        try await Task.sleep(for: .milliseconds(100))
        second.signal(SIGTERM)
        let log = await second.wait().errorOutput
        #expect(log.contains("resumed 1 pending push, 1 device from \(store) (--fresh starts from an empty store)"), "\(log)")
    }
}
