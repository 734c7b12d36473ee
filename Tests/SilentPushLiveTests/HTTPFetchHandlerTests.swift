import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The http fetch handler against a real origin: `Tests/origin/origin_server.py`, an HTTP/1.1
/// server in its own process with ETags, slow answers, big bodies and redirects.
@Suite struct HTTPFetchHandlerTests {
    final class Origin: Sendable {
        let process: PeerProcess
        let port: Int
        let root: String

        init() async throws {
            root = Scratch.directory.appendingPathComponent("origin-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let ready = root + "/port"
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("origin/origin_server.py").path
            process = try PeerProcess("python3", [script, ready, root])
            var port = 0
            for _ in 0..<500 where port == 0 {
                port = Int(String(decoding: FileManager.default.contents(atPath: ready) ?? Data(), as: UTF8.self)) ?? 0
                if port == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            self.port = port
            try #require(port > 0, "the origin server did not start")
        }

        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + name))
        }

        var log: String { String(decoding: FileManager.default.contents(atPath: root + "/requests.log") ?? Data(), as: UTF8.self) }

        func stop() {
            process.signal(SIGKILL)
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    /// A receiver whose default handler GETs `http://127.0.0.1:PORT/{kind}/{arg}`. Moving its
    /// clock waits for a running fetch for as long as the deadline in real time: tests that
    /// expect an answer give it 10 s, which a loaded machine may need for a redirect chain.
    static func withReceiver(
        origin: Origin, bodyLimit: Int = 10 * 1024 * 1024, deadline: Duration = .seconds(1),
        _ body: (Receiver, TestPushClient) async throws -> Void
    ) async throws {
        let store = Scratch.directory.appendingPathComponent("fetch-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().path) }
        try await Receiver.withTesting({
            $0.store = .file(store)
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(1), deadline: deadline)
            $0.fetchHandler = .url(try! FetchURLTemplate("http://127.0.0.1:\(origin.port)/{kind}/{arg}"))
            $0.fetchBodyLimit = bodyLimit
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await body(receiver, client)
            await client.close()
        }
    }

    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// Pushes `{"kind":…,"arg":…}` to app `n`, lets the wake run, and returns it.
    static func wake(_ receiver: Receiver, _ client: TestPushClient, app n: Int, kind: String, arg: String) async throws -> WakeRecord {
        let answer = try await client.push(#"{"aps":{"content-available":1},"kind":"\#(kind)","arg":"\#(arg)"}"#, to: token(n))
        #expect(answer.status == 200)
        try await receiver.advanceClock(by: receiver.device.settings.deadline + .seconds(1))  // past the deadline and the interval
        await receiver.settle()
        return try #require(try await receiver.wakes(deviceToken: token(n)).last)
    }

    @Test func aFeedIsNewThenNotModifiedThenNewAgain() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try origin.write("news", #"{"headline":"one"}"#)
        try await Self.withReceiver(origin: origin, deadline: .seconds(10)) { receiver, client in
            let first = try await Self.wake(receiver, client, app: 1, kind: "feed", arg: "news")
            #expect(first.result == .newData, "\(first)")
            let url = "http://127.0.0.1:\(origin.port)/feed/news"
            let stored = try #require(try await receiver.device.content(deviceToken: Self.token(1), topic: SamplePush.topic, url: url))
            #expect(try await receiver.device.contentBody(sha256: stored.sha256) == Array(#"{"headline":"one"}"#.utf8))
            #expect(stored.etag != nil && stored.lastModified != nil && stored.contentType == "application/json")

            let second = try await Self.wake(receiver, client, app: 1, kind: "feed", arg: "news")
            #expect(second.result == .noData, "\(second)")
            #expect(origin.log.contains("if-none-match=\(stored.etag!)"), "\(origin.log)")
            #expect(origin.log.contains("if-modified-since=\(stored.lastModified!)"))

            try origin.write("news", #"{"headline":"two"}"#)
            let third = try await Self.wake(receiver, client, app: 1, kind: "feed", arg: "news")
            #expect(third.result == .newData, "\(third)")
            let latest = try #require(try await receiver.device.content(deviceToken: Self.token(1), topic: SamplePush.topic, url: url))
            #expect(try await receiver.device.contentBody(sha256: latest.sha256) == Array(#"{"headline":"two"}"#.utf8))
            #expect(latest.changedAt == third.startedAt.millisecondsSinceEpoch)
        }
    }

    /// A receiver that keeps every record still deletes a body no record names any more.
    @Test func aSupersededBodyIsDeletedWhenEveryRecordIsKept() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("fetch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            #expect($0.retention == .keepEverything)
            $0.retentionPassInterval = .milliseconds(50)
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(1), deadline: .seconds(10))
            $0.fetchHandler = .url(try! FetchURLTemplate("http://127.0.0.1:\(origin.port)/{kind}/{arg}"))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let url = "http://127.0.0.1:\(origin.port)/feed/news"
            try origin.write("news", #"{"headline":"one"}"#)
            #expect(try await Self.wake(receiver, client, app: 1, kind: "feed", arg: "news").result == .newData)
            let first = try #require(try await receiver.device.content(deviceToken: Self.token(1), topic: SamplePush.topic, url: url))
            try origin.write("news", #"{"headline":"two"}"#)
            #expect(try await Self.wake(receiver, client, app: 1, kind: "feed", arg: "news").result == .newData)
            let second = try #require(try await receiver.device.content(deviceToken: Self.token(1), topic: SamplePush.topic, url: url))
            // Saved longer ago than the minute a fetch's own body is spared for.
            let old = directory + "/store.sqlite-contents/" + first.sha256
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: old)
            for _ in 0..<200 where FileManager.default.fileExists(atPath: old) { try await Task.sleep(for: .milliseconds(25)) }
            #expect(!FileManager.default.fileExists(atPath: old), "the first body, superseded, is deleted")
            #expect(FileManager.default.fileExists(atPath: directory + "/store.sqlite-contents/" + second.sha256))
        }
    }

    @Test func failuresAreFailedWithTheirReason() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Self.withReceiver(origin: origin, bodyLimit: 1_000_000, deadline: .seconds(10)) { receiver, client in
            let unavailable = try await Self.wake(receiver, client, app: 1, kind: "status", arg: "503")
            #expect(unavailable.result?.name == "failed" && unavailable.reason == "HTTP 503 from http://127.0.0.1:\(origin.port)/status/503")
            let missing = try await Self.wake(receiver, client, app: 2, kind: "status", arg: "404")
            #expect(missing.result?.name == "failed" && missing.reason?.hasPrefix("HTTP 404") == true)
            let big = try await Self.wake(receiver, client, app: 3, kind: "big", arg: "2000000")
            #expect(big.result?.name == "failed" && big.reason == "the body is over 1000000 bytes", "\(big)")
            let redirected = try await Self.wake(receiver, client, app: 4, kind: "redirect", arg: "3")
            #expect(redirected.result == .newData, "\(redirected)")
            let loop = try await Self.wake(receiver, client, app: 5, kind: "redirect", arg: "9")
            #expect(loop.result?.name == "failed" && loop.reason?.hasPrefix("more than 5 redirects") == true, "\(loop)")
            // A redirect to a port no connection can use fails the fetch; the receiver runs on.
            let badPort = try await Self.wake(receiver, client, app: 7, kind: "toport", arg: "70000")
            #expect(
                badPort.result?.name == "failed"
                    && badPort.reason
                        == "GET http://127.0.0.1:\(origin.port)/toport/70000: cannot ask for http://127.0.0.1:70000/: port 70000 is not one from 1 to 65535",
                "\(badPort)")
            // A failure past a redirect names the hop that failed as well.
            let free = try LoopbackPort.free()
            let hop = try await Self.wake(receiver, client, app: 8, kind: "toport", arg: "\(free)")
            #expect(
                hop.reason
                    == "GET http://127.0.0.1:\(origin.port)/toport/\(free) (redirected to http://127.0.0.1:\(free)/): connection refused",
                "\(hop)")
            let refused = try await Self.wake(receiver, client, app: 6, kind: "status", arg: "200")
            #expect(refused.result == .newData)
        }
    }

