import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SilentPushNetworking

/// A TLS handshake with an origin, as an HTTP client with the same TLS configuration would
/// make it, to learn at once what the client's pool would only report at its connect timeout
/// (it retries a failed handshake): that the origin's certificate is refused, or that the
/// origin speaks no TLS.
enum OriginProbe {
    /// AsyncHTTPClient's default trust (the system's roots), loaded once.
    static let defaultContext: NIOSSLContext? = try? NIOSSLContext(configuration: .makeClientConfiguration())

    /// Why `host`:`port` refuses a client with trust `tls`: the connect's error when nobody
    /// listens there or the host is not found (`ConnectionFailure.reason` words it), or
    /// NIOSSL's error when the certificate is refused, `ConnectionFailure.Unreachable` when
    /// the handshake fails otherwise (`handshakeWords`: a server that speaks no TLS); nil
    /// when the handshake completes, the server closes the connection during it, or `timeout`
    /// passes (for each of the connect and the handshake), or the task is cancelled.
    static func refusal(
        host: String, port: Int, tls context: NIOSSLContext, on group: any EventLoopGroup, timeout: TimeAmount = .milliseconds(500)
    ) async -> (any Error)? {
        guard (1...65_535).contains(port) else { return nil }
        // A plain connect first: the handshake's handlers belong to the one connection made
        // (a name's addresses are tried in turn, each on a channel of its own).
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group).connectTimeout(timeout).connect(host: host, port: port).get()
        } catch {
            return ConnectionFailure.reason(error) == nil ? nil : error
        }
        defer { channel.close(promise: nil) }
        // An address is verified against the certificate's IP names and is never a server name.
        let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let done = channel.eventLoop.makePromise(of: Void.self)
        do {
            try await channel.eventLoop.submit {
                // The outcome first, so it sees every event of the TLS handler put before it.
                try channel.pipeline.syncOperations.addHandler(HandshakeOutcome(done: done, timeout: timeout))
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLClientHandler(context: context, serverHostname: serverName), position: .first)
            }.get()
        } catch {
            done.succeed(())
            return nil
        }
        do {
            try await withTaskCancellationHandler {
                try await done.futureResult.get()
            } onCancel: {
                done.fail(CancellationError())
            }
            return nil
        } catch {
            if isRefusedCertificate(error) { return error }
            // A server that speaks no TLS fails every handshake, the request's too. One that
            // closed the probe's connection may only have turned a second connection away
            // (a limit of connections) while it answers the request's: left to the request.
            // (The probe's own connection ending, `eof` or `uncleanShutdown`, has no words.)
            guard !isClosedDuringHandshake(error) else { return nil }
            return handshakeWords(error).map(ConnectionFailure.Unreachable.init(reason:))
        }
    }

    /// Whether `error` is a handshake the server closed the connection during (a request's
    /// error after the handshake, `uncleanShutdown` in the middle of a body, is not one).
    static func isClosedDuringHandshake(_ error: any Error) -> Bool {
        guard case NIOSSLError.handshakeFailed(.sslError(let stack)) = error else { return false }
        return stack.contains(.eofDuringHandshake)
    }

    /// Words for a handshake that the server ended, or that failed other than by its
    /// certificate (a server that does not speak TLS), as the probe or the client's pool
    /// reports it; nil for anything else (a timeout, cancellation, an error after it).
    static func handshakeWords(_ error: any Error) -> String? {
        if isClosedDuringHandshake(error) { return "the server closed the connection during the TLS handshake" }
        guard case NIOSSLError.handshakeFailed(let failure) = error else { return nil }
        guard case .sslError(let stack) = failure else { return "the TLS handshake failed" }
        return "the TLS handshake failed" + (stack.lazy.compactMap { reasonWords(in: $0.description) }.first.map { " (\($0))" } ?? "")
    }

    /// Why a request got no connection to its origin, in words: nobody listens, the host is
    /// not found (`ConnectionFailure.reason`), or the handshake failed (`handshakeWords`).
    static func connectionWords(_ error: any Error) -> String? {
        ConnectionFailure.reason(error) ?? handshakeWords(error)
    }

    /// BoringSSL's reason in an error's `description` (`…:OPENSSL_internal:WRONG_VERSION_NUMBER
    /// at …`), in words: `wrong version number`.
    static func reasonWords(in description: String) -> String? {
        guard let marker = description.range(of: "OPENSSL_internal:") else { return nil }
        let name = description[marker.upperBound...].prefix { $0 != " " }
        return name.isEmpty ? nil : name.lowercased().replacingOccurrences(of: "_", with: " ")
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
