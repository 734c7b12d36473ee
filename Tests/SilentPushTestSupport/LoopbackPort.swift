import Foundation

/// A TCP port on 127.0.0.1 that was free when asked, for a peer that cannot be told to
/// listen on port 0 and say where (HAProxy, PostgreSQL). Another process may take it before
/// the peer binds: a caller that cares tries again.
public enum LoopbackPort {
    /// A port the kernel chose for a socket bound and closed at once.
    public static func free() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(call: "socket", code: errno) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw Failure(call: "bind", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A listener on 127.0.0.1 that never accepts: the kernel completes each connection,
    /// and not one byte ever comes back. For a client that must not wait for ever.
    public final class Silent: Sendable {
        /// The port it listens on.
        public let port: Int
        private let socket: Int32

        public init() throws {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw Failure(call: "socket", code: errno) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let socket = self.socket
            let listening = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0 && listen(socket, 16) == 0
                }
            }
            guard listening else {
                let code = errno
                close(socket)
                throw Failure(call: "listen", code: code)
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// How many connections were made to it since the last call (each taken and closed).
        public func takeConnections() -> Int {
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            var count = 0
            while case let connection = accept(socket, nil, nil), connection >= 0 {
                close(connection)
                count += 1
            }
            return count
        }

        deinit { close(socket) }
    }

    /// A socket call failed.
    public struct Failure: Error, CustomStringConvertible {
        public var call: String
        public var code: Int32
        public var description: String { "\(call): \(String(cString: strerror(code)))" }
    }
}
