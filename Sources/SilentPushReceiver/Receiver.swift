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

/// A receiver: the listeners of a `ReceiverConfiguration` and the device side on its
/// store. It is a `Service`, modelled on Hummingbird's `Application`: creating it opens the
/// store, puts back the device state it holds and checks the TLS material (throwing a
/// `ReceiverStartError` that says what to fix); `run()` binds the listeners, writes the
/// ready file and runs every long-lived part as a child service until graceful shutdown.
/// `silentpushd` runs one in its `ServiceGroup`; tests run one in-process on port 0
/// (`Receiver.withTesting`).
public final class Receiver: Service, Sendable {
    /// The configuration it was made with.
    public let configuration: ReceiverConfiguration
    /// The device side: its clock, devices, apps, tasks and records.
    public let device: DeviceControl
    /// The device side's executor: what the endpoint submits pushes to.
    private let runtime: DeviceRuntime
    /// Closes the store once every other service has stopped.
    private let storeService: DeviceStoreService
    private let endpoint: APNsEndpoint
    /// Broadcast channels, for the channel and broadcast APIs alike.
    let channels: ChannelDirectory
    private let listeners: [H2Listener]
    private let registry: PrometheusCollectorRegistry
    private let httpClient: HTTPClient?
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let readiness = ReceiverReadiness()
    /// Keeps the store within `configuration.retention`.
    private let pruner: StorePruner
    /// The bound HTTP/2 server, while `run()` runs.
    private let server = Mutex<H2Server?>(nil)
    /// Its part in a cluster: claims shards and puts their devices back; nil: it stands alone.
    let membership: ClusterMembership?

