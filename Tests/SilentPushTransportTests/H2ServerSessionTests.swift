import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// The server and client sessions driven in memory: bytes in, bytes out, no socket.
@Suite struct H2ServerSessionTests {
    @Test func requestAndResponseRoundTrip() throws {
        let pair = H2SessionPair()
        pair.answer = { request in
            H2Response(
                status: 200, headers: ["apns-id": "ABC", "x-echo": request.headers.values("x-dup").joined(separator: ",")],
                body: request.body.reversed())
        }
        var result: Result<H2Response, H2ClientError>?
        pair.client.submit(
            H2Request(
                method: "POST", path: "/3/device/aa", authority: "localhost",
                headers: [("apns-topic", "com.example.app"), ("x-dup", "1"), ("apns-push-type", "background"), ("x-dup", "2")],
                body: Array("hello".utf8))
        ) { result = $0 }
        pair.pump()

        let request = try #require(pair.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/aa")
        #expect(request.authority == "localhost")
        #expect(request.scheme == "https")
        #expect(request.headers.fields.map(\.name) == ["apns-topic", "x-dup", "apns-push-type", "x-dup"])
        #expect(request.headers.values("x-dup") == ["1", "2"])
        #expect(request.body == Array("hello".utf8))
        let response = try #require(try result?.get())
        #expect(response.status == 200)
        #expect(response.headers.first("apns-id") == "ABC")
        #expect(response.headers.first("x-echo") == "1,2")
        #expect(response.body == Array("olleh".utf8))
        #expect(pair.server.openStreamCount == 0)
    }

    /// A connection that closes after the server's GOAWAY: a request at or below its last
    /// stream may have been processed (`connectionClosed`), one past it was not
    /// (`notProcessed`, or refused), and one submitted afterwards was never sent.
    @Test func aCloseAfterAGoAwaySaysWhichRequestsTheServerNeverTook() throws {
        let pair = H2SessionPair()
        pair.answer = nil
        var results: [Int: H2ClientError] = [:]
        for index in 0..<2 {
            pair.client.submit(H2Request(method: "POST", path: "/\(index)")) { result in
                if case .failure(let error) = result { results[index] = error }
            }
        }
        pair.pump()
        #expect(pair.requests.count == 2)
        pair.server.shutdown(lastStreamID: 1)
        pair.pump()
        pair.client.close(reason: nil)
        pair.client.submit(H2Request(method: "POST", path: "/late")) { result in
            if case .failure(let error) = result { results[2] = error }
        }
        guard case .connectionClosed? = results[0] else {
            Issue.record("stream 1, at the GOAWAY's last: \(String(describing: results[0]))")
            return
        }
        switch results[1] {
        case .notProcessed?, .submitFailed?: break
        case .streamReset(let code)? where code == H2GoAwayReason.ErrorCode.refusedStream.code: break
        default: Issue.record("stream 3, past the GOAWAY's last: \(String(describing: results[1]))")
        }
        guard case .notProcessed? = results[2] else {
            Issue.record("a request after the close: \(String(describing: results[2]))")
            return
        }
    }

    @Test func answersMayComeLaterAndInAnyOrder() throws {
        let pair = H2SessionPair()
        pair.answer = nil
        var statuses: [Int: Int] = [:]
        for index in 0..<3 {
            pair.client.submit(H2Request(method: "POST", path: "/\(index)")) { statuses[index] = try? $0.get().status }
        }
        pair.pump()
        #expect(pair.requests.count == 3)
        #expect(statuses.isEmpty)
        #expect(pair.server.openStreamCount == 3)
        for request in pair.requests.reversed() {
            pair.server.respond(streamID: request.streamID, response: H2Response(status: 200 + Int(request.path.dropFirst())!))
        }
        // A second answer to the same stream is ignored.
        pair.server.respond(streamID: pair.requests[0].streamID, response: H2Response(status: 500))
        pair.pump()
        #expect(statuses == [0: 200, 1: 201, 2: 202])
        #expect(pair.server.openStreamCount == 0)
    }

