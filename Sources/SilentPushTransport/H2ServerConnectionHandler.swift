import Logging
import NIOCore
import SilentPushCore
import Synchronization

/// Runs one server connection on its event loop: socket bytes through TLS (when the
/// listener has it) into an `H2ServerSession`, requests to the `H2Service`, answers back.
package final class H2ServerConnectionHandler: ChannelInboundHandler, H2ServerSessionDelegate {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let connectionID: UInt64
    private let tlsContext: TLSContext?
    private let settings: H2Settings
    private let service: any H2Service
    private let limits: H2ConnectionLimits
    private let statistics: H2ServerStatistics
    private let logger: Logger
    /// The server's one place for saying why connections fail (rate-limited).
    private let failures: H2AcceptFailureLog?
    private let onClose: @Sendable (UInt64) -> Void

    private var context: ChannelHandlerContext?
    private var tls: TLSEngine?
    private var output = H2OutputPump(tls: nil)
    /// Handshaking, serving, refusing (over `--max-connections`: SETTINGS and GOAWAY, then
    /// closed) or closed; the session lives in the cases after the handshake.
    private var state: H2ServerConnectionState<H2ServerSession>
    /// When output goes out: at a read's end, in one queued flush, as another pump pass.
    private var schedule = H2OutputSchedule()
    private var responder: Responder?
    private var lastActivity = NIODeadline.now()
    /// When the connection was accepted: what its set-up (TLS handshake, client preface) is
    /// timed from, however slowly its bytes trickle in.
    private let openedAt = NIODeadline.now()
    private var timeoutCheck: Scheduled<Void>?
    /// The close that ends a refused connection's drain (`H2ServerConnectionState.drainLimit`).
    private var drainEnd: Scheduled<Void>?

    package init(
        connectionID: UInt64, tlsContext: TLSContext?, settings: H2Settings, service: any H2Service,
        limits: H2ConnectionLimits, statistics: H2ServerStatistics, admission: H2ServerConnectionState<H2ServerSession>.Admission = .serve,
        logger: Logger, failures: H2AcceptFailureLog? = nil, onClose: @escaping @Sendable (UInt64) -> Void
    ) {
        self.connectionID = connectionID
        self.tlsContext = tlsContext
        self.settings = settings
        self.service = service
        self.limits = limits
        self.statistics = statistics
        self.state = H2ServerConnectionState(admission: admission)
        self.logger = logger
        self.failures = failures
        self.onClose = onClose
    }

    // MARK: Channel events

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        responder = Responder(handler: self, eventLoop: context.eventLoop)
        if let tlsContext {
            do {
                tls = try TLSEngine(context: tlsContext)
                output = H2OutputPump(tls: tls)
            } catch {
                logger.error("TLS setup failed", metadata: ["error": "\(error)"])
                context.close(promise: nil)
            }
        } else {
            startSession(tls: nil)
        }
        if context.channel.isActive { scheduleTimeoutCheck() }
    }

    package func channelActive(context: ChannelHandlerContext) {
        scheduleTimeoutCheck()
        flushOutput()
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        timeoutCheck?.cancel()
        timeoutCheck = nil
        drainEnd?.cancel()
        drainEnd = nil
        if let session = state.channelClosed() { service.connectionClosed(session.connection) }
        responder = nil
        onClose(connectionID)
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        lastActivity = .now()
        schedule.readBegan()
        service.readBegan()
        defer {
            service.readEnded()
            schedule.readEnded()
        }
        if let tls {
            buffer.withUnsafeReadableBytes { tls.receive($0) }
            pumpTLS(tls)
        } else {
            buffer.withUnsafeReadableBytes { state.session?.receive($0, at: lastActivity.uptimeNanoseconds) }
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        flushOutput()
        context.fireChannelReadComplete()
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { flushOutput() }
        context.fireChannelWritabilityChanged()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error", metadata: ["connection": "\(connectionID)", "error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Session delegate

    package func session(_ session: H2ServerSession, didReceive request: H2Request) {
        guard let responder else { return }
        service.handle(request, writer: H2ResponseWriter(streamID: request.streamID, sink: responder))
    }

    package func session(_ session: H2ServerSession, didRefuse request: H2Request, problem: H2RequestProblem) {
        guard let responder else { return }
        service.refuse(request, problem: problem, writer: H2ResponseWriter(streamID: request.streamID, sink: responder))
    }

    // MARK: Called on the event loop by the server and by writers

    /// GOAWAY now; the connection closes once its open streams are answered.
    func beginShutdown() {
        switch state.shutdownRequested() {
        case .close:
            context?.close(promise: nil)
        case .goAway(let session):
            session.shutdown()
            flushOutput()
        case .none:
            break
        }
    }

    /// Closes at once (the shutdown grace ran out).
    func forceClose() {
        context?.close(promise: nil)
    }

    /// GOAWAY with `reason` after the answers queued: no new stream; closes once the open
    /// ones are answered.
    fileprivate func goAway(reason: APNsReason) {
        guard let session = state.session else { return }
        session.shutdown(reason: .apns(reason))
        flushOutput()
    }

    fileprivate func respond(streamID: Int32, response: H2Response) {
        guard let session = state.session else { return }
        lastActivity = .now()  // an answer is progress: the connection is not idle
        session.respond(streamID: streamID, response: response)
        guard let context, schedule.outputQueued() else { return }
        // Answers arriving from other threads are batched into one write per loop pass.
        context.eventLoop.assumeIsolated().execute {
            self.schedule.scheduledFlushRuns()
            self.flushOutput()
        }
    }

    // MARK: Internals

    private func startSession(tls info: TLSSessionInfo?) {
        let start = state.handshakeCompleted {
            let remote = context?.channel.remoteAddress?.description ?? "unknown"
            let session = H2ServerSession(settings: settings, connection: H2ConnectionInfo(id: connectionID, remoteAddress: remote, tls: info))
            session.delegate = self
            return session
        }
        if case .refuse(let session) = start {
            session.shutdown(
                reason: .apns(.serviceUnavailable), lastStreamID: 0,
                detail: "too many connections (--max-connections \(limits.maxConnections))")
        }
    }

    private func pumpTLS(_ tls: TLSEngine) {
        do {
            let tlsState = try tls.readPlaintext { bytes in
                if case .handshaking = state.state { startSession(tls: tls.sessionInfo) }
                state.session?.receive(bytes, at: lastActivity.uptimeNanoseconds)
            }
            if case .handshaking = state.state, let info = tls.sessionInfo { startSession(tls: info) }
            if tlsState == .closed {
                flushOutput()
                context?.close(promise: nil)
            }
        } catch {
            if case TLSError.peerCertificateRejected(let reason) = error { failures?.certificateRefused(reason: reason) }
            logger.debug("TLS failure", metadata: ["connection": "\(connectionID)", "error": "\(error)"])
            if let context { output.writeCiphertext(context: context) }  // the alert
            context?.close(promise: nil)
        }
    }

    private func flushOutput() {
        guard let context, context.channel.isActive else { return }
        let session: H2ServerSession
        switch state.state {
        case .handshaking:
            output.writeCiphertext(context: context)  // handshake records
            return
        case .serving(let serving), .refusing(let serving):
            session = serving
        case .draining, .closed:
            return
        }
        // A flush that NIO calls back into from inside the pump (a write that turns the
        // channel writable again) must not re-enter it: it asks for another pass instead.
        guard schedule.pumpWanted() else { return }
        defer { schedule.pumpStopped() }
        do {
            repeat {
                try output.pump(session, context: context)
            } while schedule.passEnded() && context.channel.isActive
        } catch {
            logger.debug("TLS write failed", metadata: ["connection": "\(connectionID)", "error": "\(error)"])
            context.close(promise: nil)
            return
        }
        switch state.outputWritten(isFinished: session.isFinished, hasOutput: session.hasOutput) {
        case .keepOpen: break
        case .close: context.close(promise: nil)
        case .endOutput:
            context.close(mode: .output, promise: nil)
            let limit = H2ServerConnectionState<H2ServerSession>.drainLimit
            drainEnd = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(limit.nanosecondCount)) { self.context?.close(promise: nil) }
        }
    }

    /// One timer per connection checks both limits a few times per the shorter one: no
    /// timer per stream on the request path.
    private func scheduleTimeoutCheck() {
        guard timeoutCheck == nil, let context, let period = limits.checkPeriod else { return }
        timeoutCheck = context.eventLoop.assumeIsolated().scheduleTask(in: period) { [self] in
            timeoutCheck = nil
            checkTimeouts()
            if self.context?.channel.isActive == true { scheduleTimeoutCheck() }
        }
    }

    private func checkTimeouts() {
        guard let context else { return }
        let now = NIODeadline.now()
        let session: H2ServerSession
        switch state.state {
        case .handshaking:
            // A TLS handshake that never finished: held no longer than a request may take.
            if let limit = limits.slowClientLimit, openedAt + limit <= now { context.close(promise: nil) }
            return
        case .serving(let serving), .refusing(let serving):
            session = serving
        case .draining, .closed:
            return
        }
        // A client that never sent its preface holds a connection (one of `--max-connections`)
        // for nothing: as long as a handshake may take, then GOAWAY and closed.
        if session.awaitsClientPreface, let limit = limits.slowClientLimit, openedAt + limit <= now {
            statistics.idleTimeouts.add(1, ordering: .relaxed)
            session.terminate(reason: .apns(.idleTimeout))
            flushOutput()
            return
        }
        if limits.requestTimeout > .zero {
            let cutoff = now - limits.requestTimeout
            let reset = session.resetIncompleteRequests(openedAtOrBefore: cutoff.uptimeNanoseconds)
            if reset > 0 {
                statistics.requestTimeouts.add(reset, ordering: .relaxed)
                logger.debug(
                    "requests reset: not complete in time",
                    metadata: [
                        "connection": "\(connectionID)", "count": "\(reset)", "request_timeout": "\(limits.requestTimeout)",
                    ])
                flushOutput()
            }
        }
        // A socket that takes no more (a slow link) holds answers too, but that is not the
        // client shutting its window: only the window counts.
        if let limit = limits.slowClientLimit, context.channel.isWritable {
            let stalled = session.resetStalledAnswers(at: now.uptimeNanoseconds, after: UInt64(limit.nanoseconds))
            if stalled > 0 {
                statistics.requestTimeouts.add(stalled, ordering: .relaxed)
                logger.debug(
                    "answers reset: the client's flow-control window stayed shut", metadata: ["connection": "\(connectionID)", "count": "\(stalled)"])
                flushOutput()
            }
        }
        // Idle: nothing read and nothing answered for the whole timeout, and no request
        // waiting for an answer from this side. Streams the client leaves unfinished do
        // not keep a connection alive.
        if limits.idleTimeout > .zero, lastActivity + limits.idleTimeout <= now, session.requestsAwaitingAnswer == 0 {
            statistics.idleTimeouts.add(1, ordering: .relaxed)
            session.terminate(reason: .apns(.idleTimeout))
            flushOutput()
        }
    }
}

