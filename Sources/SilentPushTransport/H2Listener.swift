/// One address the server listens on.
package struct H2Listener: Sendable {
    /// Its name in logs, errors and the ready file.
    package var name: H2ListenerName
    /// The host or address to bind.
    package var host: String
    /// The port; 0 picks a free one.
    package var port: Int
    /// TLS for this listener; nil serves cleartext h2 with prior knowledge.
    package var tls: TLSContext?
    /// The service that answers this listener's requests; nil: the server's.
    package var service: (any H2Service)?

    /// A listener.
    package init(name: H2ListenerName, host: String, port: Int, tls: TLSContext?, service: (any H2Service)? = nil) {
        self.name = name
        self.host = host
        self.port = port
        self.tls = tls
        self.service = service
    }
}
