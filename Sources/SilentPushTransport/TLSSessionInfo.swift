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
