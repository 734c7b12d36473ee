/// Where one client connection stands, as a state machine: the promise of readiness exists
/// only until HTTP/2 can start (it is kept or broken exactly once), the HTTP/2 session only
/// from then on, and output beyond TLS handshake records goes out only once it has. Generic
/// over the promise and the session so that tests step it with no event loop;
/// `H2ClientConnection.Handler` carries its actions out.
package struct H2ClientConnectionState<Ready, Session> {
    /// Where the connection is: each case holds what exists then (the readiness promise, then the session).
    package enum State {
        /// Added to a channel that is not active yet.
        case idle(Ready)
        /// The TLS handshake is under way.
        case handshaking(Ready)
        /// HTTP/2 runs, on this session.
        case running(Session)
        /// Failed or closed, and how: nothing more is written. The session, if HTTP/2 ran:
        /// what the server said on it (its GOAWAY) stays readable.
        case closed(Ending, Session?)
    }

    /// How a connection ended.
    package enum Ending: Equatable {
        /// Closed, by either side, or failed.
        case closed
        /// The server ended TLS with this alert (under TLS 1.3, how it refuses a client
        /// certificate): a new connection would be refused the same way.
        case refused(alert: String)
        /// The server sent nothing for the answer timeout while something waited on it: a new
        /// connection to it is likely to wait as long.
        case serverSilent
    }

    package private(set) var state: State

    /// A connection that starts once its channel is active; `ready` is kept once HTTP/2 can start.
    package init(ready: Ready) {
        state = .idle(ready)
    }

    // MARK: - Events

    /// What starting does.
    package enum Start {
        /// Begin the TLS handshake.
        case handshake
        /// Keep `Ready` (h2c: HTTP/2 starts at once) and flush the preface.
        case run(Ready)
        /// Nothing: started already.
        case none
    }

    /// The channel is active; `tls`: the connection has TLS. Without it HTTP/2 starts at
    /// once, on the session `makeSession` makes.
    package mutating func start(tls: Bool, makeSession: () -> Session) -> Start {
        guard case .idle(let ready) = state else { return .none }
        if tls {
            state = .handshaking(ready)
            return .handshake
        }
        state = .running(makeSession())
        return .run(ready)
    }

    /// The TLS handshake finished: HTTP/2 starts on the session `makeSession` makes.
    /// Returns the promise to keep, if it was pending.
    package mutating func handshakeCompleted(makeSession: () -> Session) -> Ready? {
        guard case .handshaking(let ready) = state else { return nil }
        state = .running(makeSession())
        return ready
    }

    /// The connection failed or closed (`ending`: how; the first ending stays). Returns the
    /// promise to break, if it was pending.
    package mutating func closed(_ ending: Ending = .closed) -> Ready? {
        switch state {
        case .idle(let ready), .handshaking(let ready):
            state = .closed(ending, nil)
            return ready
        case .running(let session):
            state = .closed(ending, session)
            return nil
        case .closed:
            return nil
        }
    }

    /// The HTTP/2 session, once it runs (and after it closed).
    package var session: Session? {
        switch state {
        case .running(let session): session
        case .closed(_, let session): session
        case .idle, .handshaking: nil
        }
    }

    /// The alert the server ended TLS with, if that is how it ended.
    package var refusal: String? {
        if case .closed(.refused(let alert), _) = state { alert } else { nil }
    }

    /// Whether it ended because the server went silent.
    package var endedSilent: Bool {
        if case .closed(.serverSilent, _) = state { true } else { false }
    }
}
