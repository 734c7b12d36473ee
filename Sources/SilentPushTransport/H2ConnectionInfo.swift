/// What is known of the connection a request arrived on. Shared by every request of the
/// connection; fixed once the TLS handshake is over.
package final class H2ConnectionInfo: Sendable {
    /// A number unique within the process, for per-connection state kept by the application.
    package let id: UInt64
    /// The peer's address, as text.
    package let remoteAddress: String
    /// The TLS session, or nil for cleartext h2.
    package let tls: TLSSessionInfo?
    /// Room for the application's per-connection state (auth, say).
    package let applicationState = H2ApplicationState()

    /// Connection facts.
    package init(id: UInt64, remoteAddress: String, tls: TLSSessionInfo?) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.tls = tls
    }

    /// For requests built outside a connection (tests): a new one each time, so no two
    /// requests share application state by accident.
    package static var unknown: H2ConnectionInfo { H2ConnectionInfo(id: 0, remoteAddress: "unknown", tls: nil) }
}

/// Facts of a completed TLS handshake.
package struct TLSSessionInfo: Sendable, Equatable {
    /// The negotiated protocol version, e.g. `TLSv1.3`.
    package var protocolVersion: String
    /// The ALPN protocol selected, or nil when the client offered none we speak.
    package var alpn: String?
    /// The verified client certificate (DER), when client certificates are required.
    package var peerCertificateDER: [UInt8]?

    /// Handshake facts.
    package init(protocolVersion: String, alpn: String?, peerCertificateDER: [UInt8]?) {
        self.protocolVersion = protocolVersion
        self.alpn = alpn
        self.peerCertificateDER = peerCertificateDER
    }
}

/// A slot for the application's own per-connection state. Requests of one connection are
/// handed to the service one after another on the connection's event loop, so the service
/// may read and write `value` there without a lock; never touch it from elsewhere.
package final class H2ApplicationState: @unchecked Sendable {
    /// The application's state, set on first use. Used on the connection's event loop only,
    /// on every request: it skips the exclusivity checks.
    @exclusivity(unchecked) package var value: AnyObject?

    init() {}
}
