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