    @Test func anOriginSlowerThanTheDeadlineIsCancelled() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Self.withReceiver(origin: origin) { receiver, client in
            let slow = try await Self.wake(receiver, client, app: 1, kind: "slow", arg: "10")
            #expect(slow.result?.name == "failed" && slow.reason == "deadlineExceeded", "\(slow)")
            var cancelled = false
            for _ in 0..<300 where !cancelled {
                cancelled = origin.log.contains("slow cancelled")
                if !cancelled { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(cancelled, "the origin never saw the request go away: \(origin.log)")
            #expect(!origin.log.contains("slow completed"))
        }
    }

    /// A handler server nobody listens on fails the fetch at once, as a URLSession task does
    /// (not at the pool's 10 s connect timeout), saying so in a few words (it read
    /// "connection reset (error set): Connection refused)").
    @Test func aHandlerNobodyListensOnFailsAtOnceSayingTheConnectionWasRefused() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        origin.stop()
        try await Self.withReceiver(origin: origin, deadline: .seconds(20)) { receiver, client in
            let began = ContinuousClock.now
            let wake = try await Self.wake(receiver, client, app: 1, kind: "status", arg: "200")
            let elapsed = ContinuousClock.now - began
            #expect(wake.result?.name == "failed", "\(wake)")
            #expect(wake.reason == "GET http://127.0.0.1:\(origin.port)/status/200: connection refused", "\(wake)")
            #expect(elapsed < .seconds(5), "the fetch waited \(elapsed) for a refused connection")
        }
    }

