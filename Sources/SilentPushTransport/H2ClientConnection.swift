import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SilentPushNetworking

/// One client HTTP/2 connection (TLS with ALPN h2, or h2c with prior knowledge) carrying
/// many concurrent requests; requests past the server's MAX_CONCURRENT_STREAMS wait in
/// nghttp2 until a stream frees up.
package final class H2ClientConnection: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<Handler>
    /// `host:port` as sent in `:authority`.
    package let authority: String
    /// `https` or `http`.
    package let scheme: String
    /// The TLS handshake's facts, or nil for h2c.
    package let tls: TLSSessionInfo?

    private init(channel: any Channel, handler: NIOLoopBound<Handler>, authority: String, scheme: String, tls: TLSSessionInfo?) {
        self.channel = channel
        self.handler = handler
        self.authority = authority
        self.scheme = scheme
        self.tls = tls
    }

    /// Connects and, with `tls`, completes the handshake (certificate and host name
    /// checked unless the context is insecure); throws a one-line reason otherwise. With
    /// `answerTimeout`, a server that sends nothing for that long while the handshake or a
    /// request waits on it has the connection closed (`H2ConnectError.noAnswer`), failing
    /// the requests open on it: a peer that accepts and never speaks does not hold them for ever.
    package static func connect(
        host: String, port: Int, tls: TLSContext?, serverName: String? = nil, answerTimeout: Duration? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> H2ClientConnection {
        let name = serverName ?? host
        let made = NIOLockedValueBox<(handler: NIOLoopBound<Handler>, ready: EventLoopFuture<TLSSessionInfo?>)?>(nil)
        let channel: any Channel
        do {
            // The handler goes in before the socket connects, so not one byte of the
            // server's preface can pass it by.
            channel = try await ClientBootstrap(group: group)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let engine = try tls.map { try TLSEngine(context: $0, serverName: name) }
                        let handler = Handler(
                            tls: engine, ready: channel.eventLoop.makePromise(), answerTimeout: answerTimeout.map(TimeAmount.init))
                        made.withLockedValue { $0 = (NIOLoopBound(handler, eventLoop: channel.eventLoop), handler.readyFuture) }
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            throw H2ConnectError.cannotConnect(host: host, port: port, reason: ConnectionFailure.reason(error) ?? "\(error)")
        }
        guard let (handler, ready) = made.withLockedValue({ $0 }) else {
            throw H2ConnectError.cannotConnect(host: host, port: port, reason: "the connection was not set up")
        }
        let info: TLSSessionInfo?
        do {
            info = try await ready.get()
        } catch {
            try? await channel.close()
            if case TLSError.peerCertificateRejected(let reason) = error {
                throw H2ConnectError.untrustedServer(host: host, port: port, reason: reason)
            }
            throw H2ConnectError.cannotStartHTTP2(host: host, port: port, reason: "\(error)")
        }
        let defaultPort = tls == nil ? 80 : 443
        return H2ClientConnection(
            channel: channel, handler: handler,
            authority: port == defaultPort ? host : "\(host.contains(":") ? "[\(host)]" : host):\(port)",
            scheme: tls == nil ? "http" : "https", tls: info)
    }

    /// Sends `request` (scheme and authority filled in when absent) and waits for its answer.
    package func send(_ request: H2Request) async throws -> H2Response {
        try await sendFuture(request).get()
    }

    /// Sends `request`; the future completes on the connection's event loop.
    package func sendFuture(_ request: H2Request) -> EventLoopFuture<H2Response> {
        var request = request
        if request.authority == nil { request.authority = authority }
        request.scheme = scheme
        let promise = channel.eventLoop.makePromise(of: H2Response.self)
        let handler = self.handler
        let sent = request
        channel.eventLoop.execute { handler.value.submit(sent, promise: promise) }
        return promise.futureResult
    }

    /// Sends `request`; `completion` runs on the connection's event loop with the answer.
    /// Called on that loop (from an earlier answer's completion), it submits at once: a
    /// sender keeping many streams busy makes no promise, future or task per request.
    package func send(_ request: H2Request, completion: @escaping @Sendable (Result<H2Response, any Error>) -> Void) {
        var request = request
        if request.authority == nil { request.authority = authority }
        request.scheme = scheme
        let handler = self.handler
        if channel.eventLoop.inEventLoop {
            handler.value.submit(request) { completion($0.mapError { $0 as any Error }) }
            return
        }
        let sent = request
        channel.eventLoop.execute { handler.value.submit(sent) { completion($0.mapError { $0 as any Error }) } }
    }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS.
    package func remoteMaxConcurrentStreams() async throws -> UInt32 {
        let handler = self.handler
        return try await channel.eventLoop.submit { handler.value.session?.remoteMaxConcurrentStreams ?? UInt32.max }.get()
    }

    /// A GOAWAY from the server, if one came.
    package func goAway() async throws -> H2GoAwayInfo? {
        let handler = self.handler
        return try await channel.eventLoop.submit { handler.value.session?.goAway }.get()
    }

    /// Whether the connection is still open (neither side closed it).
    package var isActive: Bool { channel.isActive }

    /// Whether it was closed because the server sent nothing for the answer timeout while
    /// something waited on it (`H2ConnectError.noAnswer`): a new connection is likely to wait as long.
    package func endedWithoutAnswer() async -> Bool {
        let handler = self.handler
        return (try? await channel.eventLoop.submit { handler.value.endedSilent }.get()) ?? false
    }

    /// The TLS alert the server ended the connection with, if it did (a client certificate it
    /// does not accept, under TLS 1.3): a new connection would be refused the same way.
    package func refusal() async -> String? {
        let handler = self.handler
        return (try? await channel.eventLoop.submit { handler.value.refusal }.get()) ?? nil
    }

    /// Closes the connection; open requests fail.
    package func close() async {
        try? await channel.close()
    }

    /// Completes when the connection is closed, by either side.
    package var closeFuture: EventLoopFuture<Void> { channel.closeFuture }
}

