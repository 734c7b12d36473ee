import Foundation

/// A payload read from standard input (`-` in place of a file), bounded.
package enum StandardInput {
    /// The most bytes read: well above any payload APNs takes (5 KB), so an oversized one is
    /// still measured and refused by the payload checks, while a stream that never ends
    /// (`/dev/zero`) is not read whole.
    package static let limit = 65_536

    /// Reads `descriptor` (standard input unless a test passes another) to its end, at most
    /// `limit` bytes.
    package static func read(_ descriptor: Int32 = 0, limit: Int = limit) throws(PushSendError) -> Data {
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return Data(bytes) }
            guard count > 0 else {
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK {
                    // A pipe its writer made non-blocking: wait until there is more to read.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                throw .unreadableStandardInput(problem: String(cString: strerror(error)))
            }
            guard bytes.count + count <= limit else { throw .standardInputTooLong(limit: limit) }
            bytes += chunk[..<count]
        }
    }
}
