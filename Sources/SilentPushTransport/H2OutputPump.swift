import NIOCore

/// A session whose output can be drained in chunks: `H2ServerSession`, `H2ClientSession`.
protocol H2OutputSource: AnyObject {
    func drainOutput(limit: Int, _ sink: (UnsafeRawBufferPointer) -> Void) -> Int
}

extension H2ServerSession: H2OutputSource {}
extension H2ClientSession: H2OutputSource {}

/// Moves a session's output to the socket, through TLS when the connection has it, in
/// chunks for as long as the channel is writable (the rest waits in nghttp2 until
/// writability returns). Used by the server and client handlers alike.
struct H2OutputPump {
    /// Output handed to the socket per pass before writability is checked again.
    static let chunk = 256 * 1024

    let tls: TLSEngine?
    /// Reused between passes: TLS encrypts one aggregated buffer instead of one record per frame.
    private var plaintext: [UInt8] = []

    init(tls: TLSEngine?) {
        self.tls = tls
    }

    /// Writes and flushes what `source` has; throws when TLS cannot encrypt it.
    mutating func pump(_ source: some H2OutputSource, context: ChannelHandlerContext) throws {
        while context.channel.isWritable {
            var buffer = context.channel.allocator.buffer(capacity: 0)
            let produced: Int
            if let tls {
                plaintext.removeAll(keepingCapacity: true)
                produced = source.drainOutput(limit: Self.chunk) { plaintext.appendBytes($0) }
                try plaintext.withUnsafeBytes { try tls.writePlaintext($0) }
                tls.drainCiphertext { buffer.writeBytes($0) }
            } else {
                produced = source.drainOutput(limit: Self.chunk) { buffer.writeBytes($0) }
            }
            if buffer.readableBytes > 0 { context.writeAndFlush(NIOAny(buffer), promise: nil) }
            if produced < Self.chunk { break }
        }
    }

    /// Writes TLS records that wait without any HTTP/2 output: handshake, alerts.
    func writeCiphertext(context: ChannelHandlerContext) {
        guard let tls, tls.pendingCiphertext > 0 else { return }
        var buffer = context.channel.allocator.buffer(capacity: tls.pendingCiphertext)
        tls.drainCiphertext { buffer.writeBytes($0) }
        context.writeAndFlush(NIOAny(buffer), promise: nil)
    }
}
