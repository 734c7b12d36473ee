import Foundation

/// A file's whole contents, read with `read(2)`: a regular file, or a pipe named by a path
/// (`<(…)`, `/dev/stdin`), which Foundation's readers give up on when its writer has not
/// written yet. Read once, so a pipe's bytes are not lost to an earlier look.
package enum FileBytes {
    /// Why a file's contents were not read.
    package enum Failure: Error, Sendable, Equatable {
        /// It could not be opened or read (the system's words).
        case unreadable(String)
        /// It holds more than the caller takes (`/dev/zero` would never end).
        case tooLarge(limit: Int)
    }

    /// Key and certificate files take at most this many bytes: a PEM chain is a few KB.
    package static let pemLimit = 1 << 20

    /// `path`'s contents, at most `limit` bytes. A pipe is read until its writer closes it.
    package static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        // A regular file says its size: one over the limit is refused before it is read.
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > limit { throw .tooLarge(limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            guard bytes.count + count <= limit else { throw .tooLarge(limit: limit) }
            bytes += chunk[..<count]
        }
    }
}
