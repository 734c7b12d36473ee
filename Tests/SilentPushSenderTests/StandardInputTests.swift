import Foundation
import SilentPushSender
import Testing

/// `pushsend -`'s read of standard input: to its end, in pieces, from a pipe its writer made
/// non-blocking, and never past its limit.
@Suite struct StandardInputTests {
    @Test func aNonBlockingPipeIsReadToItsEndAsItsWriterWrites() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        defer { close(reader) }
        #expect(fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK) == 0)
        let writing = Task.detached {
            for part in [#"{"aps":"#, #"{"content-available":1}}"#] {
                try? await Task.sleep(for: .milliseconds(100))
                _ = part.utf8CString.withUnsafeBufferPointer { write(writer, $0.baseAddress, $0.count - 1) }
            }
            close(writer)
        }
        let read = try StandardInput.read(reader)
        await writing.value
        #expect(String(decoding: read, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
    }

    @Test func moreThanTheLimitIsRefusedSayingSo() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let bytes = [UInt8](repeating: 0x20, count: 11)
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == 11)
        close(ends[1])
        #expect(throws: PushSendError.standardInputTooLong(limit: 10)) { try StandardInput.read(ends[0], limit: 10) }
    }
}
