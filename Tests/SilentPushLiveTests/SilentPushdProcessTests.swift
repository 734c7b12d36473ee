import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// The `silentpushd` executable as users run it: flags, exit codes, the ready file, SIGTERM.
@Suite(.serialized) struct SilentPushdProcessTests {
    static func binary() throws -> String {
        try #require(BuiltProducts.path(of: "silentpushd"), "silentpushd is not built: run `swift build` (make test does)")
    }

    static func readyFile() -> String {
        Scratch.directory.appendingPathComponent("silentpushd-ready-\(UUID().uuidString).json").path
    }

    /// Starts silentpushd with every listener on port 0 and waits for its ready file.
    static func start(_ extra: [String] = [], store: String = "memory") async throws -> (PeerProcess, tls: Int, h2c: Int, admin: Int) {
        let (process, ports) = try await startWithPorts(extra, store: store)
        return (process, ports["tls"] ?? 0, ports["h2c"] ?? 0, ports["admin"] ?? 0)
    }

    /// Starts `silentpushd` and returns every port its ready file names, by listener.
    static func startWithPorts(_ extra: [String] = [], store: String = "memory") async throws -> (PeerProcess, [String: Int]) {
        let ready = readyFile()
        let process = try PeerProcess(
            try binary(),
            [
                "--listen", "127.0.0.1:0", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--ready-file", ready,
                "--store", store, "--tls-cert", DevCertificates.serverCertificate, "--tls-key", DevCertificates.serverKey,
            ] + extra,
            // A memory store keeps its transfers' files in the temporary directory: the
            // scratch directory goes when the tests end, also after a SIGKILL of the process.
            environment: ["TMPDIR": Scratch.directory.path])
        return (process, try await readyPorts(ready, of: process, naming: ["tls", "h2c", "admin"]))
    }

    /// The ports `process` wrote to its ready file `ready` (which is removed), once it names
    /// each of `listeners`; after 10 s the process is killed, its errors recorded.
    static func readyPorts(_ ready: String, of process: PeerProcess, naming listeners: [String]) async throws -> [String: Int] {
        for _ in 0..<500 {
            if let data = FileManager.default.contents(atPath: ready),
                let ports = try? JSONSerialization.jsonObject(with: data) as? [String: Int],
                listeners.allSatisfy({ ports[$0] != nil })
            {
                try? FileManager.default.removeItem(atPath: ready)
                return ports
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGKILL)
        Issue.record("silentpushd wrote no ready file: \(await process.wait().errorOutput)")
        throw CancellationError()
    }

    /// A config file given as a pipe (`--config <(envsubst < template)`) is read once: its
    /// flag keys (read before the command line is parsed) and its other keys (read into the
    /// configuration) both come from that reading.
    @Test func aConfigFileGivenAsAPipeIsReadOnce() async throws {
        let ready = Self.readyFile()
        let config = #"{"clock": "manual", "faults": [{"match": {"topic": "com.example.app"}, "action": {"reason": "InternalServerError"}}]}"#
        let process = try PeerProcess(
            "bash",
            [
                "-c", #"exec "$0" "$@" --config <(printf '%s' "$CONFIG")"#, try Self.binary(), "--listen", "off", "--listen-h2c", "127.0.0.1:0",
                "--admin", "127.0.0.1:0", "--ready-file", ready, "--store", "memory",
            ], environment: ["CONFIG": config, "TMPDIR": Scratch.directory.path])
        defer { process.signal(SIGKILL) }
        let admin = try #require(try await Self.readyPorts(ready, of: process, naming: ["admin"])["admin"])
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["clock"] as? String == "manual")
        let faults = try #require(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/faults").json["faults"] as? [[String: Any]])
        #expect(faults.count == 1)
    }

