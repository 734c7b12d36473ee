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
        /// Closed, or closing before any session: nothing more starts.
        case closed
    }

    package private(set) var state: State

    /// A connection whose handshake (or none, for h2c) comes first.
    package init(admission: Admission) {
        state = .handshaking(admission)
    }

    /// The session, once there is one and until the connection closes.
    package var session: Session? {
        switch state {
        case .serving(let session), .refusing(let session): session
        case .handshaking, .closed: nil
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
        /// Close now: still in the handshake, nothing in flight.
        case close
        /// GOAWAY on `Session`; the connection closes once its open streams are answered.
        case goAway(Session)
        /// Nothing: it is closing already.
        case none
    }

    /// The server shuts down gracefully.
    package mutating func shutdownRequested() -> Shutdown {
        switch state {
        case .handshaking:
            state = .closed
            return .close
        case .serving(let session), .refusing(let session):
            return .goAway(session)
        case .closed:
            return .none
        }
    }

    /// The session's output was written; `isFinished`: it has nothing more to read or
    /// write; `hasOutput`: frames still wait. Returns whether to close the connection.
    package func outputWritten(isFinished: Bool, hasOutput: Bool) -> Bool {
        switch state {
        case .serving: isFinished
        case .refusing: isFinished || !hasOutput
        case .handshaking, .closed: false
        }
    }

    /// The channel went inactive. Returns the session it had, if any, to be told goodbye.
    package mutating func channelClosed() -> Session? {
        defer { state = .closed }
        return session
    }
}
