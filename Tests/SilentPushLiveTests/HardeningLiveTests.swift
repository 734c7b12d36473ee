import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Clients and faults that must not hold, starve or crash a receiver that many teams share
/// (issue 16), against `silentpushd` as users run it.
@Suite(.serialized) struct HardeningLiveTests {
    static let handshake = H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes

    static func metric(_ admin: Int, _ name: String) async throws -> Int? {
        let scrape = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"], timeout: .seconds(30)).output
        return scrape.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    @Test func aBodyThatNeverEndsIsResetWithinTheRequestTimeout() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--request-timeout", "1s"])
        defer { process.signal(SIGKILL) }
        let connection = try await RawH2Connection.connect(port: h2c)
        defer { Task { await connection.close() } }
        let headers = SamplePush.headers(jwt: try DevProviderToken.make())
        try await connection.send(Self.handshake)
        let sent = ContinuousClock.now
        try await connection.send([
            H2Frame.post(streamID: 1, path: SamplePush.path, extra: headers, endStream: false),
            H2Frame.data(streamID: 1, Array(SamplePush.payload.prefix(5)), endStream: false),
        ])
        let frames = try await connection.waitForFrames(timeout: .seconds(5)) { $0.contains { $0.kind == .rstStream } }
        let elapsed = ContinuousClock.now - sent
        let reset = try #require(frames.first { $0.kind == .rstStream }, "no RST_STREAM: \(frames)")
        #expect(reset.streamID == 1 && reset.errorCode == 0x8)  // CANCEL
        #expect(elapsed >= .milliseconds(900) && elapsed < .milliseconds(2500), "reset after \(elapsed)")
        // The connection lives on: the next request is answered.
        try await connection.send([
            H2Frame.post(streamID: 3, path: SamplePush.path, extra: headers, endStream: false),
            H2Frame.data(streamID: 3, SamplePush.payload, endStream: true),
        ])
        let answered = try await connection.waitForFrames { $0.contains { $0.kind == .headers && $0.streamID == 3 } }
        #expect(answered.contains { $0.kind == .headers && $0.streamID == 3 })
        #expect(try await Self.metric(admin, "silentpush_request_timeouts_total") == 1)
    }