    /// A client certificate the receiver does not trust is refused in the handshake, where
    /// the client sees only an alert: the log says why, once per quiet period however many.
    @Test func aRefusedClientCertificateIsLoggedWithItsReasonOnce() async throws {
        let (process, tls, _, _) = try await Self.start(["--client-ca", DevCertificates.ca])
        let other = DevCertificates.directory + "/other-client"
        for _ in 0..<3 {
            let refused = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "--cert", other + ".pem", "--key", other + "-key.pem",
                    "-d", "{}", "https://localhost:\(tls)/3/device/\(SamplePush.deviceToken)",
                ])
            #expect(refused.status != 0)
        }
        process.signal(SIGTERM)
        let log = await process.wait().errorOutput
        let lines = log.split(separator: "\n").filter { $0.contains("a client certificate was refused in the TLS handshake") }
        #expect(lines.count == 1, "\(log)")
        #expect(lines.first?.contains("unable to get local issuer certificate") == true, "\(log)")
    }

    /// An expired `--tls-cert` starts the receiver (a client may skip the check) with a
    /// warning that says so and when it expired; a current one gives none.
    @Test func anExpiredServerCertificateIsWarnedOfAtStart() async throws {
        let dated = try await DatedCertificate.make(notBefore: "20200101000000Z", notAfter: "20200102000000Z")
        let (process, tls, _, _) = try await Self.start(["--tls-cert", dated.certificate, "--tls-key", dated.key])
        let insecure = try await PeerProcess.run(
            "curl",
            [
                "-sS", "-k", "--http2", "-d", "{}", "-o", "/dev/null", "-w", "%{http_code}",
                "https://127.0.0.1:\(tls)/3/device/\(SamplePush.deviceToken)",
            ])
        #expect(insecure.output == "403", "\(insecure.output) \(insecure.errorOutput)")
        process.signal(SIGTERM)
        let log = await process.wait().errorOutput
        let warnings = log.split(separator: "\n").filter { $0.contains("--tls-cert '\(dated.certificate)' expired on 2020-01-02T00:00:00") }
        #expect(warnings.count == 1 && warnings[0].contains("warning"), "\(log)")

        let (current, _, _, _) = try await Self.start()
        current.signal(SIGTERM)
        #expect(!(await current.wait().errorOutput).contains("--tls-cert"))
    }

    /// A store URL given where no argument is taken is quoted back without its password.
    @Test func aStrayURLArgumentIsQuotedWithoutItsPassword() async throws {
        let result = try await PeerProcess.run(try Self.binary(), ["postgres://sp:TopSecret1@127.0.0.1:5432/db"])
        #expect(result.status == 2)
        #expect(result.errorOutput.contains("postgres://sp:***@127.0.0.1:5432/db"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("TopSecret1"), "\(result.errorOutput)")
    }

    @Test func aServerCertificateNotYetValidIsSaidWithItsDate() {
        let problem = Receiver.certificateDatesProblem(1_000...2_000, file: "server.pem", now: 999)
        #expect(problem?.hasPrefix("--tls-cert 'server.pem' is not valid until 1970-01-01T00:16:40") == true, "\(String(describing: problem))")
        #expect(Receiver.certificateDatesProblem(1_000...2_000, file: "server.pem", now: 2_000) == nil)
        #expect(Receiver.certificateDatesProblem(1_000...2_000, file: "server.pem", now: 2_001)?.contains("expired on") == true)
    }

    @Test func sigtermLetsStreamsInFlightCompleteThenExitsZero() async throws {
        let (process, _, h2c, _) = try await Self.start()
        let connection = try await RawH2Connection.connect(port: h2c)
        try await connection.send(H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes)
        // Two requests whose bodies are still arriving when SIGTERM lands.
        let headers = SamplePush.headers(jwt: try DevProviderToken.make())
        try await connection.send([
            H2Frame.post(streamID: 1, path: SamplePush.path, extra: headers, endStream: false),
            H2Frame.post(streamID: 3, path: SamplePush.path, extra: headers, endStream: false),
        ])
        try await connection.waitForFrames { $0.contains { $0.kind == .settings && $0.flags == 1 } }
        process.signal(SIGTERM)
        let frames = try await connection.waitForFrames { $0.contains { $0.kind == .goAway } }
        let goAway = try #require(frames.first { $0.kind == .goAway })
        #expect(goAway.debugData == #"{"reason":"Shutdown"}"#)
        #expect(goAway.lastStreamID == 3)
        #expect(!connection.isClosed)

        try await connection.send([
            H2Frame.data(streamID: 1, SamplePush.payload, endStream: true),
            H2Frame.data(streamID: 3, SamplePush.payload, endStream: true),
        ])
        let answered = try await connection.waitForFrames { Set($0.filter { $0.kind == .headers }.map(\.streamID)) == [1, 3] }
        #expect(Set(answered.filter { $0.kind == .headers }.map(\.streamID)) == [1, 3])
        // ":status: 200" is HPACK static index 8 (0x88), after any table-size update (0x20…).
        #expect(answered.filter { $0.kind == .headers }.allSatisfy { $0.payload.drop { $0 & 0xE0 == 0x20 }.first == 0x88 })
        #expect(try await connection.waitForClose())
        let result = await process.wait(timeout: .seconds(10))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.timedOut)
    }

    /// SIGHUP (the terminal that started it closed) drains as SIGTERM and SIGINT do.
    @Test(arguments: [SIGTERM, SIGHUP])
    func aStopSignalWithNothingInFlightExitsZero(signal: Int32) async throws {
        let (process, tls, _, _) = try await Self.start()
        let curl = try await PeerProcess.run(
            "curl",
            [
                "-sS", "--http2", "--cacert", DevCertificates.ca, "-o", "/dev/null", "-w", "%{http_code}",
                "-d", #"{"aps":{"content-available":1}}"#, "https://localhost:\(tls)\(SamplePush.path)",
            ] + SamplePush.headerArguments(jwt: try DevProviderToken.make()))
        #expect(curl.output == "200")
        process.signal(signal)
        let result = await process.wait(timeout: .seconds(10))
        #expect(result.status == 0)
        #expect(result.errorOutput.contains("silentpushd stopped"))
    }

    #if os(Linux)
    /// jemalloc prints the options it runs with at exit when asked to (`stats_print`).
    @Test func theAllocatorRunsWithTheReceiversOptions() async throws {
        let run = try await PeerProcess.run(try Self.binary(), ["--version"], environment: ["MALLOC_CONF": "stats_print:true"])
        #expect(run.status == 0)
        #expect(run.errorOutput.contains("opt.narenas: 1"), "\(run.errorOutput.prefix(2_000))")
        #expect(run.errorOutput.contains("opt.dirty_decay_ms: 1000"))
    }
    #endif

    @Test func logsNameTheListenersAndCarryDottedKeysWithAShortToken() async throws {
        let (process, _, h2c, _) = try await Self.start(["--log-level", "debug"])
        let client = try await TestPushClient.connect(port: h2c)
        let answer = try await client.push()
        #expect(answer.status == 200)
        await client.close()
        try await Task.sleep(for: .milliseconds(200))
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(10)).errorOutput
        let start = try #require(log.split(separator: "\n").first { $0.contains("silentpushd listening") })
        for key in [
            "listen.tls=127.0.0.1:", "listen.h2c=127.0.0.1:", "listen.admin=127.0.0.1:", "device.clock=system",
            "device.min_interval=", "device.deadline=", "store=memory",
        ] {
            #expect(start.contains(key), "\(start)")
        }
        #expect(log.contains("push.apns_id=\(answer.apnsID)"))
        #expect(log.contains("device.token=\(SamplePush.deviceToken.prefix(8))…"))
        #expect(log.contains("wake.result=noData"))
        #expect(!log.contains(SamplePush.deviceToken), "a whole device token was logged")
    }

    @Test(arguments: [
        (["--listen", "nonsense"], "--listen 'nonsense' is not HOST:PORT"),
        (["--listen-h2c", "127.0.0.1:99999"], "--listen-h2c '127.0.0.1:99999' is not HOST:PORT"),
        (["--idle-timeout", "soon"], "--idle-timeout 'soon' is not a duration"),
        (["--tls-cert", "/nonexistent/server.pem"], "silentpushd: --tls-cert: cannot read '/nonexistent/server.pem' (no such file)\n"),
        (["--tls-key", "/nonexistent/key.pem"], "silentpushd: --tls-key: cannot read '/nonexistent/key.pem' (no such file)\n"),
        (["--tls-key", "/tmp"], "silentpushd: --tls-key: cannot read '/tmp' (it is a directory)\n"),
        (["--client-ca", "/nonexistent/ca.pem"], "silentpushd: --client-ca: cannot read '/nonexistent/ca.pem' (no such file)\n"),
        (["--origin-ca", "/nonexistent/ca.pem"], "silentpushd: --origin-ca: cannot read '/nonexistent/ca.pem' (no such file)\n"),
        (["--origin-ca", "/etc/hostname"], "silentpushd: cannot read a PEM certificate from '/etc/hostname' (check --origin-ca)\n"),
        // A file that never ends is refused at its limit, not read for ever.
        (
            ["--origin-ca", "/dev/zero"],
            "silentpushd: cannot read a PEM certificate from '/dev/zero': over 1048576 bytes, more than any CA file holds (check --origin-ca)\n"
        ),
        (
            ["--client-ca", "/dev/zero"],
            "silentpushd: cannot read client CA '/dev/zero': over 1048576 bytes, more than any PEM file of keys and certificates holds"
                + " (check --tls-cert, --tls-key and --client-ca)\n"
        ),
        (["--no-such-flag"], "Unknown option '--no-such-flag'"),
        (["--auth-key", "bogus"], "--auth-key 'bogus' is not KEYID:TEAMID:PATH"),
        (["--auth-key", "K1:T1:/nonexistent/AuthKey.p8"], "silentpushd: --auth-key: cannot read '/nonexistent/AuthKey.p8' (no such file)\n"),
        (["--auth-key", "K1:T1:\(DevCertificates.serverCertificate)"], "not a PEM private key (.p8) or public key"),
        (["--auth-key", "K1:T1:\(DevCertificates.authKey):staging"], "'staging' is not sandbox or production (the key's environment)"),
        (["--environment", "staging"], "--environment 'staging' is not sandbox or production"),
        (["--rate-limit", "ten"], "--rate-limit 'ten' is not N/DURATION"),
        (["--clock", "sundial"], "--clock 'sundial' is not system or manual"),
        (["--profile", "slow"], "--profile 'slow' is not ios, fast, debugger, strict, off"),
        (["--daily-budget", "lots"], "--daily-budget must be a whole number from 0 to 1000000, or none"),
        (["--battery-threshold", "101"], "--battery-threshold must be from 0 to 100 (percent)"),
        (["--activity-budget=-1"], "--activity-budget must be a whole number from 0 to 1000000, or none"),
        (["--activity-frequent-budget", "99999999999999999999"], "--activity-frequent-budget must be a whole number from 0 to 1000000, or none"),
        (["--activity-opportunistic-delay", "2d"], "--activity-opportunistic-delay '2d' is longer than 1 day(s)"),
        (["--activity-dismissal-window", "later"], "--activity-dismissal-window 'later' is not a duration"),
        (["--activity-max-active", "0s"], "--activity-max-active must be more than 0"),
        (["--transfer-limit", "0"], "--transfer-limit must be a whole number from 1 to 10000"),
        (["--transfer-retry-delay", "0s"], "--transfer-retry-delay must be more than 0"),
        (["--transfer-retry-delay", "2m", "--transfer-max-retry-delay", "1m"], "--transfer-max-retry-delay must be at least --transfer-retry-delay"),
        (["--transfer-timeout", "31d"], "--transfer-timeout '31d' is longer than 30 day(s)"),
        (["--relaunch-time", "2h"], "--relaunch-time '2h' is longer than 1 hour(s)"),
        (["--transfer-request-timeout", "0s"], "--transfer-request-timeout must be more than 0"),
        (["--task-expiration-grace", "11m"], "--task-expiration-grace '11m' is longer than 600 second(s)"),
        (["--task-termination-penalty", "8d"], "--task-termination-penalty '8d' is longer than 7 day(s)"),
        (["--channel-message-lifetime", "31d"], "--channel-message-lifetime '31d' is longer than 30 day(s)"),
        (["--processing-task-time", "0s"], "--processing-task-time must be more than 0"),
        (["--continued-task-capacity", "0"], "--continued-task-capacity must be a whole number from 1 to 64"),
        (["--overrun-factor", "17"], "--overrun-factor must be a whole number from 1 to 16"),
        (["--app-usage-factors", "4,2"], "--app-usage-factors '4,2' must be two whole numbers WEEK,OLDER from 1 to 64, OLDER at least WEEK"),
        (["--reboot-warmup", "2d"], "--reboot-warmup '2d' is longer than 1 day(s)"),
        (["--apns-storage-limit", "400d"], "--apns-storage-limit '400d' is longer than 365 day(s)"),
        (["--app-usage-threshold", "soon"], "--app-usage-threshold 'soon' is not a duration"),
        (["--min-interval", "often"], "--min-interval 'often' is not a duration"),
        (["--deadline", "0s"], "--deadline must be more than 0"),
        (["--admin", "localhost"], "--admin 'localhost' is not HOST:PORT"),
        (
            ["--store", "/proc/silentpush/store.sqlite"],
            "silentpushd: cannot open the store '/proc/silentpush/store.sqlite': cannot create the directory '/proc/silentpush' (No such file or directory) (check --store)\n"
        ),

        (["--fetch-url", "ftp://origin/{token}"], "--fetch-url: 'ftp://origin/{token}' is not an http:// or https:// URL template"),
        (["--fetch-url", "http://origin/{token"], "has a '{' with no '}'"),
        (["--fetch-url", "http://origin/", "--fetch-exec", "true"], "give --fetch-exec or --fetch-url, not both"),
        (
            ["--config", "/nonexistent/silentpushd.json"],
            "cannot read the config file '/nonexistent/silentpushd.json': No such file or directory (check --config)"
        ),
        // An option where the file belongs is no file's name; nor is a config file named in
        // another option's value.
        (["--config", "--strict"], "Missing value for '--config <file>'"),
        (["--admin-token", "--config", "/nonexistent/silentpushd.json"], "Unexpected argument '/nonexistent/silentpushd.json'"),
        // Numbers at the edges of their types: a line that says what to fix, never a trap.
        (["--deadline", "2w"], "--deadline '2w' is not a duration"),
        (["--deadline", "25h"], "--deadline '25h' is longer than 1 day(s)"),
        (["--min-interval", "9223372035s"], "--min-interval '9223372035s' is longer than 365 day(s)"),
        (["--idle-timeout", "1e300s"], "--idle-timeout '1e300s' is not a duration"),
        // Written well but past what a duration holds (292 years): too long, as a shorter one is.
        (["--retain", "107000d"], "--retain '107000d' is longer than 36500 day(s)"),
        (["--retain", "9999999999999"], "--retain '9999999999999' is longer than 36500 day(s)"),
        (["--deadline", "-1"], "--deadline '-1' is negative"),
        (["--retain", "-3d"], "--retain '-3d' is negative"),
        (["--deadline", "--clock", "manual"], "--deadline needs a duration"),
        (["--request-timeout", "2562047h"], "--request-timeout '2562047h' is longer than 1 day(s)"),
        (["--rate-limit", "10/9999999h"], "--rate-limit '10/9999999h' is not N/DURATION with DURATION at most 1 day"),
        (["--rate-limit", "99999999999999999999/1s"], "is not N/DURATION"),
        (["--max-connections", "0"], "--max-connections must be from 1 to 1000000"),
        (["--max-connections", "99999999999999999999"], "--max-connections"),
        (["--max-fetches", "9223372036854775807"], "--max-fetches must be from 1 to 100000"),
        (["--threads=-9223372036854775808"], "--threads must be from 1 to 1024"),
        (["--admin-token", "has space"], "--admin-token must be printable ASCII with no spaces"),
        // A negative number is the flag's value, answered with its range.
        (["--threads", "-5"], "--threads must be from 1 to 1024"),
        (["--transfer-limit", "-1"], "--transfer-limit must be a whole number from 1 to 10000"),
        // Values that would be read as something else, or not at all.
        (["--admin-host", "admin.example.com:2199"], "--admin-host 'admin.example.com:2199' is not a host name: give the name alone"),
        (["--cluster-name", "r1"], "--cluster-name goes with --cluster-shards: give both, or neither"),
        (["--cluster-claim-interval", "banana"], "--cluster-claim-interval goes with --cluster-shards"),
        (["--retain", "0x10d"], "--retain '0x10d' is not a duration"),
        (["--max-fetches", "abc"], "--max-fetches 'abc' is not a whole number: give 1 to 100000"),
        (["--threads", "99999999999999999999"], "--threads '99999999999999999999' is out of range: give 1 to 1024"),
        (["--max-concurrent-streams=-5"], "--max-concurrent-streams '-5' is out of range: give 1 to 4294967295"),
    ])
    func badInputStopsStartUpWithExitTwoAndOneLine(arguments: [String], message: String) async throws {
        let result = try await PeerProcess.run(
            try Self.binary(),
            [
                "--listen", "127.0.0.1:0", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--store", "memory",
                "--tls-cert", DevCertificates.serverCertificate, "--tls-key", DevCertificates.serverKey,
            ] + arguments, timeout: .seconds(20))
        #expect(result.status == 2)
        let lines = result.errorOutput.split(separator: "\n")
        #expect(lines.count == 1, "\(result.errorOutput)")
        #expect(result.errorOutput.hasPrefix("silentpushd: "))
        // A message ending in a line break is the whole line.
        #expect(message.hasSuffix("\n") ? result.errorOutput == message : result.errorOutput.contains(message), "\(result.errorOutput)")
    }

    /// A value that starts with a dash is the flag's value, answered with what the flag takes
    /// (not "Missing value"), on the command line and in a config file; a word for a choice
    /// is one line too.
    @Test(arguments: [
        (["--daily-budget", "-1"], "--daily-budget must be a whole number from 0 to 1000000, or none"),
        (["--reload-budget", "-1"], "--reload-budget must be a whole number from 0 to 1000000, or none"),
        (["--activity-budget", "-1"], "--activity-budget must be a whole number from 0 to 1000000, or none"),
        (["--retain-pushes", "-1"], "--retain-pushes must be a whole number from 1 to 1000000000, or none"),
        (["--rate-limit", "-1/1s"], "--rate-limit '-1/1s' is not N/DURATION"),
        (["--admin-token", "-has space"], "--admin-token must be printable ASCII with no spaces"),
        (["--log-level", "loud"], "--log-level 'loud' is not trace, debug, info, notice, warning, error, critical"),
    ])
    func aValueStartingWithADashIsTheFlagsOwn(arguments: [String], message: String) async throws {
        try await badInputStopsStartUpWithExitTwoAndOneLine(arguments: arguments, message: message)
    }

    /// An argument's control characters are shown escaped in the error line, not sent to the
    /// terminal (an escape sequence there recolours it, a line break splits the line).
    @Test func anArgumentsControlCharactersAreEscapedInTheErrorLine() async throws {
        try await badInputStopsStartUpWithExitTwoAndOneLine(
            arguments: ["--profile", "fa\u{1b}[31mst\nx"], message: "--profile 'fa\\u{1b}[31mst\\u{a}x' is not ios")
    }

    /// A store that reads as a URL but not a PostgreSQL one is refused, its password not
    /// shown; it is not a SQLite file to create (whose path would hold the password).
    @Test(arguments: [
        ("mysql://u:Sup3rS3cret@127.0.0.1/db", "--store 'mysql://***@127.0.0.1/db' is not a PostgreSQL URL"),
        ("redis://Sup3rS3cret@127.0.0.1", "--store 'redis://***@127.0.0.1' is not a PostgreSQL URL"),
        ("postgresql:/silentpush:Sup3rS3cret@127.0.0.1:5432/silentpush", "--store looks like a PostgreSQL URL without '//' after its scheme"),
    ])
    func aStoreURLOfAnotherKindIsRefusedWithoutItsPassword(store: String, message: String) async throws {
        let directory = try Scratch.newDirectory("store-url")
        // From a directory of its own, where a file made for the URL would show.
        let command = [
            try Self.binary(), "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", store, "--tls-cert",
            DevCertificates.serverCertificate, "--tls-key", DevCertificates.serverKey,
        ].map { "'\($0)'" }.joined(separator: " ")
        let result = try await PeerProcess.run("sh", ["-c", "cd '\(directory)' && exec \(command)"], timeout: .seconds(20))
        #expect(result.status == 2 && result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("Sup3rS3cret"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "a file was made for the URL")
    }

    @Test func aNegativeNumberInAConfigFileIsAnsweredWithItsRange() async throws {
        let path = Scratch.directory.appendingPathComponent("negative-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"dailyBudget": -1}"#.utf8).write(to: URL(fileURLWithPath: path))
        try await badInputStopsStartUpWithExitTwoAndOneLine(
            arguments: ["--config", path], message: "dailyBudget must be a whole number from 0 to 1000000, or none")
    }

    @Test func aKeyThatIsNotP256IsNamed() async throws {
        let path = Scratch.directory.appendingPathComponent("rsa-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let made = try await PeerProcess.run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", path])
        #expect(made.status == 0)
        let result = try await PeerProcess.run(
            try Self.binary(),
            ["--listen-h2c", "127.0.0.1:0", "--listen", "off", "--admin", "off", "--store", "memory", "--auth-key", "K1:T1:\(path)"],
            timeout: .seconds(20))
        #expect(result.status == 2)
        #expect(result.errorOutput == "silentpushd: key file '\(path)': not an EC P-256 key (ES256 needs one) (check --auth-key K1:T1:\(path))\n")
    }

    /// An address no interface of this host has (TEST-NET-1, RFC 5737) names the flag that
    /// gives it and says why, in words (it printed NIO's `bind(descriptor:ptr:bytes:)` error,
    /// and named no flag).
    @Test(arguments: ["--listen-h2c", "--listen-channels-h2c", "--admin"])
    func anAddressNoInterfaceHasNamesTheFlag(flag: String) async throws {
        var arguments = ["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", "memory"]
        arguments += [flag, "192.0.2.1:2197"]
        let result = try await PeerProcess.run(try Self.binary(), arguments, timeout: .seconds(20))
        #expect(result.status == 2)
        let last = result.errorOutput.split(separator: "\n").last.map(String.init)
        #expect(
            last == "silentpushd: cannot listen on 192.0.2.1:2197: no interface of this host has that address (check \(flag))",
            "\(result.errorOutput)")
    }

    /// A busy address names the flag that moves that listener; every start-up failure after
    /// the flags were read ends with one line and exit 2.
    @Test func anAddressInUseNamesTheFlag() async throws {
        let (first, tls, h2c, admin) = try await Self.start()
        defer { first.signal(SIGKILL) }
        for (arguments, flag, port) in [
            (["--listen", "127.0.0.1:\(tls)", "--listen-h2c", "off", "--admin", "off"], "--listen", tls),
            (["--listen", "off", "--listen-h2c", "127.0.0.1:\(h2c)", "--admin", "off"], "--listen-h2c", h2c),
            (["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:\(admin)"], "--admin", admin),
        ] {
            let result = try await PeerProcess.run(
                try Self.binary(),
                arguments + ["--store", "memory", "--tls-cert", DevCertificates.serverCertificate, "--tls-key", DevCertificates.serverKey],
                timeout: .seconds(20))
            #expect(result.status == 2)
            let last = result.errorOutput.split(separator: "\n").last.map(String.init)
            #expect(last == "silentpushd: address 127.0.0.1:\(port) is already in use (another silentpushd? pass \(flag))", "\(result.errorOutput)")
            // The store still closes: the service that closes it runs in a cancelled task.
            #expect(!result.errorOutput.contains("error"), "\(result.errorOutput)")
        }
    }

    @Test func aReadyFileThatCannotBeWrittenIsNamed() async throws {
        let result = try await PeerProcess.run(
            try Self.binary(),
            ["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", "memory", "--ready-file", "/nonexistent/ready.json"],
            timeout: .seconds(20))
        #expect(result.status == 2)
        let last = result.errorOutput.split(separator: "\n").last.map(String.init)
        #expect(last == "silentpushd: cannot write the ready file '/nonexistent/ready.json': No such file or directory (check --ready-file)")
    }

    /// Only a regular file at the path is replaced: a link or a pipe (or a device, such as
    /// `/dev/null` for a root user) is refused and left as it is.
    @Test func aReadyFilePathThatIsNotARegularFileIsLeftAlone() async throws {
        let directory = try Scratch.newDirectory("ready")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/target.json"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: target))
        let link = directory + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let pipe = directory + "/pipe"
        #expect(mkfifo(pipe, 0o600) == 0)
        for (path, kind) in [(link, "a symbolic link"), (pipe, "a pipe")] {
            let result = try await PeerProcess.run(
                try Self.binary(), ["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", "memory", "--ready-file", path],
                timeout: .seconds(20))
            #expect(result.status == 2)
            let last = result.errorOutput.split(separator: "\n").last.map(String.init)
            #expect(
                last
                    == "silentpushd: cannot write the ready file '\(path)': \(kind) is there, not a regular file: it is never replaced (check --ready-file)",
                "\(result.errorOutput)")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "kept")
        var status = stat()
        #expect(lstat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    /// A value from the config file is named by the file and its key, not by the flag.
    @Test func aConfigFileProblemNamesTheFileTheKeyAndThePlace() async throws {
        let directory = Scratch.directory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("garbage.p8").path
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: garbage))
        for (name, json, message) in [
            ("missing.json", #"{"tlsCert": "/nonexistent/server.pem"}"#, "tlsCert: cannot read '/nonexistent/server.pem' (no such file)"),
            // Read at start-up, after the flags: named by the file and key too, not the flag.
            (
                "garbage.json", #"{"authKeys": ["K1:T1:\#(garbage)"]}"#,
                "key file '\(garbage)': not a PEM private key (.p8) or public key (check authKeys K1:T1:\(garbage))"
            ),
            ("key.json", #"{"authKeys": ["K1:T1:/nonexistent/AuthKey.p8"]}"#, "authKeys: cannot read '/nonexistent/AuthKey.p8' (no such file)"),
            ("broken.json", "{\n  // the team's receiver\n  \"profile\": \"fast\"\n  \"clock\": \"manual\"\n}\n", nil),
        ] as [(String, String, String?)] {
            let path = directory.appendingPathComponent(name).path
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            let result = try await PeerProcess.run(
                try Self.binary(), ["--config", path, "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", "memory"],
                timeout: .seconds(20))
            #expect(result.status == 2)
            let expected = message.map { "silentpushd: \(path): \($0)\n" } ?? "silentpushd: \(path):4:3: the config file is not JSON here\n"
            #expect(result.errorOutput == expected)
        }
    }

    /// `--log-format json`: every line one JSON object, with the text format's dotted keys.
    @Test func jsonLogsAreOneObjectPerLineWithTheDottedKeys() async throws {
        let (process, _, h2c, _) = try await Self.start(["--log-format", "json", "--log-level", "debug"])
        let client = try await PeerProcess.run(
            "curl",
            [
                "-s", "-o", "/dev/null", "--http2-prior-knowledge", "-H", "authorization: bearer \(try DevProviderToken.make())",
                "-H", "apns-topic: com.example.app", "-H", "apns-push-type: background", "-H", "apns-priority: 5",
                "-d", #"{"aps":{"content-available":1}}"#, "http://127.0.0.1:\(h2c)\(SamplePush.path)",
            ])
        #expect(client.status == 0)
        try await Task.sleep(for: .milliseconds(200))
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(10)).errorOutput
        let objects = log.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(!objects.isEmpty && objects.allSatisfy { $0 != nil }, "\(log)")
        let start = try #require(objects.compactMap { $0 }.first { $0["message"] as? String == "silentpushd listening" })
        #expect(start["level"] as? String == "info" && start["label"] as? String == "silentpushd")
        #expect((start["listen.h2c"] as? String)?.hasPrefix("127.0.0.1:") == true && start["store"] as? String == "memory")
        #expect((start["time"] as? String)?.hasSuffix("Z") == true)
        let accepted = objects.compactMap { $0 }.first { $0["message"] as? String == "push accepted" }
        #expect(accepted?["device.token"] as? String == "\(SamplePush.deviceToken.prefix(8))…")
    }

    @Test func helpExitsZero() async throws {
        let result = try await PeerProcess.run(try Self.binary(), ["--help"], timeout: .seconds(20))
        #expect(result.status == 0)
        #expect(result.output.contains("--listen-h2c"))
    }

    /// `--version`: the VERSION file and the commit, written in at build by the BuildInfo plugin.
    @Test func versionNamesTheReleaseAndTheCommit() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let version = try String(contentsOf: root.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        for binary in [try Self.binary(), try #require(BuiltProducts.path(of: "pushsend"))] {
            let result = try await PeerProcess.run(binary, ["--version"], timeout: .seconds(20))
            #expect(result.status == 0)
            let name = URL(fileURLWithPath: binary).lastPathComponent
            let line = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            // A commit from .git, or "unknown" outside a checkout (a source archive).
            let pattern = try Regex("^\(name) \(version) \\(commit ([0-9a-f]{12}|unknown)\\)$")
            #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
        }
    }

    /// The config file's keys are the flags: one table (`ConfigFile.flags`) that `--help`
    /// must match both ways, so a new flag cannot be forgotten in the file, nor a key outlive
    /// its flag.
    @Test func everyFlagIsAConfigFileKeyAndEveryKeyAFlag() async throws {
        let result = try await PeerProcess.run(try Self.binary(), ["--help"], timeout: .seconds(20))
        let usage = result.output.split(separator: "\n").filter { $0.hasPrefix("  --") }
        // A boolean's `--x/--no-x` is the key `x`.
        let flags = Set(
            usage.compactMap { $0.dropFirst(2).split(separator: " ").first.map { String($0.split(separator: ",")[0].split(separator: "/")[0]) } })
        let table = Set(ConfigFile.flags.values.map(\.flag))
        #expect(flags.subtracting(["--config", "--help", "--version"]) == table)
        for (key, entry) in ConfigFile.flags {
            // camelCase of the flag, a plural key for a repeatable flag.
            let words = entry.flag.dropFirst(2).split(separator: "-")
            let camel = words.first!.lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            #expect(key.lowercased() == camel.lowercased() || key.lowercased() == camel.lowercased() + "s", "\(key) → \(entry.flag)")
        }
    }
}
