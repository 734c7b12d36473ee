import SilentPushTestSupport
import SilentPushTransport
import Testing

/// The client session fed a server's frames by hand: where it stands after a GOAWAY.
@Suite struct H2ClientSessionTests {
    static func goAway(lastStreamID: UInt32, errorCode: UInt32, debug: String) -> H2Frame {
        func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }
        return H2Frame(.goAway, streamID: 0, payload: be32(lastStreamID) + be32(errorCode) + Array(debug.utf8))
    }

    static func feed(_ session: H2ClientSession, _ frames: [H2Frame]) {
        frames.flatMap(\.bytes).withUnsafeBytes { session.receive($0) }
    }

    /// After a GOAWAY the session still answers the streams up to its last, fails those past
    /// it as never processed (nghttp2 closes them REFUSED_STREAM: sent again here, they could
    /// not be taken), takes no new request, and the GOAWAY stays readable once it closes.
    @Test func aGoAwayKeepsTheStreamsItCoversAndOutlivesTheClose() {
        let session = H2ClientSession()
        var results: [Int: Result<H2Response, H2ClientError>] = [:]
        Self.feed(session, [H2Frame.settings()])
        session.drainOutput { _ in }
        for index in 0..<2 {
            session.submit(H2Request(method: "POST", path: "/3/device/aa")) { results[index] = $0 }
        }
        session.drainOutput { _ in }  // streams 1 and 3 go out
        #expect(session.pendingCount == 2)
        Self.feed(session, [Self.goAway(lastStreamID: 1, errorCode: 0, debug: "bye")])
        #expect(results[1] == .failure(.notProcessed(reason: "bye")) && results[0] == nil)
        #expect(session.pendingCount == 1 && session.goAway?.lastStreamID == 1)
        session.submit(H2Request(method: "POST", path: "/3/device/aa")) { results[2] = $0 }
        #expect(results[2] == .failure(.notProcessed(reason: "bye")))
        Self.feed(session, [H2Frame.headers(streamID: 1, [(":status", "200")], endStream: true)])
        #expect(results[0] == .success(H2Response(status: 200)))
        session.close(reason: nil)
        #expect(session.goAway?.debugData == "bye" && session.isFinished && session.pendingCount == 0)
    }
}
