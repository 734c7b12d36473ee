import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import SilentPushTransport
import Synchronization

/// The APNs endpoint driven in memory: requests in, responses out, a settable system clock.
final class APNsEndpointHarness: @unchecked Sendable {
    final class Responses: H2ResponseSink, @unchecked Sendable {
        let lock = NSLock()
        var byStream: [Int32: H2Response] = [:]
        /// GOAWAY reasons sent, and whether the connection was closed.
        var goAways: [String] = []
        var closed = false
        func respond(streamID: Int32, response: H2Response) { lock.withLock { byStream[streamID] = response } }
        func respond(streamID: Int32, response: H2Response, after delay: Duration) { respond(streamID: streamID, response: response) }
        func goAway(reason: APNsReason) { lock.withLock { goAways.append(reason.rawValue) } }
        func closeConnection() { lock.withLock { closed = true } }
    }

    /// A sink that records, or refuses with a set reason; it notes when it is held.
    final class Sink: PushSink, PushBatching, @unchecked Sendable {
        let lock = NSLock()
        var accepted: [ValidatedPush] = []
        var refusal: APNsReason?
        /// "hold", "push", "release" in the order they came.
        var events: [String] = []
        func holdSubmissions() { lock.withLock { events.append("hold") } }
        func releaseSubmissions() { lock.withLock { events.append("release") } }
        func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
            let refused = lock.withLock { () -> APNsReason? in
                if refusal == nil { accepted.append(push) }
                events.append("push")
                return refusal
            }
            completion(refused.map { .failure(APNsRejection($0)) } ?? .success(()))
        }
    }

    let endpoint: APNsEndpoint
    let sink = Sink()
    let responses = Responses()
    /// The system clock the endpoint reads, in ms.
    final class Clock: Sendable {
        let milliseconds = Atomic<Int64>(APNsEndpointHarness.start * 1000)
    }

    let clock = Clock()
    private let nextStream = Atomic<Int32>(1)

    /// Seconds since the epoch the harness starts at.
    static let start: Int64 = 1_800_000_000

    init(
        strict: Bool = false, environment: APNsEnvironment = .sandbox, mode: DeviceRegistry.Mode = .acceptOnFirstUse,
        rateLimit: (Int, Duration)? = nil
    ) throws {
        let clock = self.clock
        let devKey = DevCertificates.authKey
        let keys = try ProviderKeyRing(specs: [
            AuthKeySpec(keyID: "DEVKEY0001", teamID: "DEVTEAM001", path: devKey),
            AuthKeySpec(keyID: "OTHERTEAM1", teamID: "OTHERTEAM0", path: devKey),
            AuthKeySpec(keyID: "PRODKEY001", teamID: "DEVTEAM001", path: devKey, environment: .production),
            AuthKeySpec(keyID: "REVOKED001", teamID: "DEVTEAM001", path: devKey),
            AuthKeySpec(keyID: "LIMITED001", teamID: "DEVTEAM001", path: devKey),
        ])
        endpoint = APNsEndpoint(
            settings: .init(environment: environment, strict: strict, registryMode: mode, rateLimit: rateLimit),
            keys: keys, sink: sink, now: { clock.milliseconds.load(ordering: .relaxed) })
        endpoint.updateKey("REVOKED001") { $0.revoked = true }
        endpoint.updateKey("LIMITED001") { $0.topics = ["com.other.app"] }
    }

    /// Seconds since the epoch, as the endpoint sees it.
    var now: Int64 { clock.milliseconds.load(ordering: .relaxed) / 1000 }

    func advance(seconds: Int64) {
        clock.milliseconds.add(seconds * 1000, ordering: .relaxed)
    }

    /// A token for the harness clock.
    func token(
        keyID: String = "DEVKEY0001", teamID: String = "DEVTEAM001", age: Int64 = 0, keyFile: String = DevCertificates.authKey,
        algorithm: String = "ES256", der: Bool = false, iatAsString: Bool = false
    ) throws -> String {
        try DevProviderToken.make(
            issuedAt: now - age, keyID: keyID, teamID: teamID, keyFile: keyFile, algorithm: algorithm, der: der, iatAsString: iatAsString)
    }

    /// Sends one request on `connection` (a fresh one by default) and returns the answer.
    func send(
        method: String = "POST", path: String = SamplePush.path, headers: [(String, String)], body: [UInt8] = SamplePush.payload,
        connection: H2ConnectionInfo? = nil
    ) -> H2Response {
        let stream = nextStream.add(2, ordering: .relaxed).newValue
        let request = H2Request(
            streamID: stream, method: method, path: path,
            headers: H2HeaderList(headers.map { (name: $0.0, value: $0.1) }), body: body,
            connection: connection ?? H2ConnectionInfo(id: UInt64(stream), remoteAddress: "test", tls: nil))
        endpoint.handle(request, writer: H2ResponseWriter(streamID: stream, sink: responses))
        return responses.lock.withLock { responses.byStream[stream]! }
    }

    /// A connection that presented `certificatePEM` as its client certificate.
    static func certificateConnection(_ certificatePEM: String) throws -> H2ConnectionInfo {
        H2ConnectionInfo(
            id: 99, remoteAddress: "test",
            tls: TLSSessionInfo(
                protocolVersion: "TLSv1.3", alpn: "h2", peerCertificateDER: try DevCertificates.der(ofPEM: certificatePEM)))
    }
}

extension H2Response {
    /// The `reason` of a JSON error body.
    var reason: String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["reason"] as? String
    }

    /// The `timestamp` of a 410 body.
    var timestamp: Int64? {
        ((try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["timestamp"] as? NSNumber)?.int64Value
    }
}
