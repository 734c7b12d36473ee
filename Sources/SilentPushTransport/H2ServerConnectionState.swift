/// Where one server connection stands, as a state machine: the HTTP/2 session exists only
/// once the TLS handshake (if any) is done, a connection over the limit is refused as a
/// state of its own, and one that is closing starts nothing. Generic over the session so
/// that tests step it with no nghttp2; `H2ServerConnectionHandler` carries its actions out.
package struct H2ServerConnectionState<Session: AnyObject> {
    /// Whether the connection is served or refused (over `--max-connections`).
    package enum Admission: Equatable, Sendable {
        case serve
        case refuse
    }

    /// Where the connection is: each case holds what exists then (the admission, then the session).
    package enum State {
        /// The TLS handshake is under way: no HTTP/2 yet. The admission waits for the session.
        case handshaking(Admission)
        /// HTTP/2 requests are served.
        case serving(Session)
        /// Over the connection limit: SETTINGS and a GOAWAY go out, then the connection closes.
        case refusing(Session)
        /// The refusal is written and the output ended: what the client sends (its preface, a
        /// request already under way) is read and dropped until it closes, or a second
        /// passes. Closed with those bytes unread, the connection would be reset, and the
        /// client would lose the GOAWAY that says why before reading it.
        case draining(Session)
        /// Closed, or closing before any session: nothing more starts.
        case closed
    }

    package private(set) var state: State

    /// A connection whose handshake (or none, for h2c) comes first.
    package init(admission: Admission) {
        state = .handshaking(admission)
    }

    /// The session, once there is one and until the connection closes or drains (what a
    /// draining connection reads reaches no session).
    package var session: Session? {
        switch state {
        case .serving(let session), .refusing(let session): session
        case .handshaking, .draining, .closed: nil
        }
    }

    // MARK: - Events

    /// How a new session starts.
    package enum Start {
        /// Serve it.
        case serve(Session)
        /// Send it the refusal (GOAWAY for stream 0), then close.
        case refuse(Session)
    }

    /// The handshake is done (at once for h2c): `make` builds the session. Nil when a session
    /// exists already or the connection is closing (none is built).
    package mutating func handshakeCompleted(_ make: () -> Session) -> Start? {
        guard case .handshaking(let admission) = state else { return nil }
        let session = make()
        switch admission {
        case .serve:
            state = .serving(session)
            return .serve(session)
        case .refuse:
            state = .refusing(session)
            return .refuse(session)
        }
    }

    /// What the server's graceful shutdown does to this connection.
    package enum Shutdown {
        /// Close now: still in the handshake, or draining, nothing in flight.
        case close
        /// GOAWAY on `Session`; the connection closes once its open streams are answered.
        case goAway(Session)
        /// Nothing: it is closing already.
        case none
    }

    /// The server shuts down gracefully. A draining connection has said all it had to: it
    /// closes at once rather than hold the drain up.
    package mutating func shutdownRequested() -> Shutdown {
        switch state {
        case .handshaking:
            state = .closed
            return .close
        case .draining:
            return .close
        case .serving(let session), .refusing(let session):
            return .goAway(session)
        case .closed:
            return .none
        }
    }

    /// What the connection does once its session's output is written.
    package enum AfterOutput: Equatable, Sendable {
        /// Stays open.
        case keepOpen
        /// Closes.
        case close
        /// Ends its output, then closes when the client does, or at `drainLimit`.
        case endOutput
    }

    /// How long a refused connection's client is read after the refusal, at most.
    package static var drainLimit: Duration { .seconds(1) }

    /// The session's output was written; `isFinished`: it has nothing more to read or
    /// write; `hasOutput`: frames still wait.
    package mutating func outputWritten(isFinished: Bool, hasOutput: Bool) -> AfterOutput {
        switch state {
        case .serving: return isFinished ? .close : .keepOpen
        case .refusing(let session):
            guard isFinished || !hasOutput else { return .keepOpen }
            state = .draining(session)
            return .endOutput
        case .handshaking, .draining, .closed: return .keepOpen
        }
    }

    /// The channel went inactive. Returns the session it had, if any, to be told goodbye.
    package mutating func channelClosed() -> Session? {
        defer { state = .closed }
        if case .draining(let session) = state { return session }
        return session
    }
}
