import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The HTTP/2 server: listeners bound at creation, connections served on NIO event loops,
/// and a graceful drain (stop accepting, GOAWAY, let open streams finish) when the service
/// group shuts down.
package final class H2Server: Service, Sendable {
    /// How long the drain at graceful shutdown lets open streams run before closing what is left.
    package let shutdownGrace: TimeAmount
    /// Each listener's name and the port it was bound to.
    package let boundPorts: [(name: H2ListenerName, port: Int)]
    /// What was refused or cut short so far.
    package let statistics: H2ServerStatistics

    private let serverChannels: [any Channel]
    private let connections: NIOLockedValueBox<Connections>
    private let logger: Logger

    private struct Connections {
        var nextID: UInt64 = 1
        var open: [UInt64: (channel: any Channel, handler: NIOLoopBound<H2ServerConnectionHandler>)] = [:]
        var draining = false
    }

    private init(
        serverChannels: [any Channel], boundPorts: [(name: H2ListenerName, port: Int)],
        connections: NIOLockedValueBox<Connections>, statistics: H2ServerStatistics, shutdownGrace: TimeAmount, logger: Logger
    ) {
        self.serverChannels = serverChannels
        self.boundPorts = boundPorts
        self.statistics = statistics
        self.connections = connections
        self.shutdownGrace = shutdownGrace
        self.logger = logger
    }

    /// Binds every listener and starts accepting; throws naming the address that failed.
    package static func bind(
        listeners: [H2Listener], settings: H2Settings = H2Settings(), service: any H2Service,
        limits: H2ConnectionLimits = H2ConnectionLimits(), shutdownGrace: TimeAmount = .seconds(30),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = Logger(label: "silentpush.h2")
    ) async throws -> H2Server {
        let connections = NIOLockedValueBox(Connections())
        let statistics = H2ServerStatistics()
        let acceptFailures = H2AcceptFailureLog(statistics: statistics, logger: logger)
        var channels: [any Channel] = []
        var ports: [(name: H2ListenerName, port: Int)] = []
        do {
            for listener in listeners {
                let bootstrap = ServerBootstrap(group: group)
                    .serverChannelOption(.backlog, value: 1024)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .serverChannelInitializer { channel in
                        // Out of file descriptors, accept fails until some close: pause
                        // accepting instead of spinning on it, and say so.
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                AcceptBackoffHandler(shouldForwardIOErrorCaught: false, backoffProvider: { acceptFailures.backoff(after: $0) }))
                        }
                    }
                    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                    .childChannelOption(.maxMessagesPerRead, value: 16)
                    .childChannelInitializer { channel in
                        let accepted: (id: UInt64, over: Bool)? = connections.withLockedValue { state in
                            if state.draining { return nil }
                            defer { state.nextID += 1 }
                            return (state.nextID, state.open.count >= limits.maxConnections)
                        }
                        guard let (id, over) = accepted else { return channel.close() }
                        if over {
                            statistics.connectionsRefused.add(1, ordering: .relaxed)
                            acceptFailures.refused(limit: limits.maxConnections)
                        }
                        let handler = H2ServerConnectionHandler(
                            connectionID: id, tlsContext: listener.tls, settings: settings, service: listener.service ?? service,
                            limits: limits, statistics: statistics, admission: over ? .refuse : .serve, logger: logger, failures: acceptFailures,
                            onClose: { id in _ = connections.withLockedValue { $0.open.removeValue(forKey: id) } })
                        connections.withLockedValue {
                            $0.open[id] = (channel, NIOLoopBound(handler, eventLoop: channel.eventLoop))
                        }
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                    }
                let channel: any Channel
                do {
                    channel = try await bootstrap.bind(host: listener.host, port: listener.port).get()
                } catch let error as IOError where error.errnoCode == EADDRINUSE {
                    throw H2ServerError.addressInUse(host: listener.host, port: listener.port, listener: listener.name)
                } catch {
                    throw H2ServerError.cannotListen(host: listener.host, port: listener.port, listener: listener.name, underlying: error)
                }
                channels.append(channel)
                ports.append((listener.name, channel.localAddress?.port ?? listener.port))
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        return H2Server(
            serverChannels: channels, boundPorts: ports, connections: connections, statistics: statistics,
            shutdownGrace: shutdownGrace, logger: logger)
    }

    /// The port bound for the listener called `name`.
    package func port(_ name: H2ListenerName) -> Int? {
        boundPorts.first { $0.name == name }?.port
    }

    /// Open connections.
    package var connectionCount: Int {
        connections.withLockedValue { $0.open.count }
    }

    /// Serves until the service group shuts down gracefully (or the task is cancelled), then
    /// drains: stops accepting, sends GOAWAY on every connection and waits for their open
    /// streams (at most `shutdownGrace`), then closes what is left. The only way to stop it.
    package func run() async throws {
        try? await gracefulShutdown()
        await drain()
    }

    /// The drain `run()` ends with.
    private func drain() async {
        for channel in serverChannels { try? await channel.close() }
        let open = connections.withLockedValue { state in
            state.draining = true
            return Array(state.open.values)
        }
        if !open.isEmpty {
            logger.info("draining connections", metadata: ["count": "\(open.count)"])
        }
        for connection in open {
            connection.channel.eventLoop.execute { connection.handler.value.beginShutdown() }
        }
        let drained = open.map { $0.channel.closeFuture }
        let deadline = NIODeadline.now() + shutdownGrace
        for (index, future) in drained.enumerated() {
            let channel = open[index].channel
            let timer = channel.eventLoop.scheduleTask(deadline: deadline) {
                open[index].handler.value.forceClose()
            }
            try? await future.get()
            timer.cancel()
        }
    }
}
