import SilentPushCore

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
