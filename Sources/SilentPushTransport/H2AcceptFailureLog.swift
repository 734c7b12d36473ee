import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Says when the listeners cannot take connections: out of file descriptors on accept, or
/// over `maxConnections`. Counted every time, logged at most once per `quietPeriod` each,
/// so a flood of clients does not become a flood of log lines.
final class H2AcceptFailureLog: Sendable {
    static let quietPeriod = TimeAmount.seconds(10)
    /// How long accepting pauses after it failed for want of descriptors.
    static let backoff = TimeAmount.milliseconds(250)

    private let statistics: H2ServerStatistics
    private let logger: Logger
    private let lastLogged = Mutex<(accept: NIODeadline?, refused: NIODeadline?)>((nil, nil))

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

    private func shouldLog(_ which: WritableKeyPath<(accept: NIODeadline?, refused: NIODeadline?), NIODeadline?>) -> Bool {
        let now = NIODeadline.now()
        return lastLogged.withLock { last in
            if let previous = last[keyPath: which], now - previous < Self.quietPeriod { return false }
            last[keyPath: which] = now
            return true
        }
    }
}
