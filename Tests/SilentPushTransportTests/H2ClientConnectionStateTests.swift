import SilentPushTransport
import Testing

/// Where a client connection stands, with no event loop: every event from every state.
@Suite struct H2ClientConnectionStateTests {
    typealias State = H2ClientConnectionState<String, Int>

    static let every = ["idle", "handshaking", "running", "closed"]

    static func state(_ name: String) -> State {
        var state = State(ready: "ready")
        switch name {
        case "handshaking": _ = state.start(tls: true, makeSession: { 1 })
        case "running": _ = state.start(tls: false, makeSession: { 1 })
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
        guard case .handshake = state.start(tls: true, makeSession: { 1 }) else {
            Issue.record("no handshake")
            return
        }
        #expect(Self.name(state) == "handshaking")
        #expect(state.handshakeCompleted(makeSession: { 2 }) == "ready")
        #expect(Self.name(state) == "running")
        // The promise is kept once.
        #expect(state.handshakeCompleted(makeSession: { 2 }) == nil && state.closed() == nil)
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
        guard case .run(let ready) = state.start(tls: false, makeSession: { 1 }) else {
            Issue.record("not run")
            return
        }
        #expect(ready == "ready" && Self.name(state) == "running")
    }

    @Test func startFromEveryState() {
        for name in Self.every where name != "idle" {
            var state = Self.state(name)
            guard case .none = state.start(tls: true, makeSession: { 1 }) else {
                Issue.record("\(name) started again")
                continue
            }
            #expect(Self.name(state) == name)
        }
    }

    @Test func onlyAHandshakeCompletes() {
        for name in Self.every {
            var state = Self.state(name)
            let ready = state.handshakeCompleted(makeSession: { 2 })
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

    /// The HTTP/2 session exists from the moment HTTP/2 runs (h2c at once, TLS once its
    /// handshake is done) and stays readable once closed; a connection that never ran has none.
    @Test func theSessionLivesOnlyOnceHTTP2Runs() {
        var tls = State(ready: "ready")
        _ = tls.start(tls: true, makeSession: { 1 })
        #expect(tls.session == nil)
        _ = tls.handshakeCompleted(makeSession: { 2 })
        #expect(tls.session == 2)
        _ = tls.closed()
        #expect(tls.session == 2)
        var h2c = State(ready: "ready")
        #expect(h2c.session == nil)
        _ = h2c.start(tls: false, makeSession: { 3 })
        #expect(h2c.session == 3)
        var failed = Self.state("handshaking")
        _ = failed.closed()
        #expect(failed.session == nil)
    }
}
