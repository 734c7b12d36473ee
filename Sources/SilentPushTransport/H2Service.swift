import SilentPushCore

/// The application behind the HTTP/2 server.
///
/// Called on the connection's event loop; answer through the writer at once or later, from
/// any thread (after a database commit, say). A stream that closes before its answer simply
/// drops it.
package protocol H2Service: Sendable {
    /// A complete request arrived.
    func handle(_ request: H2Request, writer: H2ResponseWriter)

    /// The transport refused a request before it was complete (its body is empty).
    func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter)

    /// A connection closed; per-connection state can go.
    func connectionClosed(_ connection: H2ConnectionInfo)

    /// The transport is about to pass on the requests of one read from a connection: a
    /// service that hands work to another thread may hold it until `readEnded()`, so that
    /// thread takes the read's requests as one batch.
    func readBegan()

    /// The requests of the read announced by `readBegan()` have all been passed on.
    func readEnded()
}

extension H2Service {
    /// By default a refused request gets 413 or 431 with no body.
    package func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter) {
        switch problem {
        case .bodyTooLarge: writer.respond(H2Response(status: 413))
        case .headerListTooLarge: writer.respond(H2Response(status: 431))
        }
    }

    /// By default nothing is kept per connection.
    package func connectionClosed(_ connection: H2ConnectionInfo) {}

    /// By default a read is not a batch.
    package func readBegan() {}

    /// By default a read is not a batch.
    package func readEnded() {}
}

/// Where a writer delivers its answer: the connection that owns the stream.
package protocol H2ResponseSink: AnyObject, Sendable {
    /// Submit `response` on `streamID`; ignored when the stream is gone.
    func respond(streamID: Int32, response: H2Response)

    /// Submit `response` on `streamID` once `delay` has passed (on the connection's event loop).
    func respond(streamID: Int32, response: H2Response, after delay: Duration)

    /// Sends GOAWAY with `{"reason": reason}` after what is queued: the connection takes no
    /// new stream and closes once its open ones are answered.
    func goAway(reason: APNsReason)

    /// Closes the connection at once, answering nothing more.
    func closeConnection()
}

/// Answers one request, once.
package struct H2ResponseWriter: Sendable {
    /// The stream this writer answers.
    package let streamID: Int32
    private let sink: any H2ResponseSink
    /// How long the answer is held before it is sent.
    package let delay: Duration

    /// A writer for `streamID` on `sink`.
    package init(streamID: Int32, sink: any H2ResponseSink, delay: Duration = .zero) {
        self.streamID = streamID
        self.sink = sink
        self.delay = delay
    }

    /// This writer, holding its answer `delay` longer before sending it.
    package func delayed(by delay: Duration) -> H2ResponseWriter {
        H2ResponseWriter(streamID: streamID, sink: sink, delay: self.delay + delay)
    }

    /// Sends the answer (after the writer's delay, if any); may be called from any thread.
    package func respond(_ response: H2Response) {
        if delay > .zero {
            sink.respond(streamID: streamID, response: response, after: delay)
        } else {
            sink.respond(streamID: streamID, response: response)
        }
    }

    /// Sends GOAWAY with `reason` on the stream's connection, after what is queued.
    package func goAway(reason: APNsReason) {
        sink.goAway(reason: reason)
    }

    /// Closes the stream's connection at once.
    package func closeConnection() {
        sink.closeConnection()
    }
}
