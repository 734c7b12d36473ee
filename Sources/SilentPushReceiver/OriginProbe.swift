import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A TLS handshake with an origin, as an HTTP client with the same TLS configuration would
/// make it, to learn at once what the client's pool would only report at its connect timeout
/// (it retries a failed handshake): that the origin's certificate is refused.
enum OriginProbe {
    /// Why the certificate of `host`:`port` is refused under `tls`, as NIOSSL says it; nil
    /// when the handshake completes, or fails for another reason (the connection, `timeout`).
    static func certificateRefusal(
        host: String, port: Int, tls: TLSConfiguration, on group: any EventLoopGroup, timeout: TimeAmount = .milliseconds(500)
    ) async -> (any Error)? {
        guard (1...65_535).contains(port), let context = try? NIOSSLContext(configuration: tls) else { return nil }
        // An address is verified against the certificate's IP names and is never a server name.
        let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let done = group.next().makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: group).connectTimeout(timeout).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                try channel.pipeline.syncOperations.addHandler(HandshakeOutcome(done: done, timeout: timeout))
            }
        }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else {
            done.succeed(())  // never settled otherwise
            return nil
        }
        defer { channel.close(promise: nil) }
        do {
            try await done.futureResult.get()
            return nil
        } catch {
            return isRefusedCertificate(error) ? error : nil
        }
    }

    /// Whether `error` is a server certificate that did not verify: not trusted, or not for
    /// the host (`NSURLErrorServerCertificateUntrusted` on iOS).
    static func isRefusedCertificate(_ error: any Error) -> Bool {
        switch error {
        case NIOSSLError.handshakeFailed(.sslError(let stack)):
            // BoringSSL says which check failed only in its message.
            stack.contains { $0.description.contains("CERTIFICATE_VERIFY_FAILED") }
        case NIOSSLError.unableToValidateCertificate: true  // the Security framework's verdict, on Darwin
        case let error as NIOSSLExtraError: error == .failedToValidateHostname
        default: false
        }
    }

    /// What is wrong with the certificate `error` refused: `is not trusted` or `is not for
    /// its host`; nil when `error` is not a refused certificate.
    static func certificateWords(_ error: any Error) -> String? {
        guard isRefusedCertificate(error) else { return nil }
        return (error as? NIOSSLExtraError) == .failedToValidateHostname ? "is not for its host" : "is not trusted"
    }

    /// Completes `done` once, on the channel's loop: at the handshake's end, its error, the
    /// connection's end, or `timeout`.
    final class HandshakeOutcome: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        private let done: EventLoopPromise<Void>
        private let timeout: TimeAmount
        private var settled = false
        private var timer: Scheduled<Void>?

        init(done: EventLoopPromise<Void>, timeout: TimeAmount) {
            self.done = done
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let timeout = timeout
            timer = context.eventLoop.scheduleTask(in: timeout) { handler.value.settle(.failure(ChannelError.connectTimeout(timeout))) }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted? = event as? TLSUserEvent { settle(.success(())) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            settle(.failure(error))
        }

        func channelInactive(context: ChannelHandlerContext) {
            settle(.failure(ChannelError.eof))
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            settle(.failure(ChannelError.ioOnClosedChannel))
        }

        private func settle(_ result: Result<Void, any Error>) {
            guard !settled else { return }
            settled = true
            timer?.cancel()
            done.completeWith(result)
        }
    }
}
