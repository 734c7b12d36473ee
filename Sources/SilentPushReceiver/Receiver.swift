import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import SilentPushCore
import SilentPushStore
import SilentPushTransport
import Synchronization

/// A running receiver: the listeners of a `ReceiverConfiguration`, bound, and the device
/// side on its store. `silentpushd` runs one in a `ServiceGroup`; tests start one
/// in-process on port 0.
public final class Receiver: Service, Sendable {
    /// The configuration it was started with.
    public let configuration: ReceiverConfiguration
    /// The device side: wake policy, store, clock, fetch handler.
    public let device: DeviceRuntime
    private let server: H2Server
    private let endpoint: APNsEndpoint
    private let admin: AdminListener?
    private let httpClient: HTTPClient?
    private let stopped = Mutex<Task<Void, Never>?>(nil)

    private init(
        configuration: ReceiverConfiguration, device: DeviceRuntime, server: H2Server, endpoint: APNsEndpoint, admin: AdminListener?,
        httpClient: HTTPClient?
    ) {
        self.configuration = configuration
        self.device = device
        self.server = server
        self.endpoint = endpoint
        self.admin = admin
        self.httpClient = httpClient
    }

    /// Opens the store, puts back the device state it holds, loads the TLS material, binds
    /// every listener and writes the ready file. Throws a `ReceiverStartError` naming what
    /// to fix.
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
        let keys = try ProviderKeyRing(specs: configuration.authKeys)

        let device: DeviceRuntime
        let unregistered: [(token: String, at: Int64)]
        let registry = PrometheusCollectorRegistry()
        let choices = [configuration.fetchHandler] + Array(configuration.topicFetchHandlers.values)
        let httpClient = choices.contains { if case .url = $0 { true } else { false } } ? HTTPFetchHandler.makeClient(group: group) : nil
        do {
            let store = try PushStore.open(configuration.store)
            unregistered = try store.deviceRecords().compactMap { token, record in record.unregisteredAt.map { (token, $0) } }
            func make(_ choice: FetchHandlerChoice) -> any FetchHandler {
                switch choice {
                case .noData: NoDataFetchHandler()
                case .exec(let command): ExecFetchHandler(command: command)
                case .url(let template): HTTPFetchHandler(template: template, bodyLimit: configuration.fetchBodyLimit, client: httpClient!, store: store)
                case .handler(let handler): handler
                }
            }
            let handler = TopicFetchHandlers(byTopic: configuration.topicFetchHandlers.mapValues(make), fallback: make(configuration.fetchHandler))
            device = try DeviceRuntime.open(
                store: store, clock: configuration.clock, settings: configuration.wakeSettings, handler: handler,
                metrics: PrometheusMetricsFactory(registry: registry), logger: logger)
        } catch {
            try? await httpClient?.shutdown()
            throw ReceiverStartError("\(error) (check --store)")
        }
        let endpoint = APNsEndpoint(
            settings: .init(
                environment: configuration.environment, strict: configuration.strict,
                registryMode: configuration.deviceRegistryMode, rateLimit: configuration.rateLimit),
            keys: keys, sink: device)
        endpoint.withDevices { registry in
            for (token, topics) in configuration.registeredDevices { registry.register(token, topics: topics) }
            for (token, at) in unregistered { registry.unregister(token, at: at) }
        }

