import Foundation

/// A pipe that holds a file's bytes, its writer already closed, named by a path
/// (`/dev/fd/N`) as bash's `<(cat FILE)` names one: whoever opens the path first reads the
/// bytes, and anyone after reads nothing. Tests give it where a file is read once.
public final class FilledPipe: Sendable {
    /// The path its reader opens.
    public let path: String
    private let readEnd: Int32

    /// A pipe holding `file`'s bytes (at most the pipe's 64 KiB, so the write cannot block).
    public init(contentsOf file: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        var ends: [Int32] = [0, 0]
        guard bytes.count <= 65_536, pipe(&ends) == 0 else { throw CocoaError(.fileReadTooLarge) }
        let written = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        readEnd = ends[0]
        path = "/dev/fd/\(ends[0])"
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit {
        close(readEnd)
    }
}
