/// Client-side TLS material.
package struct TLSClientConfiguration: Sendable, Equatable {
    /// PEM CA certificates to trust; nil: the system's.
    package var caFile: String?
    /// Skip certificate and host-name checks.
    package var insecure: Bool
    /// PEM client certificate chain, for certificate-based auth.
    package var certificateFile: String?
    /// PEM private key of the client certificate.
    package var privateKeyFile: String?

    /// Client TLS material.
    package init(caFile: String? = nil, insecure: Bool = false, certificateFile: String? = nil, privateKeyFile: String? = nil) {
        self.caFile = caFile
        self.insecure = insecure
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}
