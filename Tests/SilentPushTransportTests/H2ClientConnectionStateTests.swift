import SilentPushTransport
import Testing

/// Where a client connection stands, with no event loop: every event from every state.
@Suite struct H2ClientConnectionStateTests {
    typealias State = H2ClientConnectionState<String>

    static let every = ["idle", "handshaking", "running", "closed"]

    static func state(_ name: String) -> State {
        var state = State(ready: "ready")
        switch name {
        case "handshaking": _ = state.start(tls: true)
        case "running": _ = state.start(tls: false)
        case "closed": _ = state.closed()
        default: break
        }
        return state
    }

    static func name(_ state: State) -> String {
        switch state.state {
        case .idle: "idle"
        case .handshaking: "handshaking"
        case .running: "running"
        case .closed: "closed"
        }
    }

    @Test func tlsHandshakesThenRuns() {
        var state = State(ready: "ready")
        guard case .handshake = state.start(tls: true) else {
            Issue.record("no handshake")
            return
        }
        #expect(Self.name(state) == "handshaking")
        #expect(state.handshakeCompleted() == "ready")
        #expect(Self.name(state) == "running")
        // The promise is kept once.
        #expect(state.handshakeCompleted() == nil && state.closed() == nil)
    }

    /// How it ended is the first ending's: a server gone silent stays so when the channel
    /// then closes, and a plain close is not taken for silence.
    @Test func theFirstEndingStays() {
        var silent = Self.state("running")
        #expect(silent.closed(.serverSilent) == nil && silent.endedSilent)
        #expect(silent.closed() == nil && silent.endedSilent)
        var handshaking = Self.state("handshaking")
        #expect(handshaking.closed(.serverSilent) == "ready" && handshaking.endedSilent)
        var plain = Self.state("running")
        _ = plain.closed()
        _ = plain.closed(.serverSilent)
        #expect(!plain.endedSilent)
    }

    @Test func h2cRunsAtOnce() {
        var state = State(ready: "ready")
        guard case .run(let ready) = state.start(tls: false) else {
            Issue.record("not run")
            return
        }
        #expect(ready == "ready" && Self.name(state) == "running")
    }

    @Test func startFromEveryState() {
        for name in Self.every where name != "idle" {
            var state = Self.state(name)
            guard case .none = state.start(tls: true) else {
                Issue.record("\(name) started again")
                continue
            }
            #expect(Self.name(state) == name)
        }
    }

    @Test func onlyAHandshakeCompletes() {
        for name in Self.every {
            var state = Self.state(name)
            let ready = state.handshakeCompleted()
            #expect((ready != nil) == (name == "handshaking"), "\(name)")
            #expect(Self.name(state) == (name == "handshaking" ? "running" : name))
        }
    }

    @Test func closingBreaksAPendingPromise() {
        for name in Self.every {
            var state = Self.state(name)
            let ready = state.closed()
            #expect((ready == "ready") == (name == "idle" || name == "handshaking"), "\(name)")
            #expect(Self.name(state) == "closed")
        }
    }
}
