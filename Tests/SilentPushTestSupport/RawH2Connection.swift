import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SilentPushCore
import SilentPushReceiver

/// A cleartext TCP connection that sends hand-built bytes and collects the server's
/// frames: for the cases a real HTTP/2 client will not produce (bad prefaces, malformed
/// frames, too many streams) and for holding a stream open across a shutdown.
public final class RawH2Connection: Sendable {
    /// What the server sent so far.
    struct Received {
        var bytes: [UInt8] = []
        var closed = false
    }

    private let channel: any Channel
    private let received: NIOLockedValueBox<Received>
    /// Raised when bytes arrive or the connection closes.
    private let changed: AsyncSignal

    private init(channel: any Channel, received: NIOLockedValueBox<Received>, changed: AsyncSignal) {
        self.channel = channel
        self.received = received
        self.changed = changed
    }

    /// Connects to `host:port`, giving up after `timeout` (a listener whose backlog is full
    /// drops SYNs, and the kernel's retries take seconds).
    public static func connect(host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(10)) async throws -> RawH2Connection {
        let received = NIOLockedValueBox(Received())
        let changed = AsyncSignal()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(received: received, changed: changed))
                }
            }
            .connect(host: host, port: port).get()
        return RawH2Connection(channel: channel, received: received, changed: changed)
    }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
    }

    /// Sends frames, in order, in one write.
    public func send(_ frames: [H2Frame]) async throws {
        try await send(frames.flatMap(\.bytes))
    }

    /// Every whole frame received so far.
    public var frames: [H2Frame] {
        H2Frame.parse(received.withLockedValue { $0.bytes }).frames
    }

    /// Whether the server closed the connection.
    public var isClosed: Bool { received.withLockedValue { $0.closed } }

    /// Waits until `condition` holds for the frames received (or the connection closed),
    /// at most `timeout`; returns the frames. It wakes when bytes arrive, not on a timer, so
    /// thousands of waiting connections cost nothing while they wait. One waiter at a time.
    @discardableResult
    public func waitForFrames(timeout: Duration = .seconds(5), until condition: ([H2Frame]) -> Bool) async throws -> [H2Frame] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            // Bytes and the close read together: a close seen after a separate read of the
            // bytes could hide the last frames (a GOAWAY) that arrived in between. Bytes that
            // arrive after this read leave the signal raised, so the wait below returns.
            let (bytes, closed) = received.withLockedValue { ($0.bytes, $0.closed) }
            let frames = H2Frame.parse(bytes).frames
            if condition(frames) || closed || clock.now >= deadline { return frames }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.changed.wait() }
                group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Waits until the server closes the connection; false if it did not within `timeout`.
    public func waitForClose(timeout: Duration = .seconds(5)) async throws -> Bool {
        _ = try await waitForFrames(timeout: timeout) { _ in false }
        return isClosed
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }

    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<Received>
        let changed: AsyncSignal

        init(received: NIOLockedValueBox<Received>, changed: AsyncSignal) {
            self.received = received
            self.changed = changed
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLockedValue { $0.bytes += buffer.readableBytesView }
            changed.raise()
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.withLockedValue { $0.closed = true }
            changed.raise()
        }
    }
}
