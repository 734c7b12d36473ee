import SilentPushTransport
import Testing

/// Where a server connection stands, with no channel and no nghttp2: every event from every state.
@Suite struct H2ServerConnectionStateTests {
    final class Session {}
    typealias State = H2ServerConnectionState<Session>

    static func state(_ name: String, _ session: Session = Session()) -> State {
        var state = State(admission: name == "refusing" || name == "draining" ? .refuse : .serve)
        switch name {
        case "serving", "refusing": _ = state.handshakeCompleted { session }
        case "draining":
            _ = state.handshakeCompleted { session }
            _ = state.outputWritten(isFinished: false, hasOutput: false)
        case "closed": _ = state.channelClosed()
        default: break
        }
        return state
    }

    static let every = ["handshaking", "serving", "refusing", "draining", "closed"]

    static func name(_ state: State) -> String {
        switch state.state {
        case .handshaking: "handshaking"
        case .serving: "serving"
        case .refusing: "refusing"
        case .draining: "draining"
        case .closed: "closed"
        }
    }

    @Test func theSessionExistsOnlyAfterTheHandshake() {
        var state = State(admission: .serve)
        #expect(state.session == nil)
        let session = Session()
        let start = state.handshakeCompleted { session }
        guard case .serve(let started)? = start else {
            Issue.record("\(String(describing: start))")
            return
        }
        #expect(started === session && state.session === session && Self.name(state) == "serving")
        // Once there is a session, no other is built.
        let again = state.handshakeCompleted {
            Issue.record("a second session")
            return Session()
        }
        #expect(again == nil && state.session === session)
    }

    @Test func aConnectionOverTheLimitIsRefusedOnceItsSessionStarts() {
        var state = State(admission: .refuse)
        let session = Session()
        guard case .refuse(let started)? = state.handshakeCompleted({ session }) else {
            Issue.record("not refused")
            return
        }
        #expect(started === session && Self.name(state) == "refusing")
    }

    @Test func aClosedConnectionBuildsNoSession() {
        var state = Self.state("closed")
        let start = state.handshakeCompleted {
            Issue.record("a session after close")
            return Session()
        }
        #expect(start == nil && state.session == nil)
    }

    @Test func shutdownFromEveryState() {
        for name in Self.every {
            let session = Session()
            var state = Self.state(name, session)
            let action = state.shutdownRequested()
            switch (name, action) {
            case ("handshaking", .close):
                // Nothing in flight: closed, and a handshake finishing now starts nothing.
                let start = state.handshakeCompleted { Session() }
                #expect(Self.name(state) == "closed" && start == nil)
            case ("serving", .goAway(let target)), ("refusing", .goAway(let target)):
                #expect(target === session && Self.name(state) == name)
            case ("draining", .close):
                // It said all it had to: closed at once, not waited for.
                #expect(Self.name(state) == "draining")
            case ("closed", .none):
                #expect(Self.name(state) == name)
            default:
                Issue.record("\(name): \(action)")
            }
        }
    }

    @Test func whenWrittenOutputClosesTheConnection() {
        for name in Self.every {
            for (isFinished, hasOutput) in [(false, false), (false, true), (true, false), (true, true)] {
                var state = Self.state(name)
                let after = state.outputWritten(isFinished: isFinished, hasOutput: hasOutput)
                let expected: State.AfterOutput =
                    switch name {
                    case "serving": isFinished ? .close : .keepOpen
                    // A refused connection ends its output once its SETTINGS and GOAWAY are
                    // out, and drains what its client sends.
                    case "refusing": isFinished || !hasOutput ? .endOutput : .keepOpen
                    default: .keepOpen
                    }
                #expect(after == expected, "\(name) finished \(isFinished) output \(hasOutput)")
                #expect(Self.name(state) == (after == .endOutput ? "draining" : name))
            }
        }
    }

    /// A draining connection's reads reach no session, and its close still says goodbye to it.
    @Test func aDrainingConnectionReadsIntoNoSession() {
        let session = Session()
        var state = Self.state("draining", session)
        #expect(state.session == nil)
        #expect(state.channelClosed() === session)
    }

    @Test func closingHandsBackTheSessionOnce() {
        for name in Self.every {
            let session = Session()
            var state = Self.state(name, session)
            let closed = state.channelClosed()
            #expect((closed === session) == ["serving", "refusing", "draining"].contains(name), "\(name)")
            #expect(Self.name(state) == "closed" && state.session == nil)
            #expect(state.channelClosed() == nil)
        }
    }
}

extension H2ServerConnectionState.Start: CustomStringConvertible {
    public var description: String {
        switch self {
        case .serve: "serve"
        case .refuse: "refuse"
        }
    }
}

extension H2ServerConnectionState.Shutdown: CustomStringConvertible {
    public var description: String {
        switch self {
        case .close: "close"
        case .goAway: "goAway"
        case .none: "none"
        }
    }
}
