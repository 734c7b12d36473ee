import SilentPushTransport

/// One of a run's connections, replaced when the server goes away (GOAWAY, or the
/// connection closed): the pushes the old one never processed are sent again on the new
/// one, as an APNs client reconnects. Every stream of the slot that finds the connection
/// gone waits for the one replacement.
actor ConnectionSlot {
    /// The connection new pushes go to.
    private(set) var connection: H2ClientConnection
    /// Every connection the slot opened, to close at the end.
    private(set) var opened: [H2ClientConnection]
    private var replacing: Task<Result<H2ClientConnection, any Error>, Never>?
    private let connect: @Sendable () async throws -> H2ClientConnection

    init(_ connection: H2ClientConnection, connect: @escaping @Sendable () async throws -> H2ClientConnection) {
        self.connection = connection
        opened = [connection]
        self.connect = connect
    }

    /// The connection to send on instead of `old`: the slot's current one if `old` was
    /// already replaced, else a new one (made once for every stream that asks).
    func replacement(for old: H2ClientConnection) async -> Result<H2ClientConnection, any Error> {
        if connection !== old { return .success(connection) }
        if let replacing { return await replacing.value }
        let connect = self.connect
        let task = Task { () -> Result<H2ClientConnection, any Error> in
            do { return .success(try await connect()) } catch { return .failure(error) }
        }
        replacing = task
        let made = await task.value
        replacing = nil
        if case .success(let new) = made {
            connection = new
            opened.append(new)
        }
        return made
    }

    /// Whether a push that failed with `error`, on a connection the server sent GOAWAY on
    /// (`goneAway`), was never processed by the server, so sending it again cannot deliver
    /// it twice: refused (REFUSED_STREAM, as a stream past a GOAWAY's last is), not taken by
    /// nghttp2, or submitted once the connection had closed. Without a GOAWAY, a connection
    /// that closed may have processed what it had, and a live one retries refused streams itself.
    static func neverProcessed(_ error: any Error, goneAway: Bool) -> Bool {
        guard goneAway else { return false }
        switch error as? H2ClientError {
        case .streamReset(let code)?: return code == H2GoAwayReason.ErrorCode.refusedStream.code
        case .submitFailed?, .connectionClosed?: return true
        case nil: return false
        }
    }
}
