import SilentPushCore

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
