import Foundation
import NIOCore

/// A file's bytes as an upload's body: read a chunk at a time as the client asks for them,
/// never the whole file at once.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    /// The most read at a time.
    static let chunk = 64 * 1024

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            guard let handle else { throw CocoaError(.fileReadNoSuchFile) }
            try Task.checkCancellation()
            guard let data = try handle.read(upToCount: FileChunks.chunk), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: FileHandle(forReadingAtPath: path))
    }
}