    /// A handler server whose certificate this host does not trust (another receiver's TLS
    /// listener, with the development CA's certificate) fails the fetch at once, as a
    /// URLSession task does (`NSURLErrorServerCertificateUntrusted`), not at the pool's 10 s
    /// connect timeout, saying so in a few words.
    /// By name too (the handshake then names the server, and verifies the certificate for it).
    @Test(arguments: ["127.0.0.1", "localhost"]) func aHandlerWithAnUntrustedCertificateFailsAtOnceSayingSo(_ host: String) async throws {
        try await Receiver.withTesting { origin in
            let port = try #require(origin.tlsPort)
            let (wake, elapsed) = try await Self.timedWake(url: "https://\(host):\(port)")
            #expect(wake.result?.name == "failed", "\(wake)")
            #expect(wake.reason == "GET https://\(host):\(port)/status/200: the server certificate is not trusted", "\(wake)")
            #expect(elapsed < .seconds(5), "the fetch waited \(elapsed) for a certificate it does not trust")
        }
    }

    /// An origin whose CA the receiver is given (`--origin-ca`) is trusted, beside the
    /// system's roots: the fetch reaches it (here another receiver's TLS listener, which
    /// answers the path 404) instead of failing on its certificate.
    @Test func aHandlerWhoseCAIsGivenIsTrusted() async throws {
        try await Receiver.withTesting { origin in
            let port = try #require(origin.tlsPort)
            let (wake, _) = try await Self.timedWake(url: "https://localhost:\(port)", originCA: [DevCertificates.ca])
            #expect(wake.reason == "HTTP 404 from https://localhost:\(port)/status/200", "\(wake)")
        }
    }

    /// Over https as well: the probe's one connection is refused, and says so.
    @Test func anHTTPSHandlerNobodyListensOnFailsAtOnceSayingTheConnectionWasRefused() async throws {
        let port = try LoopbackPort.free()
        let (wake, elapsed) = try await Self.timedWake(url: "https://127.0.0.1:\(port)")
        #expect(wake.reason == "GET https://127.0.0.1:\(port)/status/200: connection refused", "\(wake)")
        #expect(elapsed < .seconds(5), "the fetch waited \(elapsed) for a refused connection")
    }

    /// One wake of app 1 on a receiver whose handler GETs `url/status/200` (a 20 s deadline),
    /// and how long it took in real time.
    static func timedWake(url: String, originCA: [String] = []) async throws -> (WakeRecord, Duration) {
        let template = try FetchURLTemplate(url + "/{kind}/{arg}")
        var timed: (WakeRecord, Duration)?
        try await Receiver.withTesting({
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(1), deadline: .seconds(20))
            $0.fetchHandler = .url(template)
            $0.originCertificateAuthorities = originCA
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let began = ContinuousClock.now
            let wake = try await Self.wake(receiver, client, app: 1, kind: "status", arg: "200")
            timed = (wake, ContinuousClock.now - began)
            await client.close()
        }
        return try #require(timed)
    }

