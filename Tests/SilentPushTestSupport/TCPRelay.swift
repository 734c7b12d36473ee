import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP relay on 127.0.0.1 to a port on 127.0.0.1, for a network that goes silent between a
/// client and its server. `freeze()` stops carrying anything either way, bytes and closes,
/// while every connection stays open: the two ends see no close and no reset, only silence
/// (their kernels still take what they send). `thaw()` carries on with what waited, a close
/// included.
public final class TCPRelay: Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let listener: any Channel
    private let state: NIOLockedValueBox<State>

    struct State {
        var frozen = false
        /// Both ends of every connection carried (closed ones are dropped on the next change).
        var channels: [any Channel] = []
        /// What the connections did while frozen (bytes read, closes), in order, each to be
        /// carried out on its connection's event loop at the thaw.
        var held: [(loop: any EventLoop, carry: @Sendable () -> Void)] = []
        /// Connections accepted so far: each is numbered in order.
        var accepted = 0
        /// The first connection whose first PostgreSQL query freezes the relay (see
        /// `freezeAtTheFirstQueryOfANewConnection()`).
        var freezeAtQueryFrom: Int?
    }

    private init(port: Int, listener: any Channel, state: NIOLockedValueBox<State>) {
        self.port = port
        self.listener = listener
        self.state = state
    }

    /// Listens on a free port and carries each connection to `targetPort`.
    public static func start(to targetPort: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> TCPRelay {
        let state = NIOLockedValueBox(State())
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Nothing is read from a client until its server's end is connected (and then
            // only while the relay is not frozen). An end's close is an event to carry, or hold.
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { client in
                let number = state.withLockedValue { state in
                    defer { state.accepted += 1 }
                    return state.accepted
                }
                return ClientBootstrap(group: client.eventLoop)
                    .channelOption(.autoRead, value: false)
                    .channelOption(.allowRemoteHalfClosure, value: true)
                    .channelInitializer { server in
                        server.eventLoop.makeCompletedFuture {
                            try server.pipeline.syncOperations.addHandler(Carrier(to: client, state: state, fromClient: nil))
                        }
                    }
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { server in
                        do {
                            try client.pipeline.syncOperations.addHandler(Carrier(to: server, state: state, fromClient: number))
                        } catch {
                            return client.eventLoop.makeFailedFuture(error)
                        }
                        let frozen = state.withLockedValue { state in
                            state.channels.removeAll { !$0.isActive }
                            state.channels += [client, server]
                            return state.frozen
                        }
                        return frozen ? client.eventLoop.makeSucceededVoidFuture() : Self.setAutoRead(true, on: [client, server])
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw ChannelError.inputClosed
        }
        return TCPRelay(port: port, listener: listener, state: state)
    }

    /// Stops carrying anything on every connection, open or yet to come; none is closed.
    public func freeze() async throws {
        let channels = state.withLockedValue { state in
            state.frozen = true
            return state.channels
        }
        try await Self.setAutoRead(false, on: channels).get()
    }

    /// Freezes the relay (as `freeze()`) when a connection accepted from now on sends a chunk
    /// that starts as a PostgreSQL query does (`P`, Parse, or `Q`), which is held: for a
    /// server whose start-up answers and whose next answer never comes. (A start-up's chunks
    /// start with their length, and a password message with `p`.)
    public func freezeAtTheFirstQueryOfANewConnection() {
        state.withLockedValue { $0.freezeAtQueryFrom = $0.accepted }
    }

    /// Carries on: first what waited (bytes and closes, in order, still frozen so nothing
    /// newer passes them), then whatever comes.
    public func thaw() async throws {
        while let held = state.withLockedValue({ state -> [(loop: any EventLoop, carry: @Sendable () -> Void)]? in
            guard !state.held.isEmpty else {
                state.frozen = false
                return nil
            }
            defer { state.held = [] }
            return state.held
        }) {
            for (loop, carry) in held { try await loop.submit(carry).get() }
        }
        try await Self.setAutoRead(true, on: state.withLockedValue { $0.channels }).get()
    }

    /// Thaws the relay once `delay` has passed, unless the task is cancelled first: a test
    /// whose code under test would wait on the frozen network for ever then fails on its
    /// times (the wait ends at the thaw) rather than hang the suite.
    public func thaw(after delay: Duration) -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            try? await self.thaw()
        }
    }

    /// Stops listening and closes every connection.
    public func close() async {
        let channels = state.withLockedValue { $0.channels }
        try? await listener.close()
        for channel in channels { try? await channel.close() }
    }

    private static func setAutoRead(_ on: Bool, on channels: [any Channel]) -> EventLoopFuture<Void> {
        guard let first = channels.first else { return MultiThreadedEventLoopGroup.singleton.next().makeSucceededVoidFuture() }
        let changes = channels.map { channel in
            channel.setOption(.autoRead, value: on).flatMapErrorThrowing { error in
                // A connection already closed needs no change.
                guard channel.isActive else { return }
                throw error
            }
        }
        return EventLoopFuture.andAllSucceed(changes, on: first.eventLoop)
    }

    /// Writes what one end reads to the other, and closes the other when this one closes;
    /// while the relay is frozen it leaves both for the thaw.
    final class Carrier: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private let partner: any Channel
        private let state: NIOLockedValueBox<State>
        /// The connection's number when this end is the client's; nil for the server's end.
        private let fromClient: Int?

        init(to partner: any Channel, state: NIOLockedValueBox<State>, fromClient: Int?) {
            self.partner = partner
            self.state = state
            self.fromClient = fromClient
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            if let number = fromClient, let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self),
                first == UInt8(ascii: "P") || first == UInt8(ascii: "Q")
            {
                let channels = state.withLockedValue { state -> [any Channel]? in
                    guard let from = state.freezeAtQueryFrom, number >= from else { return nil }
                    state.freezeAtQueryFrom = nil
                    state.frozen = true
                    return state.channels
                }
                if let channels { _ = TCPRelay.setAutoRead(false, on: channels) }
            }
            carry(on: context.eventLoop) { [partner] in partner.writeAndFlush(bytes, promise: nil) }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, case .inputClosed = event {
                carry(on: context.eventLoop) { [partner, channel = context.channel] in
                    partner.close(promise: nil)
                    channel.close(promise: nil)
                }
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            carry(on: context.eventLoop) { [partner] in partner.close(promise: nil) }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        /// Does `work` now, or, while the relay is frozen, at the thaw.
        private func carry(on loop: any EventLoop, _ work: @escaping @Sendable () -> Void) {
            let now = state.withLockedValue { state in
                guard state.frozen else { return true }
                state.held.append((loop, work))
                return false
            }
            if now { work() }
        }
    }
}