    @Test func aConnectionWhoseStreamsMakeNoProgressGetsIdleTimeout() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--request-timeout", "0", "--idle-timeout", "2s"])
        defer { process.signal(SIGKILL) }
        let connection = try await RawH2Connection.connect(port: h2c)
        defer { Task { await connection.close() } }
        // One write, at once: the idle timer runs from the accept, and a loaded machine may
        // take a while between two of the test's writes.
        try await connection.send(
            Self.handshake + H2Frame.post(streamID: 1, path: SamplePush.path, extra: SamplePush.headers(jwt: nil), endStream: false).bytes)
        let frames = try await connection.waitForFrames(timeout: .seconds(6)) { $0.contains { $0.kind == .goAway } }
        let goAway = try #require(frames.first { $0.kind == .goAway }, "no GOAWAY: \(frames)")
        #expect(goAway.lastStreamID == 1, "the stream was open when the connection went idle")
        #expect(goAway.debugData?.contains(#""reason":"IdleTimeout""#) == true)
        #expect(try await connection.waitForClose())
        #expect(try await Self.metric(admin, "silentpush_idle_timeouts_total") == 1)
    }

    @Test func aSecondReceiverOnAHeldStoreExits2NamingTheHolder() async throws {
        let directory = Scratch.directory.appendingPathComponent("held-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let (first, _, _, _) = try await SilentPushdProcessTests.start(store: path)
        defer { first.signal(SIGKILL) }
        let second = try PeerProcess(
            try SilentPushdProcessTests.binary(),
            [
                "--listen", "127.0.0.1:0", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--store", path,
                "--tls-cert", DevCertificates.serverCertificate, "--tls-key", DevCertificates.serverKey,
            ])
        let result = await second.wait(timeout: .seconds(30))
        #expect(result.status == 2)
        #expect(result.errorOutput.contains("in use by another process (pid \(first.pid))"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains(path))
        #expect(result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
    }

    /// A client over the connection limit that goes on sending after its preface (its
    /// request, as curl does) before it reads still reads the GOAWAY that says why: the
    /// receiver reads and drops what it sends for a while after the refusal. Closed at once,
    /// the connection was reset, the client's next write failed (`Broken pipe`), and the
    /// reason was lost.
    @Test func aRefusedClientThatGoesOnSendingReadsWhy() async throws {
        try await Receiver.withTesting({ $0.maxConnections = 1 }) { receiver in
            let port = try #require(receiver.h2cPort)
            let held = try await RawH2Connection.connect(port: port)
            try await held.send(Self.handshake)
            _ = try await held.waitForFrames { $0.contains { $0.kind == .settings } }
            let script = """
                import socket, sys, time
                preface = b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n" + bytes(3) + b"\\x04" + bytes(5)
                ping = b"\\x00\\x00\\x08\\x06\\x00\\x00\\x00\\x00\\x00" + bytes(8)
                c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                c.sendall(preface)
                for _ in range(3):
                    time.sleep(0.1)
                    c.sendall(ping * 100)
                c.shutdown(socket.SHUT_WR)
                data = b""
                while chunk := c.recv(65536):
                    data += chunk
                print("GOAWAY" if b"ServiceUnavailable" in data else "no GOAWAY: %r" % data[:200])
                """
            for attempt in 1...3 {
                let run = try await PeerProcess.run("python3", ["-c", script, "\(port)"], timeout: .seconds(20))
                #expect(run.status == 0 && run.output == "GOAWAY\n", "attempt \(attempt): \(run.output) \(run.errorOutput.suffix(300))")
            }
            await held.close()
        }
    }

    /// The descriptor limit at 1024 and 3,000 clients at once: each is served or told
    /// GOAWAY at once, none waits unanswered, and the limit is in the log.
    @Test func threeThousandConnectionsAtA1024LimitAreServedOrRefusedWithGoAway() async throws {
        var own = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &own)
        try #require(own.rlim_max >= 4096, "the test process needs 3,000 descriptors for its clients")
        own.rlim_cur = own.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &own)

        let ready = SilentPushdProcessTests.readyFile()
        let process = try PeerProcess(
            "/bin/sh",
            [
                "-c", #"ulimit -n 1024 && exec "$0" "$@""#, try SilentPushdProcessTests.binary(),
                "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--ready-file", ready, "--store", "memory",
            ])
        defer { process.signal(SIGKILL) }
        var h2c = 0
        for _ in 0..<500 where h2c == 0 {
            if let data = FileManager.default.contents(atPath: ready),
                let ports = try? JSONSerialization.jsonObject(with: data) as? [String: Int], let port = ports["h2c"]
            {
                h2c = port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(h2c != 0, "silentpushd did not start")
        let port = h2c

        let headers = SamplePush.headers(jwt: try DevProviderToken.make())
        let request =
            Self.handshake + H2Frame.post(streamID: 1, path: SamplePush.path, extra: headers, endStream: false).bytes
            + H2Frame.data(streamID: 1, SamplePush.payload, endStream: true).bytes
        let outcomes = try await withThrowingTaskGroup(of: (String, RawH2Connection?).self) { group in
            for _ in 0..<3_000 {
                group.addTask {
                    // The 3,000 connect at once: a full backlog drops SYNs, retried after 1, 3, 7 s.
                    let connection = try await RawH2Connection.connect(port: port, timeout: .seconds(30))
                    try? await connection.send(request)
                    let frames = try await connection.waitForFrames(timeout: .seconds(30)) { frames in
                        frames.contains { $0.kind == .goAway || ($0.kind == .headers && $0.streamID == 1) }
                    }
                    if frames.contains(where: { $0.kind == .headers && $0.streamID == 1 }) { return ("served", connection) }
                    if let goAway = frames.first(where: { $0.kind == .goAway }) {
                        await connection.close()
                        return (
                            goAway.lastStreamID == 0 && goAway.debugData?.contains("ServiceUnavailable") == true ? "refused" : "other GOAWAY", nil
                        )
                    }
                    await connection.close()
                    return (connection.isClosed ? "closed without GOAWAY" : "unanswered", nil)
                }
            }
            var outcomes: [String: Int] = [:]
            var open: [RawH2Connection] = []
            for try await (outcome, connection) in group {
                outcomes[outcome, default: 0] += 1
                if let connection { open.append(connection) }  // served ones stay open until all are in
            }
            for connection in open { await connection.close() }
            return outcomes
        }
        #expect(outcomes.keys.allSatisfy { $0 == "served" || $0 == "refused" }, "\(outcomes)")
        #expect((outcomes["served"] ?? 0) + (outcomes["refused"] ?? 0) == 3_000, "\(outcomes)")
        #expect((outcomes["served"] ?? 0) >= 500, "\(outcomes)")
        #expect((outcomes["refused"] ?? 0) >= 1_000, "\(outcomes)")
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(30)).errorOutput
        #expect(log.contains("files.soft_limit=1024") && log.contains("open-file limit"), "\(log.prefix(2000))")
        #expect(log.contains("refusing connections over --max-connections"))
    }
}

