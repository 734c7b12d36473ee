/// Client-side TLS material.
package struct TLSClientConfiguration: Sendable, Equatable {
    /// PEM CA certificates to trust; nil: the system's.
    package var caFile: String?
    /// Skip certificate and host-name checks.
    package var insecure: Bool
    /// The client certificate and its key, for certificate-based auth.
    package var clientIdentity: TLSClientIdentity?

    /// Client TLS material.
    package init(caFile: String? = nil, insecure: Bool = false, clientIdentity: TLSClientIdentity? = nil) {
        self.caFile = caFile
        self.insecure = insecure
        self.clientIdentity = clientIdentity
    }
}
