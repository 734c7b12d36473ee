import SilentPushTransport

/// One of a run's connections, replaced when the server goes away (GOAWAY, or the
/// connection closed): the pushes the old one never processed are sent again on the new
/// one, as an APNs client reconnects. Every stream of the slot that finds the connection
/// gone waits for the one replacement.
package actor ConnectionSlot {
    /// The connection new pushes go to.
    package private(set) var connection: H2ClientConnection
    /// Every connection the slot opened, to close at the end.
    package private(set) var opened: [H2ClientConnection]
    private var replacing: Task<Result<H2ClientConnection, any Error>, Never>?
    /// Why the last replacement could not connect, and when: for `retryAfter`, the slot's
    /// later pushes fail with it at once, rather than each waiting out a connect of its own.
    private var failure: (error: any Error, at: ContinuousClock.Instant)?
    /// How long a failed connect stands before the next push tries again (a server that
    /// restarts takes a moment to listen again).
    package static let retryAfter = Duration.seconds(1)
    private let connect: @Sendable () async throws -> H2ClientConnection

    package init(_ connection: H2ClientConnection, connect: @escaping @Sendable () async throws -> H2ClientConnection) {
        self.connection = connection
        opened = [connection]
        self.connect = connect
    }

    /// The connection to send on instead of `old`: the slot's current one if `old` was
    /// already replaced, else a new one (made once for every stream that asks); for
    /// `retryAfter` once one could not be made, that failure.
    package func replacement(for old: H2ClientConnection) async -> Result<H2ClientConnection, any Error> {
        if connection !== old { return .success(connection) }
        if let failure, ContinuousClock.now - failure.at < Self.retryAfter { return .failure(failure.error) }
        if let replacing { return await replacing.value }
        let connect = self.connect
        let task = Task { () -> Result<H2ClientConnection, any Error> in
            do { return .success(try await connect()) } catch { return .failure(error) }
        }
        replacing = task
        let made = await task.value
        replacing = nil
        switch made {
        case .success(let new):
            connection = new
            opened.append(new)
        case .failure(let error):
            failure = (error, .now)
        }
        return made
    }

    /// Whether a push that failed with `error` was never processed by the server, so sending
    /// it again cannot deliver it twice: refused (REFUSED_STREAM, as a stream past a
    /// GOAWAY's last is), not taken by nghttp2, or past the GOAWAY or held when the
    /// connection closed. One in flight when a connection closed otherwise may have been.
    package static func neverProcessed(_ error: any Error) -> Bool {
        switch error as? H2ClientError {
        case .streamReset(let code)?: code == H2GoAwayReason.ErrorCode.refusedStream.code
        case .submitFailed?, .notProcessed?: true
        case .connectionClosed?, nil: false
        }
    }
}