    @Test func clientHonoursServerStreamLimit() throws {
        let pair = H2SessionPair(settings: H2Settings(maxConcurrentStreams: 10))
        pair.answer = nil
        var completed = 0
        var failures = 0
        for _ in 0..<250 {
            pair.client.submit(H2Request(method: "POST", path: "/3/device/aa", body: [1, 2, 3])) {
                if case .success = $0 { completed += 1 } else { failures += 1 }
            }
        }
        pair.pump()
        #expect(pair.client.remoteMaxConcurrentStreams == 10)
        var rounds = 0
        while completed + failures < 250, rounds < 100 {
            // The server never has more than its limit open: the client holds the rest back.
            #expect(pair.server.openStreamCount <= 10)
            let open = pair.requests.suffix(pair.server.openStreamCount)
            for request in open { pair.server.respond(streamID: request.streamID, response: H2Response(status: 200)) }
            pair.pump()
            rounds += 1
        }
        #expect(completed == 250)
        #expect(failures == 0)
    }

    @Test func bodyOverTheCapIsRefusedWhileStreaming() throws {
        let raw = RawServer(settings: H2Settings(maxBodySize: 100))
        _ = raw.handshake()
        var out = raw.feed([
            H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: false),
            H2Frame.data(streamID: 1, [UInt8](repeating: 7, count: 60), endStream: false),
        ])
        #expect(raw.refusals.isEmpty)
        #expect(!out.contains { $0.kind == .headers })
        // Crossing the cap: answered at once, before the request ends.
        out = raw.feed([H2Frame.data(streamID: 1, [UInt8](repeating: 7, count: 60), endStream: false)])
        #expect(raw.refusals == [.bodyTooLarge(limit: 100)])
        #expect(out.contains { $0.kind == .headers && $0.streamID == 1 })
        #expect(out.contains { $0.kind == .data && $0.streamID == 1 && $0.flags & H2Frame.Flag.endStream != 0 })
        // The rest is dropped, never delivered, and the connection carries on.
        out = raw.feed([
            H2Frame.data(streamID: 1, [UInt8](repeating: 7, count: 60), endStream: true),
            H2Frame.post(streamID: 3, path: "/3/device/bb", endStream: true),
        ])
        #expect(raw.requests.map(\.streamID) == [3])
        #expect(!out.contains { $0.kind == .goAway })
    }

    @Test func bodyAtTheCapIsAccepted() throws {
        let raw = RawServer(settings: H2Settings(maxBodySize: 100))
        _ = raw.handshake()
        _ = raw.feed([
            H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: false),
            H2Frame.data(streamID: 1, [UInt8](repeating: 7, count: 100), endStream: true),
        ])
        #expect(raw.refusals.isEmpty)
        #expect(raw.requests.first?.body.count == 100)
    }

    @Test func streamsPastTheLimitAreRefusedAndTheConnectionLivesOn() throws {
        let raw = RawServer(settings: H2Settings(maxConcurrentStreams: 2))
        raw.answerImmediately = false
        let first = raw.handshake()
        let settings = try #require(first.first { $0.kind == .settings && $0.flags == 0 })
        // SETTINGS_MAX_CONCURRENT_STREAMS (0x3) = 2 is announced.
        #expect(settings.payload.count % 6 == 0)
        #expect(
            stride(from: 0, to: settings.payload.count, by: 6).contains {
                settings.payload[$0 + 1] == 0x3 && Array(settings.payload[($0 + 2)..<($0 + 6)]) == [0, 0, 0, 2]
            })
        let out = raw.feed((0..<3).map { H2Frame.post(streamID: UInt32(1 + 2 * $0), path: "/3/device/aa", endStream: false) })
        let reset = try #require(out.first { $0.kind == .rstStream })
        #expect(reset.streamID == 5)
        #expect(reset.errorCode == 0x7)  // REFUSED_STREAM
        #expect(!out.contains { $0.kind == .goAway })
        // The first two streams still complete.
        _ = raw.feed([H2Frame.data(streamID: 1, [1], endStream: true), H2Frame.data(streamID: 3, [2], endStream: true)])
        #expect(raw.requests.map(\.streamID) == [1, 3])
        for request in raw.requests { raw.server.respond(streamID: request.streamID, response: H2Response(status: 200)) }
        let answers = raw.output()
        #expect(answers.filter { $0.kind == .headers }.map(\.streamID) == [1, 3])
        #expect(!raw.server.isFinished)
    }

    @Test func badPrefaceEndsTheConnectionWithJSONGoAway() throws {
        let raw = RawServer()
        let out = raw.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let goAway = try #require(out.first { $0.kind == .goAway })
        #expect(goAway.errorCode == 0x1)
        #expect(goAway.debugData?.hasPrefix(#"{"reason":"ProtocolError""#) == true)
        #expect(raw.server.isFinished)
    }

    @Test(arguments: [
        // SETTINGS whose length is not a multiple of 6: FRAME_SIZE_ERROR.
        H2Frame(.settings, streamID: 0, payload: [0, 3, 0, 0]),
        // DATA on stream 0: PROTOCOL_ERROR.
        H2Frame(.data, streamID: 0, payload: [1]),
        // WINDOW_UPDATE of 0 on the connection: PROTOCOL_ERROR.
        H2Frame(.windowUpdate, streamID: 0, payload: [0, 0, 0, 0]),
        // HEADERS with an HPACK index that does not exist: COMPRESSION_ERROR.
        H2Frame(.headers, flags: H2Frame.Flag.endHeaders, streamID: 1, payload: [0xFF, 0xFF, 0x7F]),
    ])
    func malformedFramesEndOnlyThatConnectionWithJSONGoAway(frame: H2Frame) throws {
        let raw = RawServer()
        _ = raw.handshake()
        let out = raw.feed([frame])
        let goAway = try #require(out.first { $0.kind == .goAway }, "no GOAWAY for \(frame)")
        #expect(goAway.errorCode != 0)
        let debug = try #require(goAway.debugData)
        #expect(debug.hasPrefix(#"{"reason":""#), "debug data: \(debug)")
        #expect(raw.server.isFinished)
        // Another connection is unaffected.
        let other = RawServer()
        _ = other.handshake()
        _ = other.feed([H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: true)])
        #expect(other.requests.count == 1)
    }

    @Test func headerListOverTheLimitIsRefused() throws {
        let raw = RawServer(settings: H2Settings(maxHeaderListSize: 8000))
        _ = raw.handshake()
        let big = String(repeating: "x", count: 8100)
        _ = raw.feed([H2Frame.post(streamID: 1, path: "/3/device/aa", extra: [("x-big", big)], endStream: true)])
        #expect(raw.refusals == [.headerListTooLarge(limit: 8000)])
        #expect(raw.requests.isEmpty)
    }

    @Test func gracefulShutdownLetsOpenStreamsFinish() throws {
        let raw = RawServer()
        raw.answerImmediately = false
        _ = raw.handshake()
        _ = raw.feed([
            H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: false),
            H2Frame.post(streamID: 3, path: "/3/device/bb", endStream: true),
        ])
        raw.server.shutdown()
        let out = raw.output()
        let goAway = try #require(out.first { $0.kind == .goAway })
        #expect(goAway.errorCode == 0)
        #expect(goAway.lastStreamID == 3)
        #expect(goAway.debugData == #"{"reason":"Shutdown"}"#)
        #expect(!raw.server.isFinished)
        // Stream 1 finishes its body after the GOAWAY, and both are answered.
        _ = raw.feed([H2Frame.data(streamID: 1, [1], endStream: true)])
        for request in raw.requests { raw.server.respond(streamID: request.streamID, response: H2Response(status: 200)) }
        let answers = raw.output()
        #expect(Set(answers.filter { $0.kind == .headers }.map(\.streamID)) == [1, 3])
        #expect(raw.server.isFinished)
    }

    @Test func terminateSendsReasonAndFinishes() throws {
        let raw = RawServer()
        _ = raw.handshake()
        raw.server.terminate(reason: .apns(.idleTimeout))
        let goAway = try #require(raw.output().first { $0.kind == .goAway })
        #expect(goAway.debugData == #"{"reason":"IdleTimeout"}"#)
        #expect(raw.server.isFinished)
    }

    @Test func goAwayDebugDataIsEscapedJSON() {
        let data = H2GoAway.debugData(reason: .errorCode(.protocolError), detail: "bad \"frame\"\n\u{1}")
        #expect(String(decoding: data, as: UTF8.self) == #"{"reason":"ProtocolError","detail":"bad \"frame\"\n\u0001"}"#)
    }
}
