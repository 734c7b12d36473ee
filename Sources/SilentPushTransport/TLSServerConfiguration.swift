/// Server-side TLS material.
package struct TLSServerConfiguration: Sendable, Equatable {
    /// PEM: the server certificate, then any intermediates.
    package var certificateChainFile: String
    /// PEM: the server's private key.
    package var privateKeyFile: String
    /// PEM: CA certificates that client certificates must chain to; nil: none is asked for.
    /// A client may still send none (it then authenticates otherwise, with provider tokens).
    package var clientCAFile: String?

    /// Server TLS material.
    package init(certificateChainFile: String, privateKeyFile: String, clientCAFile: String? = nil) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.clientCAFile = clientCAFile
    }
}