    /// Opens the store, puts back the device state it holds and loads the TLS material;
    /// binds nothing yet (`run()` does). Throws a `ReceiverStartError` naming what to fix.
    /// The store is this receiver's from here: `run()` closes it as it stops, and a receiver
    /// that never runs lets it go when it is dropped (a second one on the same file is
    /// refused meanwhile, in this process too).
    public init(
        _ configuration: ReceiverConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "silentpushd")
    ) async throws {
        var listeners: [H2Listener] = []
        var tls: TLSContext?
        if configuration.listen != nil || configuration.listenChannels != nil {
            do {
                tls = try TLSContext.server(
                    TLSServerConfiguration(
                        certificateChainFile: configuration.tlsCertificate, privateKeyFile: configuration.tlsKey,
                        clientCAFile: configuration.clientCA))
            } catch {
                throw ReceiverStartError.tls(error)
            }
            if let validity = tls?.certificateValidity,
                let problem = Self.certificateDatesProblem(validity, file: configuration.tlsCertificate, now: Int64(Date().timeIntervalSince1970))
            {
                logger.warning("\(problem)")
            }
        }
        if let address = configuration.listen {
            listeners.append(H2Listener(name: .tls, host: address.host, port: address.port, tls: tls))
        }
        if let address = configuration.listenH2C {
            listeners.append(H2Listener(name: .h2c, host: address.host, port: address.port, tls: nil))
        }
        guard !listeners.isEmpty else { throw ReceiverStartError.noListener }
        if let problem = configuration.transfers.problem { throw ReceiverStartError.settings(problem) }
        if let problem = configuration.wakeSettings.problem { throw ReceiverStartError.settings(problem) }
        guard configuration.faults.count <= FaultTable.capacity else {
            throw ReceiverStartError.settings(FaultRulesOverCapacity(count: configuration.faults.count))
        }
        let keys = try ProviderKeyRing(specs: configuration.authKeys)
        // A cluster's shards, checked before anything opens: the one map the device side keeps.
        let shardMap: ShardMap?
        if let cluster = configuration.cluster {
            guard case .postgres = configuration.store else { throw ReceiverStartError.cluster(ClusterConfigurationError.needsPostgres) }
            guard let map = ShardMap(count: cluster.shards) else {
                throw ReceiverStartError.cluster(ClusterConfigurationError.shardCount(cluster.shards))
            }
            guard ClusterConfiguration.claimIntervalRange.contains(cluster.claimInterval) else {
                throw ReceiverStartError.cluster(ClusterConfigurationError.claimInterval(cluster.claimInterval))
            }
            guard configuration.faults.isEmpty else { throw ReceiverStartError.cluster(ClusterConfigurationError.faultsInConfiguration) }
            shardMap = map
        } else {
            shardMap = nil
        }

        let registry = PrometheusCollectorRegistry()
        let choices = [configuration.fetchHandler] + Array(configuration.topicFetchHandlers.values)
        let originTrust: OriginTrust
        do {
            originTrust = try OriginTrust(certificateAuthorities: configuration.originCertificateAuthorities)
        } catch {
            throw ReceiverStartError.tls(error)
        }
        let httpClient =
            choices.contains { if case .url = $0 { true } else { false } } ? HTTPFetchHandler.makeClient(group: group, trust: originTrust) : nil
        let runtime: DeviceRuntime
        let channels: ChannelDirectory
        let unregistered: [(token: String, at: Int64)]
        let registered: [(token: String, topics: [String])]
        let store: PushStore
        do {
            store = try await PushStore.open(
                configuration.store.pushStoreLocation, fresh: configuration.fresh, clustered: configuration.cluster != nil)
            func make(_ choice: FetchHandlerChoice) -> any FetchHandler {
                switch choice {
                case .noData: NoDataFetchHandler()
                case .exec(let command):
                    ExecFetchHandler(command: command, taskKillGrace: configuration.wakeSettings.taskExpirationGrace, logger: logger)
                case .url(let template):
                    HTTPFetchHandler(
                        template: template, bodyLimit: configuration.fetchBodyLimit, client: httpClient!, store: store, trust: originTrust)
                case .handler(let handler): handler
                }
            }
            channels = try await ChannelDirectory(
                store: store, environment: configuration.environment,
                featureDisabled: Set(configuration.apps.filter { !$0.value.broadcast }.keys))
            let handler = TopicFetchHandlers(byTopic: configuration.topicFetchHandlers.mapValues(make), fallback: make(configuration.fetchHandler))
            (runtime, unregistered, registered) = try await DeviceRuntime.open(
                store: store, clock: configuration.clock, settings: configuration.wakeSettings, shutdownGrace: configuration.shutdownGrace,
                handler: handler, declarations: configuration.apps, liveActivities: configuration.liveActivities,
                transfers: configuration.transfers, channels: channels, shards: shardMap, originTrust: originTrust,
                group: group, metrics: MetricsHelp(registry: registry), logger: logger)
        } catch {
            try? await httpClient?.shutdown()
            throw ReceiverStartError.store(error)
        }
        let endpoint = APNsEndpoint(
            settings: .init(
                environment: configuration.environment, strict: configuration.strict,
                registryMode: configuration.deviceRegistryMode, rateLimit: configuration.rateLimit),
            keys: keys, sink: runtime, channels: channels, deviceNow: { [runtime] in runtime.clock.now }, logger: logger)
        if configuration.listenChannels != nil || configuration.listenChannelsH2C != nil {
            let service = ChannelEndpoint(directory: channels, provider: endpoint, logger: logger)
            if let address = configuration.listenChannels {
                listeners.append(H2Listener(name: .channels, host: address.host, port: address.port, tls: tls, service: service))
            }
            if let address = configuration.listenChannelsH2C {
                listeners.append(H2Listener(name: .channelsH2C, host: address.host, port: address.port, tls: nil, service: service))
            }
        }
        // At most the table's capacity, checked above: every rule is taken.
        for rule in configuration.faults { _ = endpoint.addFault(rule) }
        endpoint.withDevices { registry in
            for (token, topics) in configuration.registeredDevices { registry.register(token, topics: topics) }
            // Registered at run time (a reinstall's token), then what was unregistered since.
            // The configuration file's say for its own tokens stands (a narrower list, a token taken out).
            let configured = Set(configuration.registeredDevices.keys.map { $0.lowercased() })
            for (token, topics) in registered where !configured.contains(token.lowercased()) { registry.register(token, topics: topics) }
            for (token, at) in unregistered { registry.unregister(token, at: at) }
        }
        pruner = StorePruner(
            store: runtime.store, retention: configuration.retention, interval: configuration.retentionPassInterval,
            now: { [runtime] in runtime.clock.now },
            held: { [runtime] in
                // Under the lock: a push with a later id was not yet stepped when the set was
                // read. Clustered, every pending push is kept, and the other members number
                // from blocks above this one's.
                let (pushes, kept, unstepped) = runtime.inspect {
                    ($0.retainedPushes, $0.retainedBroadcasts, runtime.clustered ? nil : Int64(clamping: runtime.nextPushID.load(ordering: .relaxed)))
                }
                // A channel the app deleted keeps nothing (looked up outside the runtime's lock).
                return (pushes, Set(kept.filter { channels.exists($0.key.channel, bundleID: $0.key.bundleID) }.values), unstepped)
            },
            removeTransferFiles: { [runtime] transfers in
                // A URL another record still validates keeps the body a 304 hands out.
                await runtime.transferClient.forgetFiles(of: transfers) { transfer in
                    (try? await runtime.store.lastValidatedTransfer(deviceToken: transfer.deviceToken, topic: transfer.topic, url: transfer.url))
                        != nil
                }
            },
            forgetDismissedActivities: { [runtime] cutoff in
                runtime.modifyStateAndRunActions { recorder, _ in recorder.forgetDismissedActivities(before: cutoff) }
            },
            sweepTransferFiles: { [runtime] in
                guard let validated = try? await runtime.store.validatedTransferURLs() else { return nil }
                return await runtime.transferClient.sweepFiles(
                    // A record that cannot be read now keeps its files.
                    recorded: { id in (try? await runtime.store.hasTransfer(id: id)) ?? true }, validated: validated)
            },
            metrics: MetricsHelp(registry: registry), logger: logger)
        self.configuration = configuration
        self.runtime = runtime
        let device = DeviceControl(runtime: runtime, endpoint: endpoint)
        if let cluster = configuration.cluster {
            do {
                membership = try await ClusterMembership.join(
                    cluster, device: device, configuredTokens: Set(configuration.registeredDevices.keys.map { $0.lowercased() }), logger: logger)
            } catch {
                try? await store.close()
                try? await httpClient?.shutdown()
                throw ReceiverStartError.cluster(error)
            }
        } else {
            membership = nil
        }
        self.device = device
        self.storeService = DeviceStoreService(runtime: runtime, timerLoop: group.next(), logger: logger)
        self.endpoint = endpoint
        self.channels = channels
        self.listeners = listeners
        self.registry = registry
        self.httpClient = httpClient
        self.eventLoopGroup = group
        self.logger = logger
    }

    /// Binds every listener, writes the ready file, and runs the store's service, the admin
    /// listener, the pruner, the device side and the HTTP/2 server as child services until
    /// graceful shutdown. They stop in reverse: the server stops accepting and lets open
    /// streams finish (each 200 after its commit); then running fetches get what is left of
    /// the shutdown grace, counted from the signal, and what is left is recorded and committed; the admin listener closes after
    /// them, so scripts can read fates until the end; the store closes last.
    public func run() async throws {
        // A receiver runs once: its store closes as it stops.
        guard readiness.begin() else { throw ReceiverStartError.alreadyRan }
        defer { readiness.end() }
        do {
            for (token, state) in configuration.deviceStates where device.deviceState(of: token) != state {
                try await device.setDeviceState(state, for: token)
            }
            let limits = Self.connectionLimits(configuration, logger: logger)
            let server = try await H2Server.bind(
                listeners: listeners, settings: configuration.settings, service: endpoint,
                limits: limits, shutdownGrace: TimeAmount(configuration.shutdownGrace),
                group: eventLoopGroup, logger: logger)
            self.server.withLock { $0 = server }
            var quiet = logger
            quiet.logLevel = max(logger.logLevel, .notice)
            var services: [any Service] = [storeService]
            if let address = configuration.admin {
                let unguarded = configuration.adminToken == nil && !address.isLoopback
                services.append(
                    AdminListener.application(
                        api: adminAPI(server), address: address,
                        idleTimeout: limits.slowClientLimit, group: eventLoopGroup, logger: logger,
                        onBound: { port in
                            if unguarded {
                                // The port it took, which `:0` does not say.
                                self.logger.warning(
                                    "the admin API listens beyond loopback with no token: anyone who can reach \(address.host):\(port) can change device state and the clock (give --admin-token)"
                                )
                            }
                            self.becomeReady(server, adminPort: port)
                        }))
            } else {
                becomeReady(server, adminPort: nil)
            }
            services += [pruner, runtime]
            // Stops before the device side drains; the store's close then ends its claims.
            if let membership { services.append(membership) }
            services.append(server)
            let children = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: quiet))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        // The grace counts from the signal: the server's drain, then the
                        // fetches', share it.
                        try await withGracefulShutdownHandler {
                            try await children.run()
                        } onGracefulShutdown: {
                            self.runtime.shutdownBegan()
                            self.storeService.shutdownBegan()
                        }
                    } catch {
                        self.readiness.settle(.failure(self.startError(error)))
                        throw error
                    }
                }
                // A ready file that cannot be written stops the receiver.
                group.addTask { _ = try await self.readiness.wait() }
                // next(), not waitForAll(): the first error must end the group (cancelling the
                // children) rather than wait for them to stop on their own.
                while try await group.next() != nil {}
            }
        } catch {
            readiness.settle(.failure(startError(error)))
            // Closed by its service if the tree ran; here if it failed before.
            await storeService.close()
            await release()
            // The failure that stopped it first (a cancelled sibling only followed from it).
            if case .failure(let failure)? = readiness.result { throw failure }
            throw error
        }
        readiness.settle(.failure(ReceiverStartError.stoppedBeforeReady))
        await release()
    }

    /// What stopped `run()` as a user reads it: an address that cannot be listened on names
    /// the flag that moves it.
    private func startError(_ error: any Error) -> any Error {
        switch error {
        case let error as ReceiverStartError: return error
        case H2ServerError.addressInUse(_, _, let listener):
            let (address, flag) = listenerAddress(listener)
            return ReceiverStartError.addressInUse(address: address, flag: flag, underlying: error)
        case H2ServerError.cannotListen(_, _, let listener, let underlying):
            let (address, flag) = listenerAddress(listener)
            guard let reason = Self.listenReason(underlying) else { return ReceiverStartError.serving(error) }
            return ReceiverStartError.cannotListen(address: address, flag: flag, reason: reason, underlying: error)
        // The HTTP/2 listeners are bound before the children run: a busy address after that
        // is the admin API's, as is an address it cannot bind.
        case let error as IOError where error.errnoCode == EADDRINUSE:
            return ReceiverStartError.addressInUse(
                address: configuration.admin.map { "\($0)" } ?? "the admin address", flag: "--admin", underlying: error)
        default:
            guard let reason = Self.listenReason(error) else { return ReceiverStartError.serving(error) }
            return ReceiverStartError.cannotListen(
                address: configuration.admin.map { "\($0)" } ?? "the admin address", flag: "--admin", reason: reason, underlying: error)
        }
    }

    /// The address `listener` was given, and the flag that gives it.
    private func listenerAddress(_ listener: H2ListenerName) -> (address: String, flag: String) {
        let (address, flag) =
            switch listener {
            case .tls: (configuration.listen, "--listen")
            case .h2c: (configuration.listenH2C, "--listen-h2c")
            case .channels: (configuration.listenChannels, "--listen-channels")
            case .channelsH2C: (configuration.listenChannelsH2C, "--listen-channels-h2c")
            }
        return (address.map { "\($0)" } ?? listener.rawValue, flag)
    }

    /// Words for why an address cannot be bound, when the error is one of binding: no
    /// interface of this host has it, its host is not found, or the port needs privileges.
    static func listenReason(_ error: any Error) -> String? {
        switch error {
        case let error as IOError where error.errnoCode == EADDRNOTAVAIL: "no interface of this host has that address"
        case let error as IOError where error.errnoCode == EACCES:
            "permission denied (a port below 1024 needs root or CAP_NET_BIND_SERVICE)"
        case let error as SocketAddressError.UnknownHost: "host \(error.host) not found"
        default: nil
        }
    }

    /// Once every child has stopped: the fetch handlers' HTTP client.
    private func release() async {
        try? await httpClient?.shutdown()
    }

    /// Waits until `run()` has bound every listener and written the ready file; throws the
    /// error that stopped it instead, or `CancellationError` when the caller is cancelled
    /// first (as for a receiver nobody runs).
    public func ready() async throws {
        _ = try await readiness.wait()
    }

    /// Every listener is bound: the ready file is written and the start logged.
    private func becomeReady(_ server: H2Server, adminPort: Int?) {
        var ports = ReceiverReadiness.Ports(admin: adminPort)
        for (name, port) in server.boundPorts { ports.listeners[name] = port }
        if let path = configuration.readyFile {
            do {
                try Self.writeReadyFile(Self.readyJSON(ports), to: path)
            } catch {
                // Thrown by run(): silentpushd prints it as its last line.
                readiness.settle(.failure(ReceiverStartError.readyFile(path: path, underlying: error)))
                return
            }
        }
        readiness.settle(.success(ports))
        func listener(_ address: ListenAddress?, _ port: Int?) -> Logger.MetadataValue {
            guard let address, let port else { return "off" }
            return "\(address.host):\(port)"
        }
        let settings = configuration.wakeSettings
        let store: Logger.MetadataValue =
            switch configuration.store {
            case .memory: "memory"
            case .file(let path): "\(path)"
            case .postgres(let url): "\(url)"
            }
        logger.info(
            "silentpushd listening",
            metadata: [
                "listen.tls": listener(configuration.listen, ports.listeners[.tls]),
                "listen.h2c": listener(configuration.listenH2C, ports.listeners[.h2c]),
                "listen.channels": listener(configuration.listenChannels, ports.listeners[.channels]),
                "listen.channels_h2c": listener(configuration.listenChannelsH2C, ports.listeners[.channelsH2C]),
                "listen.admin": listener(configuration.admin, ports.admin),
                "device.clock": "\(configuration.clock.rawValue)",
                "device.min_interval": "\(settings.minimumInterval)",
                "device.deadline": "\(settings.deadline)",
                "store": store,
            ])
        let path: String
        switch configuration.store {
        case .memory: return
        case .file(let file): path = file
        case .postgres(let url): path = url.description
        }
        if let aside = runtime.store.setAside {
            logger.info("started from an empty store; the previous one is kept as \(aside)", metadata: ["store": "\(path)"])
        } else if !runtime.resumed.isEmpty {
            logger.info("resumed \(runtime.resumed.summary) from \(path) (--fresh starts from an empty store)", metadata: ["store": "\(path)"])
        }
    }

    /// What the store held at start-up and the receiver carries on with (nothing after `fresh`).
    public var resumed: ResumedState { runtime.resumed }

    /// Marks when graceful shutdown began, as the signal does (the first mark counts): the
    /// drain's one grace counts from it.
    package func shutdownBegan(at instant: ContinuousClock.Instant) {
        runtime.shutdownBegan(at: instant)
    }

    /// When graceful shutdown began (real time); nil until it does.
    package var shutdownBeganAt: ContinuousClock.Instant? {
        runtime.shutdownStart.withLock { $0 }
    }

    /// Runs one pruning pass now (the receiver runs one every 10 seconds): what a test calls
    /// after moving the manual clock.
    package func pruneStore() async throws -> PushStore.Pruned {
        let pruned = try await pruner.pass()
        _ = await pruner.sweep()
        return pruned
    }

    /// One metric's value as `/metrics` shows it (`name` with its labels, as on the page), or
    /// nil when the page has no such line. The device side's counters, for tests.
    package func metric(_ name: String) -> Double? {
        let page = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        for line in page.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// The admin API's routes, each as "METHOD /path/{parameter}": tests hold them against
    /// the OpenAPI document. A HEAD route is its GET's, not a route of its own.
    package var adminRoutes: [String] {
        AdminAPI(device: device, endpoint: endpoint, metrics: registry, beforeScrape: {}, cluster: membership).router().routes
            .filter { $0.method != .head }.map { "\($0.method) \($0.path)" }
    }

    /// The admin API over this receiver, its gauges read from `server` at scrape time.
    private func adminAPI(_ server: H2Server) -> AdminAPI {
        let transportCounters = TransportCounters(registry: registry, statistics: server.statistics)
        let connections = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "silentpush_connections_open", unitName: "", helpText: "Open HTTP/2 connections."))
        let streams = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "silentpush_streams_open", unitName: "", helpText: "Pushes received and not yet answered."))
        return AdminAPI(
            device: device, endpoint: endpoint, metrics: registry,
            beforeScrape: { [endpoint] in
                connections.set(Int64(server.connectionCount))
                streams.set(Int64(endpoint.requestsAwaitingAnswer))
                transportCounters.update()
            },
            access: AdminAccessPolicy(hosts: configuration.adminHosts, token: configuration.adminToken), cluster: membership)
    }

    /// Raises the open-file limit and derives the connection cap from it, saying both.
    static func connectionLimits(_ configuration: ReceiverConfiguration, logger: Logger) -> H2ConnectionLimits {
        let descriptors = FileDescriptorLimit.raiseSoftLimit()
        let maxConnections =
            configuration.maxConnections
            ?? FileDescriptorLimit.maxConnections(
                soft: descriptors.soft, maximumConcurrentFetches: configuration.wakeSettings.maximumConcurrentFetches ?? 64)
        var metadata: Logger.Metadata = [
            "files.soft_limit": "\(descriptors.soft)", "files.hard_limit": "\(descriptors.hard)", "max_connections": "\(maxConnections)",
        ]
        if let before = descriptors.raisedFrom { metadata["files.raised_from"] = "\(before)" }
        logger.info("open-file limit", metadata: metadata)
        if maxConnections > FileDescriptorLimit.maxConnections(soft: descriptors.soft, maximumConcurrentFetches: 0) {
            logger.warning(
                "--max-connections is above what the open-file limit allows: past it, clients wait unanswered until connections close",
                metadata: metadata)
        }
        return H2ConnectionLimits(
            requestTimeout: TimeAmount(configuration.requestTimeout), idleTimeout: TimeAmount(configuration.idleTimeout),
            maxConnections: maxConnections)
    }

    private var ports: ReceiverReadiness.Ports {
        (try? readiness.result?.get()) ?? ReceiverReadiness.Ports()
    }

    /// The bound TLS port, once ready, if that listener is on.
    public var tlsPort: Int? { ports.listeners[.tls] }
    /// The bound h2c port, once ready, if that listener is on.
    public var h2cPort: Int? { ports.listeners[.h2c] }
    /// The bound channel-management TLS port, once ready, if that listener is on.
    public var channelsPort: Int? { ports.listeners[.channels] }
    /// The bound channel-management h2c port, once ready, if that listener is on.
    public var channelsH2CPort: Int? { ports.listeners[.channelsH2C] }
    /// The bound admin port, once ready, if that listener is on.
    public var adminPort: Int? { ports.admin }
    /// Open HTTP/2 connections.
    public var connectionCount: Int { server.withLock { $0?.connectionCount ?? 0 } }

    /// The ready file's JSON: `{"tls":P,"h2c":P,"admin":P}`, listeners that are off left out.
    public var readyJSON: String { Self.readyJSON(ports) }

    private static func readyJSON(_ ports: ReceiverReadiness.Ports) -> String {
        // Named as the listeners are (`H2ListenerName`'s raw values), in their declared order, then the admin API.
        let named =
            H2ListenerName.allCases.compactMap { name in ports.listeners[name].map { (name.rawValue, $0) } }
            + [ports.admin.map { ("admin", $0) }].compactMap { $0 }
        return "{" + named.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Changes the device registry: register tokens to topics, unregister or expire them.
    public func withDevices<Result>(_ body: (inout DeviceRegistry) -> Result) -> Result {
        endpoint.withDevices(body)
    }

    /// Forgets `token`'s device: its state, what waits for it, its registration and every
    /// record of it (`DELETE /v1/devices/{token}`).
    public func forget(device token: String) async throws {
        try await device.forget(device: token)
    }

    /// Forgets everything but the clock (`POST /v1/reset`): devices, records, registrations
    /// and fault rules. For tests that share one receiver.
    public func reset() async throws {
        try await device.reset()
    }

    /// The app on `token` is deleted and installed again: returns its new device token
    /// (registered to the same topics, with the device's state); pushes to the old one get
    /// `410 Unregistered` with the time of the change.
    public func reinstall(_ token: String) async throws -> String {
        try await device.reinstall(token).token
    }

    /// Adds a fault rule to the APNs endpoint (as `POST /v1/faults`); returns its id, nil
    /// when the table is full.
    @discardableResult
    public func addFault(_ rule: FaultRule) -> UInt64? {
        endpoint.addFault(rule)
    }

    /// Removes fault rule `id` (nil: every rule); false when there was none.
    @discardableResult
    public func removeFault(_ id: UInt64? = nil) -> Bool {
        endpoint.removeFault(id)
    }

    /// The fault rules in force, each with how often it applied.
    public var faultRules: [FaultRule] { endpoint.faultRules }

    /// Changes a provider key's standing (revoke it, limit its topics); cached tokens are
    /// judged again.
    public func updateProviderKey(_ keyID: String, _ change: @escaping (inout ProviderKey) -> Void) {
        endpoint.updateKey(keyID, change)
    }

    private static func writeReadyFile(_ json: String, to path: String) throws {
        // Written whole then renamed over the old file, so a watcher never reads half a file.
        // rename(2) replaces whatever is at `path` but a directory (a device, a symbolic
        // link), so only a regular file is replaced.
        guard !path.isEmpty else { throw POSIXError(.ENOENT) }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG { throw NotARegularFile(mode: status.st_mode & S_IFMT) }
        let temporary = path + ".tmp"
        try Data(json.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            try? FileManager.default.removeItem(atPath: temporary)
            throw POSIXError(code)
        }
    }

    /// Something other than a regular file is at the ready file's path: it is left as it is.
    private struct NotARegularFile: LocalizedError {
        /// The file type bits of what is there (`st_mode & S_IFMT`).
        let mode: mode_t

        var errorDescription: String? {
            let kind =
                switch mode {
                case S_IFLNK: "a symbolic link"
                case S_IFDIR: "a directory"
                case S_IFIFO: "a pipe"
                case S_IFSOCK: "a socket"
                case S_IFCHR, S_IFBLK: "a device"
                default: "something other than a regular file"
                }
            return "\(kind) is there, not a regular file: it is never replaced"
        }
    }
}
