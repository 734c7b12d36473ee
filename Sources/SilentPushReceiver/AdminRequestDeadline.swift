import NIOCore
import NIOHTTPTypes

/// An admin request must arrive whole within `limit` of the moment its connection is ready
/// for it (accepted, or its last answer written); else the connection is closed. The idle
/// limit alone let a client that sends a byte now and then hold a connection for ever, one
/// of the few the admin listener serves. An answer being written is never cut: the deadline
/// stops at a request's end and starts again only once every answer owed has ended.
final class AdminRequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Where the connection is: waiting for a request to arrive whole (until the deadline;
    /// with how many answers ended before their request did, as a refusal of its headers
    /// does), or owing answers to requests that have.
    enum Phase {
        case awaiting(Scheduled<Void>, answeredAhead: Int)
        case answering(owed: Int)
    }

    private let limit: TimeAmount
    private var phase = Phase.answering(owed: 0)

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if case .answering(owed: 0) = phase { arm(context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if case .awaiting(let deadline, _) = phase { deadline.cancel() }
        phase = .answering(owed: 0)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            switch phase {
            case .awaiting(let deadline, let answeredAhead) where answeredAhead > 0:
                // Already answered: the connection is ready for the next request from now.
                deadline.cancel()
                arm(context, answeredAhead: answeredAhead - 1)
            case .awaiting(let deadline, _):
                deadline.cancel()
                phase = .answering(owed: 1)
            case .answering(let owed):
                phase = .answering(owed: owed + 1)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            switch phase {
            case .awaiting(let deadline, let answeredAhead):
                // Answered before its request ended: the deadline runs on until it does.
                phase = .awaiting(deadline, answeredAhead: answeredAhead + 1)
            case .answering(let owed) where owed <= 1:
                arm(context)
            case .answering(let owed):
                phase = .answering(owed: owed - 1)
            }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, answeredAhead: Int = 0) {
        let channel = context.channel
        phase = .awaiting(context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }, answeredAhead: answeredAhead)
    }
}
