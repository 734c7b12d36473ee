import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// Limits that keep one client from holding or flooding a shared receiver, on the session
/// fed bytes in memory (issue 16: stalled bodies, floods).
@Suite struct H2ServerSessionLimitTests {
    static func feed(_ raw: RawServer, _ frames: [H2Frame], at now: UInt64) -> [H2Frame] {
        frames.flatMap(\.bytes).withUnsafeBytes { raw.server.receive($0, at: now) }
        return raw.output()
    }

    @Test func aRequestWhoseBodyNeverEndsIsResetAfterItsDeadlineAndOthersLiveOn() throws {
        let raw = RawServer()
        _ = raw.handshake()
        _ = Self.feed(
            raw, [H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: false), H2Frame.data(streamID: 1, [1, 2], endStream: false)], at: 1_000)
        _ = Self.feed(raw, [H2Frame.post(streamID: 3, path: "/3/device/aa", endStream: false)], at: 5_000)
        // Before the deadline of either: nothing happens.
        #expect(raw.server.resetIncompleteRequests(openedAtOrBefore: 999) == 0)
        #expect(raw.output().isEmpty)
        // Stream 1's deadline passed; stream 3's has not.
        #expect(raw.server.resetIncompleteRequests(openedAtOrBefore: 1_000) == 1)
        let reset = raw.output()
        #expect(reset.map(\.kind) == [.rstStream])
        #expect(reset.first?.streamID == 1 && reset.first?.errorCode == 0x8)  // CANCEL
        // Reset once, not again; stream 3 still completes and is answered.
        #expect(raw.server.resetIncompleteRequests(openedAtOrBefore: 1_000) == 0)
        let answered = Self.feed(raw, [H2Frame.data(streamID: 3, [3], endStream: true)], at: 6_000)
        #expect(raw.requests.map(\.streamID) == [3])
        #expect(answered.contains { $0.kind == .headers && $0.streamID == 3 })
        #expect(!raw.server.isFinished)
        // A late DATA frame on the reset stream is not a request.
        _ = Self.feed(raw, [H2Frame.data(streamID: 1, [4], endStream: true)], at: 7_000)
        #expect(raw.requests.map(\.streamID) == [3])
    }

    @Test func aCompleteRequestAwaitingItsAnswerIsNotResetAndKeepsTheConnectionBusy() throws {
        let raw = RawServer()
        raw.answerImmediately = false
        _ = raw.handshake()
        _ = Self.feed(raw, [H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: true)], at: 1_000)
        #expect(raw.server.requestsAwaitingAnswer == 1)
        #expect(raw.server.resetIncompleteRequests(openedAtOrBefore: .max) == 0)
        raw.server.respond(streamID: 1, response: H2Response(status: 200))
        _ = raw.output()
        #expect(raw.server.requestsAwaitingAnswer == 0)
    }

    @Test func aClientThatNeverFinishesABodyAlreadyAnsweredIsReset() throws {
        let raw = RawServer(settings: H2Settings(maxBodySize: 4))
        _ = raw.handshake()
        let refused = Self.feed(
            raw,
            [
                H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: false),
                H2Frame.data(streamID: 1, Array(repeating: 1, count: 8), endStream: false),
            ], at: 10)
        #expect(refused.contains { $0.kind == .headers && $0.streamID == 1 })  // 413, sent early
        #expect(raw.server.resetIncompleteRequests(openedAtOrBefore: 10) == 1)
        #expect(raw.output().contains { $0.kind == .rstStream && $0.streamID == 1 })
    }

    /// Opening stream after stream past MAX_CONCURRENT_STREAMS is a flood, named as one.
    @Test func streamsRefusedPastTheLimitOverAndOverEndWithEnhanceYourCalm() throws {
        let raw = RawServer(settings: H2Settings(maxConcurrentStreams: 1))
        raw.answerImmediately = false
        _ = raw.handshake()
        var out = raw.feed([H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: true)])
        let tolerance = H2ServerSession.refusedPastLimitTolerance(1)
        for index in 0..<tolerance {
            out += raw.feed([H2Frame.post(streamID: UInt32(3 + 2 * index), path: "/3/device/aa", endStream: true)])
        }
        #expect(!out.contains { $0.kind == .goAway })  // clients racing SETTINGS are refused, not cut off
        out = raw.feed([H2Frame.post(streamID: UInt32(3 + 2 * tolerance), path: "/3/device/aa", endStream: true)])
        let goAway = try #require(out.first { $0.kind == .goAway })
        #expect(goAway.errorCode == 0xb)  // ENHANCE_YOUR_CALM
        #expect(goAway.debugData?.contains(#""reason":"EnhanceYourCalm""#) == true)
    }

    /// RST_STREAM right after HEADERS, thousands of times (CVE-2023-44487): nghttp2 ends the
    /// connection, and the GOAWAY says ENHANCE_YOUR_CALM, not INTERNAL_ERROR.
    @Test func rapidResetEndsWithEnhanceYourCalm() throws {
        let raw = RawServer()
        raw.answerImmediately = false
        _ = raw.handshake()
        var goAway: H2Frame?
        var stream: UInt32 = 1
        while goAway == nil, stream < 200_000 {
            var frames: [H2Frame] = []
            for _ in 0..<100 {
                frames.append(H2Frame.post(streamID: stream, path: "/3/device/aa", endStream: false))
                frames.append(H2Frame(.rstStream, streamID: stream, payload: [0, 0, 0, 0x8]))
                stream += 2
            }
            goAway = raw.feed(frames).first { $0.kind == .goAway }
        }
        let frame = try #require(goAway)
        #expect(frame.errorCode == 0xb)
        #expect(frame.debugData?.contains(#""reason":"EnhanceYourCalm""#) == true)
        #expect(frame.debugData?.contains("InternalServerError") == false)
    }

    @Test func aRefusedConnectionGetsSettingsThenGoAwayForStreamZero() throws {
        let raw = RawServer()
        raw.server.shutdown(reason: .apns(.serviceUnavailable), lastStreamID: 0, detail: "too many connections")
        let out = raw.handshake()
        #expect(out.first?.kind == .settings)
        let goAway = try #require(out.first { $0.kind == .goAway })
        #expect(goAway.lastStreamID == 0)
        #expect(goAway.debugData?.contains("ServiceUnavailable") == true)
    }

    /// A client that keeps its flow-control window shut cannot hold an answer, and its
    /// stream, for longer than the limit from when the window was first seen shut: the
    /// stream is reset, once, and the request timeout of requests still arriving is not
    /// touched.
    @Test func anAnswerTheClientNeverTakesIsResetAfterItsDeadline() throws {
        let raw = RawServer()
        raw.answerImmediately = false
        // SETTINGS_INITIAL_WINDOW_SIZE 0: no DATA of an answer can go out.
        _ = raw.feed(H2Frame.clientPreface + H2Frame.settings([(0x4, 0)]).bytes + H2Frame.settingsAck.bytes)
        _ = Self.feed(raw, [H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: true)], at: 1_000)
        raw.server.respond(streamID: 1, response: H2Response(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)))
        let answered = raw.output()
        #expect(answered.contains { $0.kind == .headers && $0.streamID == 1 } && !answered.contains { $0.kind == .data })
        #expect(raw.server.openStreamCount == 1)
        #expect(raw.server.resetIncompleteRequests(openedAtOrBefore: .max) == 0)
        // Seen shut first at 2,000: reset once it has stayed shut for 500.
        #expect(raw.server.resetStalledAnswers(at: 2_000, after: 500) == 0)
        #expect(raw.server.resetStalledAnswers(at: 2_499, after: 500) == 0)
        #expect(raw.output().isEmpty)
        #expect(raw.server.resetStalledAnswers(at: 2_500, after: 500) == 1)
        let reset = raw.output()
        #expect(reset.contains { $0.kind == .rstStream && $0.streamID == 1 && $0.errorCode == 0x8 }, "\(reset)")
        #expect(raw.server.resetStalledAnswers(at: .max, after: 500) == 0)
        #expect(raw.server.openStreamCount == 0)
    }
}