    /// An https handler whose server speaks no TLS fails the fetch at once (as
    /// `NSURLErrorSecureConnectionFailed` does), not at the pool's timeout, saying so in
    /// words (it read `handshakeFailed(NIOSSL.BoringSSLError…)`).
    @Test func anHTTPSHandlerThatSpeaksNoTLSFailsAtOnceSayingSo() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let (plain, elapsed) = try await Self.timedWake(url: "https://127.0.0.1:\(origin.port)")
        #expect(plain.reason?.hasPrefix("GET https://127.0.0.1:\(origin.port)/status/200: the TLS handshake failed (") == true, "\(plain)")
        #expect(elapsed < .seconds(5), "the fetch waited \(elapsed) for a server that speaks no TLS")
    }

    @Test func aConnectionClosedWithoutAnAnswerIsFailed() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Self.withReceiver(origin: origin) { receiver, client in
            let wake = try await Self.wake(receiver, client, app: 1, kind: "drop", arg: "now")
            #expect(wake.result?.name == "failed" && wake.reason?.hasPrefix("GET http://127.0.0.1:\(origin.port)/drop/now: ") == true, "\(wake)")
        }
    }
}

/// Per-topic handlers from a config file, in the `silentpushd` process, and the fetched
/// content read back through the admin API.
@Suite struct SilentPushdFetchConfigTests {
    @Test func aTopicsURLHandlerFromTheConfigFileAndTheDefaultExec() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try origin.write("sports", #"{"score":"2-1"}"#)
        let config = origin.root + "/silentpushd.json"
        try Data(#"{"fetchHandlers": {"com.example.app": {"url": "http://127.0.0.1:\#(origin.port)/feed/{feed}"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let store = origin.root + "/store/store.sqlite"
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(
            ["--config", config, "--fetch-exec", "echo noData", "--clock", "manual", "--profile", "fast"], store: store)
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        let payload = #"{"aps":{"content-available":1},"feed":"sports"}"#
        #expect(try await client.push(payload, apnsID: SilentPushdDeviceTests.apnsID(1)).status == 200)
        #expect(try await client.push(payload, topic: "com.example.other", apnsID: SilentPushdDeviceTests.apnsID(2)).status == 200)
        await client.close()
        // Both wakes started at once; their handlers answer in real time.
        var wakes: [[String: Any]] = []
        for _ in 0..<500 where wakes.count < 2 || wakes.contains(where: { $0["result"] is NSNull }) {
            wakes = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes").json["wakes"] as? [[String: Any]] ?? []
            try await Task.sleep(for: .milliseconds(10))
        }
        let results = Dictionary(uniqueKeysWithValues: wakes.map { ($0["topic"] as? String ?? "", $0["result"] as? String ?? "") })
        #expect(results == ["com.example.app": "newData", "com.example.other": "noData"])

        let device = SamplePush.deviceToken
        let listed = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/contents?device=\(device)")
        let content = try #require((listed.json["contents"] as? [[String: Any]])?.first)
        #expect(content["url"] as? String == "http://127.0.0.1:\(origin.port)/feed/sports")
        #expect(content["size"] as? Int == 15)
        let body = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/v1/contents/body?device=\(device)&topic=com.example.app"])
        #expect(body.output == #"{"score":"2-1"}"#)
        let sha = try #require(content["sha256"] as? String)
        #expect(FileManager.default.fileExists(atPath: origin.root + "/store/store.sqlite-contents/" + sha))
    }
}

extension SilentPushdFetchConfigTests {
    /// A fetch URL's user and password are the app's secret: the listing masks them, and the
    /// URL as listed still finds the body (as does the URL itself).
    @Test func aFetchURLsPasswordIsMaskedInTheListingAndItsMaskedURLFindsTheBody() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try origin.write("sports", #"{"score":"3-0"}"#)
        let template = "http://reader:s3cret-pass@127.0.0.1:\(origin.port)/feed/{feed}"
        let store = origin.root + "/store/store.sqlite"
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(
            ["--fetch-url", template, "--clock", "manual", "--profile", "fast"], store: store)
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push(#"{"aps":{"content-available":1},"feed":"sports"}"#, apnsID: SilentPushdDeviceTests.apnsID(1)).status == 200)
        await client.close()
        let device = SamplePush.deviceToken
        var listed = ""
        for _ in 0..<500 where !listed.contains("sha256") {
            listed = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/v1/contents?device=\(device)"]).output
            try await Task.sleep(for: .milliseconds(10))
        }
        let masked = "http://***@127.0.0.1:\(origin.port)/feed/sports"
        let json = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any]
        let content = try #require((json?["contents"] as? [[String: Any]])?.first)
        #expect(content["url"] as? String == masked)
        #expect(!listed.contains("s3cret"), "\(listed)")
        for url in [masked, "http://reader:s3cret-pass@127.0.0.1:\(origin.port)/feed/sports"] {
            let query = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let body = try await PeerProcess.run(
                "curl", ["-sS", "http://127.0.0.1:\(admin)/v1/contents/body?device=\(device)&topic=\(SamplePush.topic)&url=\(query)"])
            #expect(body.output == #"{"score":"3-0"}"#, "\(url)")
        }
        let other = "http://***@127.0.0.1:\(origin.port)/feed/weather".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let missing = try await PeerProcess.run(
            "curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                "http://127.0.0.1:\(admin)/v1/contents/body?device=\(device)&topic=\(SamplePush.topic)&url=\(other)",
            ])
        #expect(missing.output == "404")
    }
}

