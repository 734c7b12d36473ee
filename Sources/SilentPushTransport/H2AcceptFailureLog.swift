import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Says when the listeners cannot take connections: out of file descriptors on accept, over
/// `maxConnections`, or a client certificate that did not verify. Counted every time (the
/// server's statistics), logged at most once per `quietPeriod` each, so a flood of clients
/// does not become a flood of log lines.
package final class H2AcceptFailureLog: Sendable {
    static let quietPeriod = TimeAmount.seconds(10)
    /// How long accepting pauses after it failed for want of descriptors.
    static let backoff = TimeAmount.milliseconds(250)

    private let statistics: H2ServerStatistics
    private let logger: Logger
    private let lastLogged = Mutex<Last>(Last())

    private struct Last {
        var accept: NIODeadline?
        var refused: NIODeadline?
        var certificate: NIODeadline?
        /// The statistics' count of refused certificates when the last line said one.
        var certificatesSaid = 0
    }

    init(statistics: H2ServerStatistics, logger: Logger) {
        self.statistics = statistics
        self.logger = logger
    }

    /// The pause after a failed accept; nil for errors that are not about resources.
    func backoff(after error: IOError) -> TimeAmount? {
        switch error.errnoCode {
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
            statistics.acceptFailures.add(1, ordering: .relaxed)
            if shouldLog(\.accept) {
                let which = error.errnoCode == EMFILE ? "the process's file descriptor limit (RLIMIT_NOFILE)" : "the system's file or memory limits"
                logger.error(
                    "cannot accept connections: out of \(which); new clients wait until connections close (raise the limit or lower --max-connections)",
                    metadata: [
                        "error": "\(error)"
                    ])
            }
            return Self.backoff
        default:
            return nil
        }
    }

    /// A connection over the limit was refused with GOAWAY.
    func refused(limit: Int) {
        guard shouldLog(\.refused) else { return }
        logger.warning("refusing connections over --max-connections with GOAWAY ServiceUnavailable", metadata: ["max_connections": "\(limit)"])
    }

    /// A client's certificate did not verify in the TLS handshake (OpenSSL's reason): the
    /// client sees only an alert, so the operator is told why (the CA it trusts is
    /// `--client-ca`).
    func certificateRefused(reason: String) {
        let count = statistics.clientCertificatesRefused.add(1, ordering: .relaxed).newValue
        guard shouldLog(\.certificate) else { return }
        // The ones counted since the last line, this one aside.
        let unsaid = lastLogged.withLock { last in
            defer { last.certificatesSaid = count }
            return max(0, count - 1 - last.certificatesSaid)
        }
        logger.notice(
            "a client certificate was refused in the TLS handshake: \(reason) (a certificate must chain to one in --client-ca, within its dates, for client authentication)",
            metadata: ["refused_since_last_line": "\(unsaid)"])
    }

    private func shouldLog(_ which: WritableKeyPath<Last, NIODeadline?>) -> Bool {
        let now = NIODeadline.now()
        return lastLogged.withLock { last in
            if let previous = last[keyPath: which], now - previous < Self.quietPeriod { return false }
            last[keyPath: which] = now
            return true
        }
    }
}
