import SilentPushCore
import SilentPushStore
import SilentPushTransport
import Synchronization

// A handle for SilentPush's own benchmarks (the `Benchmarks` package), which measure parts
// a user never touches. It is SPI, not API: `import SilentPushReceiver` does not show it,
// and the public-API test does not list it.

/// Drives the APNs request path without a socket: one request through the endpoint
/// (route, headers, auth, validation, registry), answered to a counter.
@_spi(Benchmarks)
public final class APNsRequestDriver: Sendable {
    /// Where accepted pushes go.
    public enum Sink: Sendable {
        /// Accepted at once; nothing is kept.
        case discard
        /// The device side as `silentpushd` runs it: the wake policy on the system clock and a
        /// SQLite file store at this path.
        case device(storePath: String)
    }

    private final class Answers: H2ResponseSink, Sendable {
        let accepted = Atomic<Int>(0)
        func respond(streamID: Int32, response: H2Response) {
            if response.status == 200 { accepted.add(1, ordering: .relaxed) }
        }
        func respond(streamID: Int32, response: H2Response, after delay: Duration) { respond(streamID: streamID, response: response) }
        func goAway(reason: APNsReason) {}
        func closeConnection() {}
    }

    private struct Discard: PushSink {
        func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
            completion(.success(()))
        }
    }

    private let endpoint: APNsEndpoint
    private let runtime: DeviceRuntime?
    private let headers: H2HeaderList
    private let body: [UInt8]
    private let answers = Answers()
    private let connection = H2ConnectionInfo(id: 1, remoteAddress: "benchmark", tls: nil)

    /// An endpoint that accepts tokens signed by `authKey` (a `.p8` file) and requests with
    /// these headers and body.
    public init(authKey: AuthKeySpec, headers: [(String, String)], body: [UInt8], sink: Sink) async throws {
        switch sink {
        case .discard:
            runtime = nil
        case .device(let path):
            runtime = try await DeviceRuntime.open(store: try PushStore.open(.file(path)), clock: .system, settings: WakeSettings()).runtime
        }
        endpoint = APNsEndpoint(settings: .init(), keys: try ProviderKeyRing(specs: [authKey]), sink: runtime ?? Discard())
        self.headers = H2HeaderList(headers.map { (name: $0.0, value: $0.1) })
        self.body = body
    }

    /// Sends one request to `path` (`/3/device/<token>`).
    public func push(path: String) {
        // Stream ids do not matter to the endpoint.
        endpoint.handle(
            H2Request(streamID: 1, method: "POST", path: path, headers: headers, body: body, connection: connection),
            writer: H2ResponseWriter(streamID: 1, sink: answers))
    }

    /// Requests answered 200 so far (with a device, once their records are committed).
    public var acceptedCount: Int { answers.accepted.load(ordering: .relaxed) }

    /// Lets the device side finish and closes its store.
    public func shutdown() async {
        guard let runtime else { return }
        await runtime.shutdown(grace: .seconds(5))
        try? await runtime.store.close()
    }
}
