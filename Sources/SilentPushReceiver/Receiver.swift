import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SilentPushCore
import SilentPushTransport

/// A running receiver: the listeners of a `ReceiverConfiguration`, bound. `silentpushd`
/// runs one in a `ServiceGroup`; tests start one in-process on port 0.
public final class Receiver: Service, Sendable {
    /// The configuration it was started with.
    public let configuration: ReceiverConfiguration
    private let server: H2Server
    private let endpoint: APNsEndpoint

    private init(configuration: ReceiverConfiguration, server: H2Server, endpoint: APNsEndpoint) {
        self.configuration = configuration
        self.server = server
        self.endpoint = endpoint
    }

    /// Loads the TLS material, binds every listener and writes the ready file.
    /// Throws a `ReceiverStartError` naming what to fix.
    public static func start(
        _ configuration: ReceiverConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "silentpushd")
    ) async throws -> Receiver {
        var listeners: [H2Listener] = []
        if let address = configuration.listen {
            let tls: TLSContext
            do {
                tls = try TLSContext.server(TLSServerConfiguration(
                    certificateChainFile: configuration.tlsCertificate, privateKeyFile: configuration.tlsKey,
                    clientCAFile: configuration.clientCA))
            } catch {
                throw ReceiverStartError("\(error) (check --tls-cert, --tls-key and --client-ca)")
            }
            listeners.append(H2Listener(name: "tls", host: address.host, port: address.port, tls: tls))
        }
        if let address = configuration.listenH2C {
            listeners.append(H2Listener(name: "h2c", host: address.host, port: address.port, tls: nil))
        }
        guard !listeners.isEmpty else { throw ReceiverStartError("no listener: give --listen or --listen-h2c") }
        let endpoint = APNsEndpoint(
            settings: .init(
                environment: configuration.environment, strict: configuration.strict,
                registryMode: configuration.deviceRegistryMode, rateLimit: configuration.rateLimit),
            keys: try ProviderKeyRing(specs: configuration.authKeys), sink: configuration.pushSink)

        let server: H2Server
        do {
            server = try await H2Server.bind(
                listeners: listeners, settings: configuration.settings,
                service: endpoint,
                idleTimeout: TimeAmount(configuration.idleTimeout), shutdownGrace: TimeAmount(configuration.shutdownGrace),
                group: group, logger: logger)
        } catch {
            throw ReceiverStartError("\(error)")
        }
        let receiver = Receiver(configuration: configuration, server: server, endpoint: endpoint)
        if let path = configuration.readyFile {
            do {
                try receiver.writeReadyFile(to: path)
            } catch {
                await server.shutdownGracefully()
                throw ReceiverStartError("cannot write the ready file '\(path)': \(error.localizedDescription)")
            }
        }
        logger.info("silentpushd listening", metadata: [
            "tls": "\(receiver.tlsPort.map(String.init) ?? "off")",
            "h2c": "\(receiver.h2cPort.map(String.init) ?? "off")",
        ])
        return receiver
    }

    /// The bound TLS port, if that listener is on.
    public var tlsPort: Int? { server.port("tls") }
    /// The bound h2c port, if that listener is on.
    public var h2cPort: Int? { server.port("h2c") }
    /// Open HTTP/2 connections.
    public var connectionCount: Int { server.connectionCount }

    /// The ready file's JSON: `{"tls":P,"h2c":P}`, listeners that are off left out.
    public var readyJSON: String {
        let fields = [("tls", tlsPort), ("h2c", h2cPort)].compactMap { name, port in port.map { "\"\(name)\":\($0)" } }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Changes the device registry: register tokens to topics, unregister or expire them.
    public func withDevices<Result>(_ body: (inout DeviceRegistry) -> Result) -> Result {
        endpoint.withDevices(body)
    }

    /// Changes a provider key's standing (revoke it, limit its topics); cached tokens are
    /// judged again.
    public func updateProviderKey(_ keyID: String, _ change: @escaping (inout ProviderKey) -> Void) {
        endpoint.updateKey(keyID, change)
    }

    /// Serves until graceful shutdown, then drains.
    public func run() async throws {
        try await server.run()
    }

    /// Stops accepting, lets open streams finish, closes.
    public func shutdownGracefully() async {
        await server.shutdownGracefully()
    }

    private func writeReadyFile(to path: String) throws {
        // Written whole then renamed, so a watcher never reads half a file.
        let temporary = path + ".tmp"
        try Data(readyJSON.utf8).write(to: URL(fileURLWithPath: temporary))
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }
}

/// The receiver could not start; the message says what to fix.
public struct ReceiverStartError: Error, CustomStringConvertible, Sendable {
    /// One line.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
