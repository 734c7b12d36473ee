import Logging
import NIOCore
import NIOEmbedded
import SilentPushTestSupport
import SilentPushTransport
import Testing

/// The server connection handler on an embedded channel: what NIO calls back into it while it
/// writes.
@Suite struct H2ServerConnectionHandlerTests {
    /// Answers every request 200 at once.
    struct Answering: H2Service {
        func handle(_ request: H2Request, writer: H2ResponseWriter) { writer.respond(H2Response(status: 200)) }
    }

    /// Fires `channelWritabilityChanged` from inside each flush, as a socket does when a write
    /// drains its buffer below the low-water mark.
    final class WritabilityOnFlush: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        func flush(context: ChannelHandlerContext) {
            context.flush()
            context.pipeline.fireChannelWritabilityChanged()
        }
    }

    /// Notes the order of reads and requests as the handler passes them on.
    final class Bracketing: H2Service, @unchecked Sendable {
        var events: [String] = []
        func handle(_ request: H2Request, writer: H2ResponseWriter) {
            events.append("request \(request.streamID)")
            writer.respond(H2Response(status: 200))
        }
        func readBegan() { events.append("began") }
        func readEnded() { events.append("ended") }
    }

    @Test func theRequestsOfEachReadAreBracketedByItsBeginningAndEnd() throws {
        let channel = EmbeddedChannel()
        let service = Bracketing()
        let handler = H2ServerConnectionHandler(
            connectionID: 1, tlsContext: nil, settings: H2Settings(), service: service, limits: H2ConnectionLimits(),
            statistics: H2ServerStatistics(), logger: Logger(label: "test"), onClose: { _ in })
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(bytes: H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes))
        var batch = ByteBuffer()
        for stream in stride(from: UInt32(1), through: 5, by: 2) {
            batch.writeBytes(H2Frame.post(streamID: stream, path: "/", endStream: true).bytes)
        }
        try channel.writeInbound(batch)
        try channel.writeInbound(ByteBuffer(bytes: H2Frame.post(streamID: 7, path: "/", endStream: true).bytes))
        #expect(
            service.events == [
                "began", "ended", "began", "request 1", "request 3", "request 5", "ended", "began", "request 7", "ended",
            ])
        _ = try? channel.finish()
    }

    @Test func aFlushThatTurnsTheChannelWritableDoesNotReenterThePump() throws {
        let channel = EmbeddedChannel()
        let handler = H2ServerConnectionHandler(
            connectionID: 1, tlsContext: nil, settings: H2Settings(), service: Answering(), limits: H2ConnectionLimits(),
            statistics: H2ServerStatistics(), logger: Logger(label: "test"), onClose: { _ in })
        try channel.pipeline.syncOperations.addHandler(WritabilityOnFlush())
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var input = ByteBuffer(bytes: H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes)
        for stream in stride(from: UInt32(1), through: 9, by: 2) {
            input.writeBytes(H2Frame.post(streamID: stream, path: "/", endStream: true).bytes)
        }
        // Without the guard, the nested flush modified the pump while it ran: a fatal access conflict.
        try channel.writeInbound(input)
        var output: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { output += buffer.readableBytesView }
        let answered = H2Frame.parse(output).frames.filter { $0.kind == .headers }.map(\.streamID)
        #expect(answered == [1, 3, 5, 7, 9])
        _ = try? channel.finish()
    }
}
