import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport

/// A client session and a server session joined in memory: bytes move only when `pump`
/// is called, so tests see exactly what each side sent.
final class H2SessionPair: H2ServerSessionDelegate {
    let client = H2ClientSession()
    let server: H2ServerSession
    var requests: [H2Request] = []
    var refusals: [(H2Request, H2RequestProblem)] = []
    /// Answers each request at once unless nil (the test answers later).
    var answer: ((H2Request) -> H2Response)? = { _ in H2Response(status: 200, headers: ["apns-id": "ID"]) }

    init(settings: H2Settings = H2Settings()) {
        server = H2ServerSession(settings: settings)
        server.delegate = self
    }

    func session(_ session: H2ServerSession, didReceive request: H2Request) {
        requests.append(request)
        if let answer { session.respond(streamID: request.streamID, response: answer(request)) }
    }

    func session(_ session: H2ServerSession, didRefuse request: H2Request, problem: H2RequestProblem) {
        refusals.append((request, problem))
        session.respond(streamID: request.streamID, response: H2Response(status: 413))
    }

    /// Moves bytes both ways until neither side has anything to say.
    func pump() {
        var moved = true
        while moved {
            moved = false
            var toServer: [UInt8] = []
            client.drainOutput { toServer += $0 }
            if !toServer.isEmpty {
                moved = true
                toServer.withUnsafeBytes { server.receive($0) }
            }
            var toClient: [UInt8] = []
            server.drainOutput { toClient += $0 }
            if !toClient.isEmpty {
                moved = true
                toClient.withUnsafeBytes { client.receive($0) }
            }
        }
    }
}

/// A server session fed hand-built frames.
final class RawServer: H2ServerSessionDelegate {
    let server: H2ServerSession
    var requests: [H2Request] = []
    var refusals: [H2RequestProblem] = []
    var answerImmediately = true

    init(settings: H2Settings = H2Settings()) {
        server = H2ServerSession(settings: settings)
        server.delegate = self
    }

    func session(_ session: H2ServerSession, didReceive request: H2Request) {
        requests.append(request)
        if answerImmediately { session.respond(streamID: request.streamID, response: H2Response(status: 200)) }
    }

    func session(_ session: H2ServerSession, didRefuse request: H2Request, problem: H2RequestProblem) {
        refusals.append(problem)
        session.respond(streamID: request.streamID, response: H2Response(status: 413, body: Array("too large".utf8)))
    }

    /// Feeds `bytes` and returns the frames the server wrote back.
    @discardableResult
    func feed(_ bytes: [UInt8]) -> [H2Frame] {
        bytes.withUnsafeBytes { server.receive($0) }
        return output()
    }

    func feed(_ frames: [H2Frame]) -> [H2Frame] {
        feed(frames.flatMap(\.bytes))
    }

    func output() -> [H2Frame] {
        var out: [UInt8] = []
        server.drainOutput { out += $0 }
        return H2Frame.parse(out).frames
    }

    /// Preface, SETTINGS and SETTINGS ACK; returns the server's first frames.
    func handshake() -> [H2Frame] {
        feed(H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes)
    }
}
