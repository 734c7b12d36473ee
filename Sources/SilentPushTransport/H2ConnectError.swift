import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SilentPushNetworking

/// A client connection could not be made.
package enum H2ConnectError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The TCP connection (or its TLS) could not be made.
    case cannotConnect(host: String, port: Int, reason: String)
    /// HTTP/2 could not start on the connection.
    case cannotStartHTTP2(host: String, port: Int, reason: String)
    /// The server's certificate did not verify (OpenSSL's reason).
    case untrustedServer(host: String, port: Int, reason: String)
    /// The connection closed before HTTP/2 started.
    case closedBeforeHTTP2
    /// The server closed the connection during the TLS handshake.
    case closedDuringHandshake
    /// The server sent nothing for `milliseconds` while the handshake or a request waited on it.
    case noAnswer(milliseconds: Int64)
    /// The server ended TLS with an alert once the handshake was done: under TLS 1.3, how it
    /// refuses a client certificate.
    case refusedInTLS(alert: String)

    /// One line naming the host and what failed.
    package var description: String {
        switch self {
        case .cannotConnect(let host, let port, let reason): "cannot connect to \(host.contains(":") ? "[\(host)]" : host):\(port): \(reason)"
        case .cannotStartHTTP2(let host, let port, let reason): "cannot set up HTTP/2 with \(host):\(port): \(reason)"
        case .untrustedServer(let host, let port, let reason): "the certificate of \(host):\(port) did not verify: \(reason)"
        case .closedBeforeHTTP2: "the connection closed before HTTP/2 started"
        case .closedDuringHandshake: "the server closed the connection during the TLS handshake"
        case .noAnswer(let milliseconds):
            "the server sent nothing for \(milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms")"
        case .refusedInTLS(let alert): "the server ended the TLS connection with an alert (\(alert)): a client certificate it does not accept?"
        }
    }
}
