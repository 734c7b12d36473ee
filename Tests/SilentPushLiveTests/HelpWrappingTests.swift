import Foundation
import SilentPushTestSupport
import Testing

/// `--help` at 80 columns: examples break where a shell would continue them, and prose is
/// wrapped by the parser, not by hand, so no line starts at the margin mid-paragraph.
@Suite struct HelpWrappingTests {
    @Test(arguments: [["silentpushd"], ["pushsend", "send"], ["pushsend", "expect"], ["pushsend", "export"], ["pushsend"]])
    func helpIsWrappedToTheTerminal(command: [String]) async throws {
        let binary = try #require(BuiltProducts.path(of: command[0]))
        let result = try await PeerProcess.run(binary, Array(command.dropFirst()) + ["--help"], environment: ["COLUMNS": "80"], timeout: .seconds(20))
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("USAGE:") }
        let all = Array(lines)
        for (index, line) in all.enumerated() {
            #expect(line.count <= 80, "\(command): '\(line)' is wider than 80 columns")
            // Within a paragraph of prose, a line ends only where the next word would not
            // fit: a break made by hand leaves a short line the parser then wraps again.
            guard index + 1 < all.count, let first = line.first, !first.isWhitespace else { continue }
            let next = all[index + 1]
            guard let word = next.split(separator: " ").first, next.first.map({ !$0.isWhitespace }) == true else { continue }
            #expect(line.count + 1 + word.count >= 80, "\(command): '\(line)' ends before the margin mid-paragraph")
        }
    }
}