        let limits = Self.connectionLimits(configuration, logger: logger)
        let server: H2Server
        do {
            server = try await H2Server.bind(
                listeners: listeners, settings: configuration.settings,
                service: endpoint, limits: limits, shutdownGrace: TimeAmount(configuration.shutdownGrace),
                group: group, logger: logger)
        } catch {
            await device.shutdown(grace: .zero)
            try? await httpClient?.shutdown()
            throw ReceiverStartError("\(error)")
        }
        var admin: AdminListener?
        if let address = configuration.admin {
            if configuration.adminToken == nil, !address.isLoopback {
                logger.warning("the admin API listens beyond loopback with no token: anyone who can reach \(address.host):\(address.port) can change device state and the clock (give --admin-token)")
            }
            let transportCounters = TransportCounters(registry: registry, statistics: server.statistics)
            do {
                admin = try await AdminListener.start(
                    api: AdminAPI(
                        runtime: device, endpoint: endpoint, metrics: registry,
                        beforeScrape: { [connections = registry.makeGauge(descriptor: MetricNameDescriptor(
                                             metricName: "silentpush_connections_open", unitName: "", helpText: "Open HTTP/2 connections.")),
                                         streams = registry.makeGauge(descriptor: MetricNameDescriptor(
                                             metricName: "silentpush_streams_open", unitName: "", helpText: "Pushes received and not yet answered."))] in
                            connections.set(Int64(server.connectionCount))
                            streams.set(Int64(endpoint.requestsAwaitingAnswer))
                            transportCounters.update()
                        },
                        access: AdminAccessPolicy(hosts: configuration.adminHosts, token: configuration.adminToken)),
                    address: address, group: group, logger: logger)
            } catch {
                await server.shutdownGracefully()
                await device.shutdown(grace: .zero)
                try? await httpClient?.shutdown()
                throw ReceiverStartError("cannot listen on \(address.host):\(address.port) (admin): \(error)")
            }
        }
        let receiver = Receiver(
            configuration: configuration, device: device, server: server, endpoint: endpoint, admin: admin, httpClient: httpClient)
        if let path = configuration.readyFile {
            do {
                try receiver.writeReadyFile(to: path)
            } catch {
                await receiver.shutdownGracefully()
                throw ReceiverStartError("cannot write the ready file '\(path)': \(error.localizedDescription)")
            }
        }
        func listener(_ address: ListenAddress?, _ port: Int?) -> Logger.MetadataValue {
            guard let address, let port else { return "off" }
            return "\(address.host):\(port)"
        }
        let settings = configuration.wakeSettings
        let store: Logger.MetadataValue = switch configuration.store {
        case .memory: "memory"
        case .file(let path): "\(path)"
        }
        logger.info("silentpushd listening", metadata: [
            "listen.tls": listener(configuration.listen, receiver.tlsPort),
            "listen.h2c": listener(configuration.listenH2C, receiver.h2cPort),
            "listen.admin": listener(configuration.admin, receiver.adminPort),
            "device.clock": "\(configuration.clock.rawValue)",
            "device.min_interval": "\(settings.minimumInterval)",
            "device.deadline": "\(settings.deadline)",
            "store": store,
        ])
        return receiver
    }

    /// Raises the open-file limit and derives the connection cap from it, saying both.
    static func connectionLimits(_ configuration: ReceiverConfiguration, logger: Logger) -> H2ConnectionLimits {
        let descriptors = FileDescriptorLimit.raiseSoftLimit()
        let maxConnections = configuration.maxConnections
            ?? FileDescriptorLimit.maxConnections(soft: descriptors.soft, maximumConcurrentFetches: configuration.wakeSettings.maximumConcurrentFetches ?? 64)
        var metadata: Logger.Metadata = [
            "files.soft_limit": "\(descriptors.soft)", "files.hard_limit": "\(descriptors.hard)", "max_connections": "\(maxConnections)",
        ]
        if let before = descriptors.raisedFrom { metadata["files.raised_from"] = "\(before)" }
        logger.info("open-file limit", metadata: metadata)
        if maxConnections > FileDescriptorLimit.maxConnections(soft: descriptors.soft, maximumConcurrentFetches: 0) {
            logger.warning("--max-connections is above what the open-file limit allows: past it, clients wait unanswered until connections close", metadata: metadata)
        }
        return H2ConnectionLimits(
            requestTimeout: TimeAmount(configuration.requestTimeout), idleTimeout: TimeAmount(configuration.idleTimeout),
            maxConnections: maxConnections)
    }

    /// The bound TLS port, if that listener is on.
    public var tlsPort: Int? { server.port("tls") }
    /// The bound h2c port, if that listener is on.
    public var h2cPort: Int? { server.port("h2c") }
    /// The bound admin port, if that listener is on.
    public var adminPort: Int? { admin?.port }
    /// Open HTTP/2 connections.
    public var connectionCount: Int { server.connectionCount }

    /// The ready file's JSON: `{"tls":P,"h2c":P,"admin":P}`, listeners that are off left out.
    public var readyJSON: String {
        let fields = [("tls", tlsPort), ("h2c", h2cPort), ("admin", adminPort)].compactMap { name, port in port.map { "\"\(name)\":\($0)" } }
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

    /// Serves until graceful shutdown, then drains (see `shutdownGracefully`).
    public func run() async throws {
        try await server.run()
        await shutdownGracefully()
    }

    /// Stops accepting pushes and lets open streams finish (each 200 after its commit);
    /// then gives running fetches the shutdown grace, records what is left, commits, and
    /// closes the admin listener last, so scripts can read fates until the end.
    public func shutdownGracefully() async {
        let task = stopped.withLock { stopped in
            if let task = stopped { return task }
            let task = Task {
                await self.server.shutdownGracefully()
                await self.device.shutdown(grace: self.configuration.shutdownGrace)
                try? await self.httpClient?.shutdown()
                await self.admin?.stop()
            }
            stopped = task
            return task
        }
        await task.value
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
