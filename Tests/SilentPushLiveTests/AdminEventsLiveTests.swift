import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `GET /v1/events` read by curl: a change event once a push is recorded, and the stream
/// ends when silentpushd shuts down, which a listener does not hold up.
@Suite struct AdminEventsLiveTests {
    /// `silentpushd` with `arguments` and curl reading its event stream; one push, `settle`
    /// of real time, then SIGTERM: how the process ended, how long that took, and what curl
    /// read.
    static func streamThroughAPushAndSIGTERM(
        _ arguments: [String], settle: Duration, exitWithin: Duration
    ) async throws -> (exit: PeerResult, stopping: Duration, stream: PeerResult) {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(arguments)
        defer { process.signal(SIGKILL) }
        let curl = try PeerProcess("curl", ["-sN", "--max-time", "30", "http://127.0.0.1:\(admin)/v1/events"])
        try await Task.sleep(for: .milliseconds(500))
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(1)).status == 200)
        await client.close()
        try await Task.sleep(for: settle)
        let stopped = ContinuousClock.now
        process.signal(SIGTERM)
        let exit = await process.wait(timeout: exitWithin)
        let stopping = ContinuousClock.now - stopped
        return (exit, stopping, await curl.wait(timeout: .seconds(10)))
    }

    @Test func aPushIsAnEventAndSigtermEndsTheStream() async throws {
        let (result, stopping, stream) = try await Self.streamThroughAPushAndSIGTERM(
            ["--clock", "manual"], settle: .milliseconds(800), exitWithin: .seconds(10))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(stopping < .seconds(5), "an open event stream held the shutdown up")
        #expect(!stream.timedOut)
        let events = stream.output.components(separatedBy: "\n\n").filter { $0.hasPrefix("event: change") }
        #expect(stream.output.hasPrefix("retry: 2000\n\n"), "\(stream.output)")
        // One as it opened (nothing recorded yet), one for the push.
        #expect(events.first?.contains(#""changes":0"#) == true, "\(events)")
        #expect(events.count >= 2 && events.last?.contains(#""clock":"manual""#) == true, "\(events)")
        #expect(events.last?.contains(#""changes":0"#) == false, "\(events)")
    }

    /// The drain after SIGTERM lets a wake end, and the stream, which stays open through it,
    /// announces that last change before it ends: a page shows the wake's result.
    @Test func theLastChangeOfTheDrainIsAnEventBeforeTheStreamEnds() async throws {
        let (result, _, stream) = try await Self.streamThroughAPushAndSIGTERM(
            ["--fetch-exec", "sleep 2; echo newData"], settle: .milliseconds(600), exitWithin: .seconds(20))
        #expect(result.status == 0)
        let changes = stream.output.components(separatedBy: "\n\n").filter { $0.hasPrefix("event: change") }.compactMap { event in
            event.firstMatch(of: #/"changes":(\d+)/#).flatMap { Int($0.1) }
        }
        // Nothing yet, the push (and its wake's start), then the wake's end in the drain.
        #expect(changes.count >= 3 && changes.last.map { $0 > changes[1] } == true, "\(stream.output)")
    }

    /// Opens the 16 event streams the admin API at `admin` allows (curl, each for 60 s at
    /// most), then asks for one more until it is refused (5 s at most): the streams, and the
    /// last answer to one more.
    static func holdEveryStreamPlace(admin: Int) async throws -> (streams: [PeerProcess], refused: (status: Int, json: [String: Any])) {
        let streams = try (0..<16).map { _ in try PeerProcess("curl", ["-sN", "--max-time", "60", "http://127.0.0.1:\(admin)/v1/events"]) }
        do {
            var refused = (status: 0, json: [String: Any]())
            for _ in 0..<50 where refused.status != 503 {
                try await Task.sleep(for: .milliseconds(100))
                refused = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/events?limit=1")
            }
            return (streams, refused)
        } catch {
            for stream in streams { stream.signal(SIGKILL) }
            throw error
        }
    }

    /// At most 16 event streams are open at once: a stream is never idle, and more could hold
    /// every connection the admin API serves. One more is a 503 that says so; a stream whose
    /// client went away gives its place back once its writes fail.
    @Test func aSeventeenthEventStreamIs503UntilOneCloses() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start()
        defer { process.signal(SIGKILL) }
        let (streams, refused) = try await Self.holdEveryStreamPlace(admin: admin)
        defer { for stream in streams { stream.signal(SIGKILL) } }
        #expect(refused.status == 503 && (refused.json["detail"] as? String)?.contains("16 event streams open already") == true, "\(refused)")
        streams[0].signal(SIGKILL)
        _ = await streams[0].wait()
        // Changes make every stream write; the one whose client left finds out at its second
        // write (the first only draws the peer's reset) and ends.
        let client = try await TestPushClient.connect(port: h2c)
        for n in 1...2 {
            #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200)
            try await Task.sleep(for: .milliseconds(400))
        }
        await client.close()
        var again = 0
        for _ in 0..<50 where again != 200 {
            try await Task.sleep(for: .milliseconds(100))
            again = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/events?limit=1").status
        }
        #expect(again == 200)
    }

    /// Streams whose clients left unseen (nothing has changed, so none has written) hold
    /// their places until a write fails: one more stream asks each to write at once, so it
    /// gets a place as soon as they end, not at their next keep-alive (15 s apart). While
    /// every client is there, it is still refused.
    @Test func aStreamAskedForWhenEveryPlaceIsHeldFreesThoseOfClientsThatLeft() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let (streams, refused) = try await Self.holdEveryStreamPlace(admin: admin)
        defer { for stream in streams { stream.signal(SIGKILL) } }
        #expect(refused.status == 503, "every client is there: the probe frees no place")
        for stream in streams[..<4] {
            stream.signal(SIGKILL)
            _ = await stream.wait()
        }
        let asked = ContinuousClock.now
        let answer = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/events?limit=1")
        #expect(answer.status == 200, "\(answer)")
        #expect(ContinuousClock.now - asked < .seconds(5), "a place came free before any keep-alive")
    }

    /// `?limit=N` ends the stream after N events; a bad limit is a 422.
    @Test func aLimitEndsTheStreamAfterThatManyEvents() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let stream = try await PeerProcess.run("curl", ["-sN", "--max-time", "10", "http://127.0.0.1:\(admin)/v1/events?limit=1"])
        #expect(stream.status == 0, "the stream did not end by itself: \(stream.errorOutput)")
        #expect(stream.output.components(separatedBy: "\n\n").filter { $0.hasPrefix("event: change") }.count == 1, "\(stream.output)")
        for bad in ["0", "10001", "many"] {
            let answer = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/events?limit=\(bad)")
            #expect(answer.status == 422, "limit=\(bad)")
        }
    }
}