extension HardeningLiveTests {
    /// With the cap set above what the descriptors allow, accept itself fails (EMFILE): the
    /// listener says so, counts it, pauses instead of spinning, and serves again once
    /// clients leave.
    @Test func runningOutOfDescriptorsIsLoggedCountedAndRecoveredFrom() async throws {
        let ready = SilentPushdProcessTests.readyFile()
        let process = try PeerProcess(
            "/bin/sh",
            [
                "-c", #"ulimit -n 256 && exec "$0" "$@""#, try SilentPushdProcessTests.binary(),
                "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--ready-file", ready, "--store", "memory",
                "--max-connections", "5000",
            ])
        defer { process.signal(SIGKILL) }
        var ports: [String: Int] = [:]
        for _ in 0..<500 where ports["h2c"] == nil {
            if let data = FileManager.default.contents(atPath: ready),
                let read = try? JSONSerialization.jsonObject(with: data) as? [String: Int]
            {
                ports = read
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let h2c = try #require(ports["h2c"]), admin = try #require(ports["admin"])
        var held: [RawH2Connection] = []
        for _ in 0..<400 { held.append(try await RawH2Connection.connect(port: h2c)) }
        try await Task.sleep(for: .milliseconds(500))
        for connection in held { await connection.close() }
        let failures = try #require(try await Self.metric(admin, "silentpush_accept_failures_total"))
        #expect(failures > 0)
        // Served again once the descriptors are back.
        let client = try await TestPushClient.connect(port: h2c)
        defer { Task { await client.close() } }
        #expect(try await client.push().status == 200)
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(30)).errorOutput
        #expect(log.contains("cannot accept connections: out of the process's file descriptor limit"), "\(log.prefix(3000))")
        // Logged at most every 10 s, not once per failed accept.
        #expect(log.components(separatedBy: "cannot accept connections").count - 1 <= 2)
    }
}

extension HardeningLiveTests {
    @Test(arguments: [([String](), true), (["--admin-token", "s3cret"], false)])
    func anAdminListenerBeyondLoopbackWithoutATokenIsWarnedAbout(extra: [String], warned: Bool) async throws {
        let (process, _, _, _) = try await SilentPushdProcessTests.start(["--admin", "0.0.0.0:0"] + extra)
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(30)).errorOutput
        #expect(log.contains("the admin API listens beyond loopback with no token") == warned, "\(log)")
    }

    /// The warning names the port the admin API took, not the `0` it was given.
    @Test func theWarningNamesThePortTheAdminAPITook() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--admin", "0.0.0.0:0"])
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(30)).errorOutput
        #expect(admin != 0 && log.contains("anyone who can reach 0.0.0.0:\(admin) can change"), "\(log)")
    }
}

extension HardeningLiveTests {
    /// While SIGTERM's drain lets a fetch end, `/readyz` says draining (503), so a load
    /// balancer sends new connections elsewhere, and the log says the drain began.
    @Test func theDrainIsSaidByReadyzAndTheLog() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--fetch-exec", "sleep 2; echo noData", "--shutdown-grace", "10s"])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push().status == 200)  // wakes the app: its handler sleeps
        await client.close()
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/readyz").status == 200)
        process.signal(SIGTERM)
        var draining: (status: Int, json: [String: Any])?
        for _ in 0..<50 {
            let answer = try? await SilentPushdDeviceTests.admin(admin, "GET", "/readyz")
            if answer?.status == 503 {
                draining = answer
                break
            }
            try await Task.sleep(for: .milliseconds(40))
        }
        #expect(draining?.json["status"] as? String == "draining", "\(String(describing: draining))")
        let log = await process.wait(timeout: .seconds(30)).errorOutput
        #expect(log.contains("shutting down: answering the requests under way and letting fetches end"), "\(log.prefix(3000))")
    }

    /// A connection that never sends the HTTP/2 preface holds one of `--max-connections` for
    /// nothing: it is given as long as a request may take (`--request-timeout`), then
    /// GOAWAY and closed, as an unfinished TLS handshake is; not the idle timeout's minutes.
    @Test func aConnectionThatNeverSendsThePrefaceIsClosedWithinTheRequestTimeout() async throws {
        let (process, _, h2c, _) = try await SilentPushdProcessTests.start(["--request-timeout", "1s", "--idle-timeout", "10m"])
        defer { process.signal(SIGKILL) }
        let connection = try await RawH2Connection.connect(port: h2c)
        defer { Task { await connection.close() } }
        let opened = ContinuousClock.now
        let frames = try await connection.waitForFrames(timeout: .seconds(10)) { $0.contains { $0.kind == .goAway } }
        let goAway = try #require(frames.first { $0.kind == .goAway }, "no GOAWAY: \(frames)")
        #expect(String(decoding: goAway.payload.dropFirst(8), as: UTF8.self).contains("IdleTimeout"), "\(goAway)")
        #expect(try await connection.waitForClose(timeout: .seconds(5)))
        #expect(ContinuousClock.now - opened < .seconds(5))
    }
}

