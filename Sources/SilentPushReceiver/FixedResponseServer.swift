import NIOPosix
import SilentPushCore
import SilentPushTransport
import Synchronization

// A handle for SilentPush's own benchmarks (the `Benchmarks` package), which measure parts
// a user never touches. It is SPI, not API: `import SilentPushReceiver` does not show it,
// and the public-API test does not list it.

/// The HTTP/2 transport alone: `silentpushd`'s server and event loops with a service that
/// answers every request 200 and a fresh `apns-id`, no APNs rules and no device.
@_spi(Benchmarks)
public enum FixedResponseServer {
    private final class FixedResponse: H2Service {
        let ids = APNsIDGenerator()
        let pushes = Atomic<UInt64>(0)
        func handle(_ request: H2Request, writer: H2ResponseWriter) {
            let id = ids.apnsID(pushID: pushes.add(1, ordering: .relaxed).newValue)
            writer.respond(H2Response(status: 200, headers: H2HeaderList(name: "apns-id", value: id)))
        }
    }

    /// Binds `127.0.0.1:0` with `threads` event loops (TLS with this certificate and key when
    /// given), calls `ready` with the port, and serves until cancelled.
    public static func run(threads: Int, tls: (certificate: String, key: String)?, ready: (Int) throws -> Void) async throws {
        let context = try tls.map {
            try TLSContext.server(TLSServerConfiguration(certificateChainFile: $0.certificate, privateKeyFile: $0.key))
        }
        let name: H2ListenerName = context == nil ? .h2c : .tls
        let server = try await H2Server.bind(
            listeners: [H2Listener(name: name, host: "127.0.0.1", port: 0, tls: context)], service: FixedResponse(),
            group: MultiThreadedEventLoopGroup(numberOfThreads: max(1, min(threads, 256))))
        try ready(server.port(name) ?? 0)
        try await server.run()
    }
}
