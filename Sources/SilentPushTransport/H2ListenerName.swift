/// What a listener of `H2Server` is called in logs, errors and the ready file, whose keys
/// are the raw values.
package enum H2ListenerName: String, Sendable, Hashable, CaseIterable {
    /// HTTP/2 over TLS (ALPN h2), as APNs serves it.
    case tls
    /// Cleartext HTTP/2 with prior knowledge.
    case h2c
    /// The channel-management API over TLS.
    case channels
    /// The channel-management API in cleartext.
    case channelsH2C = "channels-h2c"
}