extension HardeningLiveTests {
    /// Admin clients that start a request and never finish it are closed after
    /// `--request-timeout`, at most 64 served at once (the others wait in the listen
    /// queue): they cannot take the descriptors the pushes need, and once they are gone the
    /// admin API answers again.
    @Test func adminConnectionsThatNeverFinishARequestAreClosedAndLeavePushesServed() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--request-timeout", "1s"])
        defer { process.signal(SIGKILL) }
        let script = """
            import select, socket, sys, time
            socks = []
            for _ in range(150):
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n")
                socks.append(s)
            print("open", flush=True)
            closed, end = 0, time.monotonic() + 20
            while socks and time.monotonic() < end:
                ready, _, _ = select.select(socks, [], [], 0.5)
                for s in ready:
                    if not s.recv(4096):
                        socks.remove(s); s.close(); closed += 1
            print("closed", closed)
            """
        let slow = try PeerProcess("python3", ["-c", script, "\(admin)"])
        try await Task.sleep(for: .milliseconds(500))
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push().status == 200)
        await client.close()
        let result = await slow.wait(timeout: .seconds(40))
        #expect(result.output.contains("closed 150"), "\(result.output)\(result.errorOutput)")
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/healthz").status == 200)
    }
}

extension HardeningLiveTests {
    /// A request whose body comes a byte at a time, never idle for the limit, is closed once
    /// it has not arrived whole `--request-timeout` after its connection was ready for it,
    /// also after a request answered before its body ended (a 404); an event stream answered
    /// for longer than the limit is not cut.
    @Test func anAdminRequestThatDribblesIsClosedAtTheRequestTimeoutAndALongAnswerIsNot() async throws {
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--request-timeout", "1s"])
        defer { process.signal(SIGKILL) }
        let script = """
            import socket, sys, time
            port = int(sys.argv[1])
            def dribble(s, label):
                s.sendall(b"POST /v1/faults HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\ncontent-type: application/json\\r\\ncontent-length: 100\\r\\n\\r\\n")
                start = time.monotonic()
                s.settimeout(0.25)
                while time.monotonic() - start < 8:
                    try:
                        s.sendall(b" ")
                        if not s.recv(4096):
                            break
                    except socket.timeout:
                        continue
                    except OSError:
                        break
                print(label, "closed after %.1f" % (time.monotonic() - start) if time.monotonic() - start < 8 else "open")
            dribble(socket.create_connection(("127.0.0.1", port)), "dribble")
            # Answered 404 before its body is sent; then the body; then a dribble on the same connection.
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /nope HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\ncontent-length: 5\\r\\n\\r\\n")
            s.settimeout(5)
            print("early", s.recv(4096).split(b"\\r\\n")[0].decode())
            s.sendall(b"hello")
            dribble(s, "dribble after an early answer")
            e = socket.create_connection(("127.0.0.1", port))
            e.sendall(b"GET /v1/events HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
            e.settimeout(0.5)
            start, got, closed = time.monotonic(), b"", False
            while time.monotonic() - start < 3:
                try:
                    chunk = e.recv(4096)
                    if not chunk:
                        closed = True
                        break
                    got += chunk
                except socket.timeout:
                    pass
            print("stream", "closed" if closed else "open", got.split(b"\\r\\n")[0].decode())
            """
        let result = try await PeerProcess.run("python3", ["-c", script, "\(admin)"], timeout: .seconds(40))
        let lines = result.output.split(separator: "\n").map(String.init)
        func closedAfter(_ label: String) -> Double? {
            lines.first { $0.hasPrefix(label + " closed after ") }.flatMap { Double($0.dropFirst((label + " closed after ").count)) }
        }
        #expect(closedAfter("dribble").map { $0 >= 0.8 && $0 < 4 } == true, "\(result.output)\(result.errorOutput)")
        #expect(lines.contains("early HTTP/1.1 404 Not Found"), "\(result.output)\(result.errorOutput)")
        #expect(closedAfter("dribble after an early answer").map { $0 >= 0.8 && $0 < 4 } == true, "\(result.output)\(result.errorOutput)")
        #expect(lines.contains("stream open HTTP/1.1 200 OK"), "\(result.output)\(result.errorOutput)")
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/healthz").status == 200)
    }
}