extension H2ClientConnection {
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let tls: TLSEngine?
        private var output: H2OutputPump
        /// Idle, handshaking (holding the promise of readiness), running (holding the HTTP/2
        /// session) or closed.
        private var state: H2ClientConnectionState<EventLoopPromise<TLSSessionInfo?>, H2ClientSession>
        /// When output goes out: at a read's end, in one queued flush, as another pump pass.
        private var schedule = H2OutputSchedule()
        /// Succeeds with the handshake's facts (nil for h2c) once HTTP/2 can start.
        let readyFuture: EventLoopFuture<TLSSessionInfo?>
        private var context: ChannelHandlerContext?
        /// How long the server may send nothing while something waits on it; nil: for ever.
        private let answerTimeout: TimeAmount?
        /// When the server last sent bytes, or something began to wait on it.
        private var lastProgress = NIODeadline.now()
        private var watchdog: Scheduled<Void>?

        /// The HTTP/2 session, once it runs.
        var session: H2ClientSession? { state.session }
        /// Whether the server's silence ended it.
        var endedSilent: Bool { state.endedSilent }
        /// The alert the server ended TLS with, if it did.
        var refusal: String? { state.refusal }

        init(tls: TLSEngine?, ready: EventLoopPromise<TLSSessionInfo?>, answerTimeout: TimeAmount? = nil) {
            self.tls = tls
            self.output = H2OutputPump(tls: tls)
            self.state = H2ClientConnectionState(ready: ready)
            self.readyFuture = ready.futureResult
            self.answerTimeout = answerTimeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
            lastProgress = .now()
            armWatchdog(at: lastProgress, context: context)
            if context.channel.isActive { start(context: context) }
        }

