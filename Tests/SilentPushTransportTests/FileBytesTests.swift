import Foundation
import SilentPushTestSupport
import SilentPushTransport
import Testing

/// `FileBytes`: a file read whole, once, within its limit; a pipe read until its writer ends.
@Suite struct FileBytesTests {
    @Test func aFileOfTheLimitIsReadAndOneByteMoreIsRefusedUnread() throws {
        let path = Scratch.directory.appendingPathComponent("bytes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<100).map { UInt8($0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try FileBytes.read(path, limit: 100) == bytes)
        #expect(throws: FileBytes.Failure.tooLarge(limit: 99)) { try FileBytes.read(path, limit: 99) }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try FileBytes.read(path, limit: 0) == [])
    }

    @Test func whatCannotBeReadSaysWhyInTheSystemsWords() {
        #expect(throws: FileBytes.Failure.unreadable("No such file or directory")) { try FileBytes.read("/nonexistent/file", limit: 10) }
        #expect(throws: FileBytes.Failure.unreadable("Is a directory")) { try FileBytes.read(Scratch.directory.path, limit: 10) }
        // A device with no end is refused at the limit, not read for ever.
        #expect(throws: FileBytes.Failure.tooLarge(limit: 70_000)) { try FileBytes.read("/dev/zero", limit: 70_000) }
    }

    /// A pipe named by a path (what `<(…)` gives) is read until its writer closes it, however
    /// late the writer writes; one closed with nothing written is empty.
    @Test func aPipeIsReadUntilItsWriterEnds() throws {
        for (written, delay) in [(Array("late bytes".utf8), 0.3), ([], 0.0)] {
            let path = Scratch.directory.appendingPathComponent("fifo-\(UUID().uuidString)").path
            try #require(mkfifo(path, 0o600) == 0)
            defer { try? FileManager.default.removeItem(atPath: path) }
            Thread.detachNewThread {
                // Opening blocks until the reader has opened its end.
                let descriptor = open(path, O_WRONLY)
                guard descriptor >= 0 else { return }
                Thread.sleep(forTimeInterval: delay)
                _ = written.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
            }
            #expect(try FileBytes.read(path, limit: 100) == written)
        }
    }
}
