import Synchronization

/// What the server refused or cut short, counted since it started (for `/metrics`).
package final class H2ServerStatistics: Sendable {
    /// Streams reset because their request did not arrive within the request timeout.
    package let requestTimeouts = Atomic<Int>(0)
    /// Connections closed with GOAWAY `IdleTimeout`.
    package let idleTimeouts = Atomic<Int>(0)
    /// Connections refused over `maxConnections`.
    package let connectionsRefused = Atomic<Int>(0)
    /// Accepts that failed because the process or system ran out of file descriptors.
    package let acceptFailures = Atomic<Int>(0)
    /// TLS handshakes refused because the client's certificate did not verify.
    package let clientCertificatesRefused = Atomic<Int>(0)

    /// All zero.
    package init() {}

    /// The metric name and help text of each count, in the order of `counts`.
    package static let names: [(name: String, help: String)] = [
        ("silentpush_request_timeouts_total", "Streams reset because their request did not arrive within --request-timeout."),
        ("silentpush_idle_timeouts_total", "Connections closed with GOAWAY IdleTimeout."),
        ("silentpush_connections_refused_total", "Connections refused over --max-connections with GOAWAY."),
        ("silentpush_accept_failures_total", "Accepts that failed for want of file descriptors."),
        (
            "silentpush_client_certificates_refused_total",
            "TLS handshakes refused because the client's certificate did not verify against --client-ca."
        ),
    ]

    /// Every count, in the order of `names`.
    package var counts: [Int] {
        [
            requestTimeouts.load(ordering: .relaxed), idleTimeouts.load(ordering: .relaxed),
            connectionsRefused.load(ordering: .relaxed), acceptFailures.load(ordering: .relaxed),
            clientCertificatesRefused.load(ordering: .relaxed),
        ]
    }
}