        /// Checks at `deadline` + the timeout whether the server has gone quiet on something
        /// waiting (the handshake, or an open request), and closes the connection if so.
        private func armWatchdog(at start: NIODeadline, context: ChannelHandlerContext) {
            guard let timeout = answerTimeout else { return }
            watchdog = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: start + timeout) {
                self.watchdog = nil
                guard let context = self.context else { return }
                let waiting: Bool
                switch self.state.state {
                case .handshaking: waiting = true
                case .running(let session): waiting = session.pendingCount > 0
                case .idle, .closed: waiting = false
                }
                if waiting, NIODeadline.now() - self.lastProgress >= timeout {
                    self.fail(H2ConnectError.noAnswer(milliseconds: timeout.nanoseconds / 1_000_000), context: context)
                } else {
                    self.armWatchdog(at: waiting ? self.lastProgress : .now(), context: context)
                }
            }
        }

        func channelActive(context: ChannelHandlerContext) {
            start(context: context)
            context.fireChannelActive()
        }

        private func start(context: ChannelHandlerContext) {
            // The wait for the server starts once the socket is connected, not while connecting.
            lastProgress = .now()
            switch state.start(tls: tls != nil, makeSession: H2ClientSession.init) {
            case .handshake:
                do {
                    try tls?.startHandshake()
                } catch {
                    fail(error, context: context)
                    return
                }
                output.writeCiphertext(context: context)
            case .run(let ready):
                ready.succeed(nil)
                flush()
            case .none:
                break
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            watchdog?.cancel()
            watchdog = nil
            state.closed()?.fail(H2ConnectError.closedBeforeHTTP2)
            self.context = nil
        }

        func submit(_ request: H2Request, promise: EventLoopPromise<H2Response>) {
            submit(request) { result in promise.completeWith(result.mapError { $0 as any Error }) }
        }

        func submit(_ request: H2Request, completion: @escaping H2ClientSession.Completion) {
            // Connections are handed out once HTTP/2 runs: only one that failed first has none.
            guard let session = state.session else {
                return completion(.failure(.notProcessed(reason: "the connection closed before HTTP/2 started")))
            }
            // A request on a quiet connection starts the wait for an answer now.
            if answerTimeout != nil, session.pendingCount == 0 { lastProgress = .now() }
            session.submit(request, completion: completion)
            // One write for every request submitted in this turn of the event loop, not one
            // each: a sender with many streams in flight submits them back to back.
            guard let context, schedule.outputQueued() else { return }
            context.eventLoop.assumeIsolatedUnsafeUnchecked().execute {
                self.schedule.scheduledFlushRuns()
                self.flush()
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            if answerTimeout != nil { lastProgress = .now() }
            schedule.readBegan()
            defer { schedule.readEnded() }
            guard let tls else {
                buffer.withUnsafeReadableBytes { state.session?.receive($0) }
                return
            }
            buffer.withUnsafeReadableBytes { tls.receive($0) }
            do {
                // The server's first HTTP/2 bytes may come in the read that ends the handshake:
                // its session starts before they are handed to it.
                let tlsState = try tls.readPlaintext { plaintext in
                    handshakeEnded(tls)
                    state.session?.receive(plaintext)
                }
                handshakeEnded(tls)
                if tlsState == .closed { context.close(promise: nil) }
            } catch {
                fail(error, context: context)
            }
        }

        /// Starts HTTP/2 and keeps the promise of readiness once `tls` says the handshake is done.
        private func handshakeEnded(_ tls: TLSEngine) {
            if let info = tls.sessionInfo, let ready = state.handshakeCompleted(makeSession: H2ClientSession.init) {
                ready.succeed(info)
            }
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            flush()
            context.fireChannelReadComplete()
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable { flush() }
            context.fireChannelWritabilityChanged()
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.closed()?.fail(H2ConnectError.closedDuringHandshake)
            if let session = state.session { session.close(reason: session.goAway.map { $0.debugData }) }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error, context: context)
        }

        private func fail(_ error: any Error, context: ChannelHandlerContext) {
            let ending: H2ClientConnectionState<EventLoopPromise<TLSSessionInfo?>, H2ClientSession>.Ending =
                switch error {
                case H2ConnectError.noAnswer: .serverSilent
                case TLSError.alertReceived(let alert): .refused(alert: alert)
                default: .closed
                }
            state.closed(ending)?.fail(error)
            // A write that fails inside `flush` lands here while the pump is still busy.
            if !schedule.isPumping { output.writeCiphertext(context: context) }
            state.session?.close(reason: "\(error)")
            context.close(promise: nil)
        }

        private func flush() {
            guard let context, context.channel.isActive else { return }
            let session: H2ClientSession
            switch state.state {
            case .idle, .closed:
                return
            case .handshaking:
                output.writeCiphertext(context: context)
                return
            case .running(let running):
                session = running
            }
            // A flush from inside the pump (a write that turns the channel writable again)
            // must not re-enter it: it asks for another pass instead.
            guard schedule.pumpWanted() else { return }
            defer { schedule.pumpStopped() }
            do {
                repeat {
                    try output.pump(session, context: context)
                } while schedule.passEnded() && context.channel.isActive
            } catch {
                fail(error, context: context)
                return
            }
            if session.isFinished { context.close(promise: nil) }
        }
    }
}
