import COpenSSL

/// A TLS failure on one connection (handshake refused, bad record, …).
package enum TLSError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The connection's `SSL` could not be made.
    case setUp(String)
    /// The handshake failed (no shared protocol, a bad record, …).
    case handshake(String)
    /// The peer's certificate did not verify (an unknown CA, a name that does not match,
    /// expired, …): OpenSSL's reason.
    case peerCertificateRejected(String)
    /// Reading application data failed.
    case read(String)
    /// The peer ended the connection with a TLS alert after the handshake (a server that
    /// refuses a client certificate says so this way under TLS 1.3): OpenSSL's words for it.
    case alertReceived(String)
    /// Writing application data failed.
    case write(String)

    /// What went wrong, with OpenSSL's own words.
    package var description: String {
        switch self {
        case .setUp(let why): "cannot create a TLS connection: \(why)"
        case .handshake(let why): "TLS handshake failed: \(why)"
        case .peerCertificateRejected(let why): "TLS handshake failed: the peer's certificate did not verify: \(why)"
        case .read(let why): "TLS read failed: \(why)"
        case .alertReceived(let why): "the peer ended TLS with an alert: \(why)"
        case .write(let why): "TLS write failed: \(why)"
        }
    }
}
