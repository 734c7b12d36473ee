@testable import SilentPushReceiver
import Testing

/// A handler's stdout as lines, whatever reads it arrives in: a line is whole up to
/// `ChildProcess.lineLimit` bytes, and a longer one is its head, never its tail read as a line.
@Suite struct ChildProcessLinesTests {
    static func lines(_ reads: [String]) -> [String] {
        var partial: [UInt8] = []
        var lines: [String] = []
        for read in reads { ChildProcess.lines(Array(read.utf8)[...], partial: &partial, to: { lines.append(String($0)) }) }
        return lines
    }

    @Test func linesAreWholeAcrossReads() {
        #expect(Self.lines(["a\nb\n"]) == ["a", "b"])
        #expect(Self.lines(["ab", "c\nd", "\n", "e"]) == ["abc", "d"])
        #expect(Self.lines(["\n\n"]) == ["", ""])
    }

    @Test func aLineOverTheLimitIsItsHeadAndTheNextLineIsWhole() {
        let limit = ChildProcess.lineLimit
        // A transfer line of 5,000 bytes in reads of 1,000: whole (a 4 KiB cap dropped it).
        let transfer = "transfer " + String(repeating: "t", count: 4_991)
        #expect(
            Self.lines(stride(from: 0, to: transfer.count, by: 1_000).map { String(transfer.dropFirst($0).prefix(1_000)) } + ["\nnext\n"]) == [
                transfer, "next",
            ])
        let long = String(repeating: "h", count: limit) + String(repeating: "T", count: 10_000)
        let reads = stride(from: 0, to: long.count, by: 4_096).map { String(long.dropFirst($0).prefix(4_096)) } + ["\nnext\n"]
        #expect(Self.lines(reads) == [String(repeating: "h", count: limit), "next"])
        #expect(Self.lines([String(repeating: "x", count: limit) + "\n"]) == [String(repeating: "x", count: limit)])
    }
}
