import Foundation
import NIOPosix
import SilentPushReceiver
import SilentPushTestSupport
import Testing

/// The sweep of the transfers' directory: files no record names go once older than the
/// grace; a recorded transfer's files, a fresh file, and the cache of a URL still validated stay.
@Suite struct TransferFileSweepTests {
    @Test func filesNoRecordNamesGoOnceOld() async throws {
        let directory = try Scratch.newDirectory("transfer-sweep")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let client = TransferClient(group: MultiThreadedEventLoopGroup.singleton, directory: directory)
        let kept = client.cacheFile(device: "aa", topic: "com.example.app", url: "https://example.com/kept")
        let other = client.cacheFile(device: "aa", topic: "com.example.app", url: "https://example.com/gone")
        try FileManager.default.createDirectory(atPath: directory + "/cache", withIntermediateDirectories: true)
        let hourAndMore = Date().addingTimeInterval(-3700)
        for path in ["5", "5.part", "5.part.validator", "6.upload", "6"].map({ directory + "/" + $0 }) + [kept, other] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: hourAndMore], ofItemAtPath: path)
        }
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/7.part"))  // a try writing it now
        let removed = await client.sweepFiles(
            recorded: { $0 == 6 }, validated: [(deviceToken: "aa", topic: "com.example.app", url: "https://example.com/kept")])
        #expect(removed == 4)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(left == ["6", "6.upload", "7.part", "cache"])
        #expect(FileManager.default.fileExists(atPath: kept) && !FileManager.default.fileExists(atPath: other))
    }
}