extension H2ServerConnectionHandler {
    /// Lets `H2ResponseWriter`s on any thread reach the handler on its event loop.
    ///
    /// Answers from other threads (a store commit completes a whole batch of them) queue in
    /// an inbox that one event-loop task drains: one hop and one wake-up per batch, not
    /// per answer.
    fileprivate final class Responder: H2ResponseSink, @unchecked Sendable {
        // Touched only on `eventLoop`.
        private let handler: H2ServerConnectionHandler
        private let eventLoop: any EventLoop
        private let inbox = Mutex<[(streamID: Int32, response: H2Response)]>([])

        init(handler: H2ServerConnectionHandler, eventLoop: any EventLoop) {
            self.handler = handler
            self.eventLoop = eventLoop
        }

        func goAway(reason: APNsReason) {
            // After the answers already in the inbox, so they go out before the GOAWAY.
            eventLoop.execute {
                self.drainInbox()
                self.handler.goAway(reason: reason)
            }
        }

        func closeConnection() {
            eventLoop.execute { self.handler.forceClose() }
        }

        func respond(streamID: Int32, response: H2Response, after delay: Duration) {
            eventLoop.scheduleTask(in: .nanoseconds(delay.nanosecondCount)) {
                self.handler.respond(streamID: streamID, response: response)
            }
        }

        func respond(streamID: Int32, response: H2Response) {
            if eventLoop.inEventLoop {
                handler.respond(streamID: streamID, response: response)
                return
            }
            let first = inbox.withLock { inbox in
                inbox.append((streamID, response))
                return inbox.count == 1
            }
            if first { eventLoop.execute { self.drainInbox() } }
        }

        private func drainInbox() {
            let answers = inbox.withLock { inbox in
                defer { inbox = [] }
                return inbox
            }
            for answer in answers { handler.respond(streamID: answer.streamID, response: answer.response) }
        }
    }
}