/// Background tasks with the http handler, against the same origin: the run's JSON POSTed,
/// the answer's `success` completing it, expiry cancelling the request.
@Suite struct HTTPTaskHandlerTests {
    /// A receiver whose tasks POST to `http://127.0.0.1:PORT/task/PATH` (1 s for a refresh).
    static func withTaskReceiver(
        origin: HTTPFetchHandlerTests.Origin, path: String, query: String = "topic={topic}", _ body: (Receiver) async throws -> Void
    ) async throws {
        try await Receiver.withTesting({
            $0.wakeSettings.refreshTaskTime = .seconds(1)
            $0.fetchHandler = .url(try! FetchURLTemplate("http://127.0.0.1:\(origin.port)/task/\(path)?\(query)"))
            $0.apps = [SamplePush.topic: AppDeclaration(permittedTaskIdentifiers: ["com.example.refresh"], backgroundModes: [.fetch])]
        }) { receiver in try await body(receiver) }
    }

    @Test(arguments: [("success", TaskOutcome.completed), ("fail", .failed)])
    func aTaskIsPostedAndItsAnswerCompletesIt(path: String, outcome: TaskOutcome) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Self.withTaskReceiver(origin: origin, path: path) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == outcome)
            #expect(origin.log.contains("POST /task/\(path) identifier=com.example.refresh"), "\(origin.log)")
        }
    }

    /// A template made for wakes, with a payload key: a run, which has no payload, is still
    /// POSTed (the key left empty), not failed without a request.
    @Test func aTemplateWithAPayloadKeyStillPostsTheRun() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Self.withTaskReceiver(origin: origin, path: "success", query: "topic={topic}&section={section}") { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .completed)
            #expect(origin.log.contains("POST /task/success identifier=com.example.refresh"), "\(origin.log)")
        }
    }

    @Test func expiryCancelsATasksRequestAndCompletesItUnsuccessfully() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Self.withTaskReceiver(origin: origin, path: "slow/60") { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            try await receiver.advanceClock(by: .seconds(2))  // its 1 s of real time, then expiry
            await receiver.settle()
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.outcome == .expired)
            for _ in 0..<100 where !origin.log.contains("slow task cancelled") { try await Task.sleep(for: .milliseconds(20)) }
            #expect(origin.log.contains("slow task cancelled"), "\(origin.log)")
        }
    }
}
