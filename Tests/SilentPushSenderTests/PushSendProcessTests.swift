import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushSender
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Synchronization
import Testing

/// The `pushsend` executable against an in-process receiver: lines, exit codes, messages.
@Suite struct PushSendProcessTests {
    static func binary() throws -> String {
        try #require(BuiltProducts.path(of: "pushsend"), "pushsend is not built: run `swift build` (make test does)")
    }

    static let payload = Repository.root + "/payloads/background.json"
    static let other = String(repeating: "ab", count: 32)

    static func run(_ arguments: [String], input: String = "") async throws -> PeerResult {
        try await PeerProcess.run(try binary(), arguments, input: Array(input.utf8), timeout: .seconds(60))
    }

    @Test func anAcceptedPushOverH2CIsOneLineAndExitZero() async throws {
        try await Receiver.withTesting { receiver in
            let result = try await Self.run(["--url", "http://127.0.0.1:\(receiver.h2cPort!)", "--device", SamplePush.deviceToken, Self.payload])
            #expect(result.status == 0, "\(result.errorOutput)")
            let line = result.output.trimmingCharacters(in: .newlines)
            #expect(line.hasPrefix("200 "))
            let apnsID = String(line.dropFirst(4))
            #expect(APNsHeaders.isCanonicalUUID(apnsID))
            #expect(try await receiver.fate(of: apnsID) == .delivered)
            #expect(try await receiver.fate(of: apnsID)?.wakeID == 1)
        }
    }

    /// Output that cannot be written (here a full disk) is an error with the system's words,
    /// not a silent exit 0, for `send` and `export` alike.
    @Test func outputThatCannotBeWrittenExitsTwoWithOneLine() async throws {
        try await Receiver.withTesting { receiver in
            let binary = try Self.binary()
            for (command, expected) in [
                (
                    "'\(binary)' --url http://127.0.0.1:\(receiver.h2cPort!) --device \(SamplePush.deviceToken) \(Self.payload)",
                    "pushsend: cannot write the output to stdout: No space left on device"
                ),
                (
                    "'\(binary)' export pushes --admin http://127.0.0.1:\(receiver.adminPort!)",
                    "pushsend: cannot write the export to stdout: No space left on device"
                ),
            ] {
                let result = try await PeerProcess.run("sh", ["-c", command + " > /dev/full"], timeout: .seconds(60))
                #expect(result.status == 2 && result.errorOutput.trimmingCharacters(in: .newlines) == expected, "\(command): \(result.errorOutput)")
            }
        }
    }

    /// A payload on standard input (`-`) that cannot be read, or that never ends, is one
    /// line and exit 2, for a push and a broadcast alike: not a trap, and not read whole.
    @Test func aPayloadOnStandardInputThatCannotBeReadOrNeverEndsExitsTwoWithOneLine() async throws {
        let binary = try Self.binary()
        let directory = Scratch.directory.path
        for (arguments, input, expected) in [
            // Open for writing only: not a descriptor to read from.
            ("--url http://127.0.0.1:9 -", "0>/dev/null", "pushsend: cannot read the payload from standard input (-): Bad file descriptor"),
            ("--url http://127.0.0.1:9 -", "< '\(directory)'", "pushsend: cannot read the payload from standard input (-): Is a directory"),
            ("--url http://127.0.0.1:9 -", "< /dev/zero", "pushsend: the payload on standard input (-) is over 65536 bytes"),
            (
                "broadcast --url http://127.0.0.1:9 --channel dHN0LXNyY2gtY2hubA== -", "0>/dev/null",
                "pushsend: cannot read the payload from standard input (-)"
            ),
        ] {
            let command = "'\(binary)' \(arguments) \(input)"
            let result = try await PeerProcess.run("sh", ["-c", command], timeout: .seconds(60))
            let lines = result.errorOutput.split(separator: "\n")
            #expect(
                result.status == 2 && lines.count == 1 && result.errorOutput.hasPrefix(expected), "\(command): \(result.status) \(result.errorOutput)"
            )
        }
    }

    /// Help and the version that cannot be written exit 2 too; `channel` with no subcommand
    /// is a usage error, not help and success.
    @Test func helpThatCannotBeWrittenAndAChannelWithoutASubcommandExitTwo() async throws {
        let binary = try Self.binary()
        for flag in ["--help", "--version"] {
            let result = try await PeerProcess.run("sh", ["-c", "'\(binary)' \(flag) > /dev/full"], timeout: .seconds(60))
            #expect(result.status == 2 && result.errorOutput == "pushsend: cannot write the output to stdout: No space left on device\n", "\(flag)")
        }
        let bare = try await Self.run(["channel"])
        #expect(bare.status == 2 && bare.errorOutput.hasPrefix("pushsend: give a subcommand: pushsend channel create"), "\(bare.errorOutput)")
    }

    @Test func goodAndBadTokensMixedGiveOneRightLineEachAndExitOne() async throws {
        try await Receiver.withTesting { receiver in
            let result = try await Self.run([
                "--url", "http://127.0.0.1:\(receiver.h2cPort!)", "--device", SamplePush.deviceToken, "--device", "abcd",
                "--device", Self.other, "--device", String(repeating: "z", count: 64), "--concurrency", "4", Self.payload,
            ])
            #expect(result.status == 1)
            let lines = result.output.split(separator: "\n")
            #expect(lines.count == 4)
            let shapes = lines.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
            #expect(shapes == ["200", "400 BadDeviceToken", "200", "400 BadDeviceToken"])
            #expect(lines.allSatisfy { APNsHeaders.isCanonicalUUID(String($0.split(separator: " ").last ?? "")) })
            #expect(result.errorOutput.contains("sent 4, accepted 2, rejected 2 (400 BadDeviceToken: 2)"), "\(result.errorOutput)")
        }
    }

    /// A GOAWAY mid-run: the push it answered counts as answered, and the pushes the server
    /// never processed (streams past its last, refused) are sent again on a new connection,
    /// as an APNs client does, instead of being reported unanswered.
    @Test(arguments: [1, 8]) func pushesAGoAwayLeftUnprocessedAreSentOnANewConnection(concurrency: Int) async throws {
        try await Receiver.withTesting { receiver in
            #expect(receiver.addFault(FaultRule(action: .goAway(.tooManyRequests, afterStreams: 2))) != nil)
            let result = try await Self.run([
                "--url", "http://127.0.0.1:\(receiver.h2cPort!)", "--device", SamplePush.deviceToken, "--count", "12",
                "--concurrency", String(concurrency), "--quiet", Self.payload,
            ])
            #expect(result.status == 1, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("sent 12, accepted "), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("unanswered"), "\(result.errorOutput)")
            if concurrency == 1 {
                // Each connection takes 2, answers the third 429 and goes away: 12 pushes, 3 in 4.
                #expect(result.errorOutput.contains("sent 12, accepted 8, rejected 4 (429 TooManyRequests: 4)"), "\(result.errorOutput)")
            }
        }
    }

    /// A connection the server closes without GOAWAY under a push: that push is unanswered
    /// (the server may have taken it), and the next ones go on a new connection.
    @Test func afterAConnectionResetTheNextPushesGoOnANewConnection() async throws {
        try await Receiver.withTesting { receiver in
            #expect(receiver.addFault(FaultRule(count: 1, action: .reset)) != nil)
            let result = try await Self.run([
                "--url", "http://127.0.0.1:\(receiver.h2cPort!)", "--device", SamplePush.deviceToken, "--count", "4", "--concurrency", "1",
                Self.payload,
            ])
            #expect(result.status == 2, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("sent 4, accepted 3, rejected 0, unanswered 1"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("first unanswered push: the connection closed"), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("check --url"), "pushes were answered: \(result.errorOutput)")
        }
    }

    /// Once a replacement connection could not be made, a slot's later pushes get that
    /// failure at once for a second (no connect, and no connect timeout, for each of them);
    /// then the next tries again.
    @Test func aSlotWhoseReplacementFailedWaitsASecondBeforeConnectingAgain() async throws {
        try await Receiver.withTesting { receiver in
            let first = try await H2ClientConnection.connect(host: "127.0.0.1", port: try #require(receiver.h2cPort), tls: nil)
            let attempts = Atomic(0)
            let slot = ConnectionSlot(first) {
                attempts.add(1, ordering: .relaxed)
                throw H2ConnectError.cannotConnect(host: "127.0.0.1", port: 1, reason: "connection refused")
            }
            for _ in 0..<3 {
                guard case .failure = await slot.replacement(for: first) else {
                    Issue.record("a replacement was made")
                    return
                }
            }
            #expect(attempts.load(ordering: .relaxed) == 1)
            try await Task.sleep(for: ConnectionSlot.retryAfter + .milliseconds(100))
            _ = await slot.replacement(for: first)
            #expect(attempts.load(ordering: .relaxed) == 2)
            await first.close()
        }
    }

    @Test func jsonLinesParse() async throws {
        try await Receiver.withTesting { receiver in
            let result = try await Self.run(
                [
                    "--url", "http://127.0.0.1:\(receiver.h2cPort!)", "--device", SamplePush.deviceToken, "--device", "abcd", "--json", "-",
                ],
                input: #"{"aps":{"content-available":1}}"#)
            #expect(result.status == 1)
            let objects = try result.output.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(objects.map { $0["status"] as? Int } == [200, 400])
            #expect(objects.map { $0["device"] as? String } == [SamplePush.deviceToken, "abcd"])
            #expect(objects[1]["reason"] as? String == "BadDeviceToken")
            #expect(objects.allSatisfy { $0["latencyMs"] is Double })
            // The development environment's apns-unique-id, which names this push alone.
            let uniqueID = try #require(objects[0]["uniqueId"] as? String, "\(objects[0])")
            #expect(uniqueID != (objects[0]["apnsId"] as? String)?.lowercased())
            #expect(try await receiver.fate(uniqueID: uniqueID) == .delivered)
        }
    }

    /// A number flag given something else says what it takes, not only that the value is
    /// invalid; exit 2, one line.
    @Test(arguments: [
        (["--priority", "abc"], "not a whole number: give 10, 5 or 1"),
        (["--expiration", "99999999999999999999"], "out of range: give 0 or seconds since the epoch"),
        (["--count", "1.5"], "not a whole number: give 1 to 100000000"),
        (["--timestamp", "1.5"], "not a whole number: give seconds since 1970"),
        (["--sandbox", "--port", "99999999999999999999"], "out of range: give 1 to 65535"),
        (["channel", "create", "--storage-policy", "x"], "not a whole number: give 0 or 1"),
        (["expect", "--device", SamplePush.deviceToken, "--wakes", "x"], "not a whole number: give 0 to 1000"),
    ])
    func aNumberFlagGivenSomethingElseSaysWhatItTakes(arguments: [String], says: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 2)
        #expect(result.errorOutput.hasSuffix(says + "\n") && result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
    }

    /// A 410's `timestamp` (when APNs confirmed the token was no longer valid) is in the
    /// JSON line, as the receiver sent it.
    @Test func aJSONLineCarriesA410sTimestamp() async throws {
        try await Receiver.withTesting({ $0.admin = ListenAddress(host: "127.0.0.1", port: 0) }) { receiver in
            let patched = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "-X", "PATCH", "-H", "content-type: application/json", "-d", #"{"unregistered": true}"#,
                    "http://127.0.0.1:\(try #require(receiver.adminPort))/v1/devices/\(SamplePush.deviceToken)",
                ])
            #expect(patched.output.contains(#""unregistered":true"#), "\(patched.output)")
            let result = try await Self.run(
                ["--url", "http://127.0.0.1:\(receiver.h2cPort!)", "--device", SamplePush.deviceToken, "--json", "-"],
                input: #"{"aps":{"content-available":1}}"#)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)")
            #expect(object["status"] as? Int == 410 && object["reason"] as? String == "Unregistered", "\(object)")
            let timestamp = try #require(object["timestamp"] as? Int64, "\(object)")
            #expect(abs(timestamp - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000, "\(object)")
        }
    }

    @Test func tlsWithTheDevCAAndWithInsecure() async throws {
        try await Receiver.withTesting { receiver in
            let port = receiver.tlsPort!
            let trusted = try await Self.run([
                "--url", "https://localhost:\(port)", "--cacert", DevCertificates.ca, "--device", SamplePush.deviceToken, Self.payload,
            ])
            #expect(trusted.status == 0, "\(trusted.errorOutput)")
            // A loopback URL keeps the development CA (certs/ in the checkout, where this runs).
            let loopback = try await Self.run(["--url", "https://localhost:\(port)", "--device", SamplePush.deviceToken, Self.payload])
            #expect(loopback.status == 0, "\(loopback.errorOutput)")
            // Another CA: the certificate does not verify, and the line says what to pass.
            let untrusted = try await Self.run([
                "--url", "https://localhost:\(port)", "--cacert", DevCertificates.clientCertificate, "--device", SamplePush.deviceToken, Self.payload,
            ])
            #expect(untrusted.status == 2)
            #expect(
                untrusted.errorOutput
                    == "pushsend: the certificate of localhost:\(port) did not verify: unable to get local issuer certificate"
                    + " (pass --cacert with the CA that signed it, e.g. certs/ca.pem for a SilentPush receiver, or --insecure to skip the check)\n",
                "\(untrusted.errorOutput)")
            let insecure = try await Self.run([
                "--url", "https://localhost:\(port)", "--insecure", "--device", SamplePush.deviceToken, Self.payload,
            ])
            #expect(insecure.status == 0, "\(insecure.errorOutput)")
        }
    }

    @Test func aClientCertificateInsteadOfAToken() async throws {
        try await Receiver.withTesting({ $0 = .testing(requireClientCertificates: true) }) { receiver in
            let result = try await Self.run([
                "--url", "https://localhost:\(receiver.tlsPort!)", "--cacert", DevCertificates.ca,
                "--cert", DevCertificates.clientCertificate, "--cert-key", DevCertificates.clientKey,
                "--device", SamplePush.deviceToken, Self.payload,
            ])
            #expect(result.status == 0, "\(result.errorOutput)")
        }
    }

    /// `--cacert`, `--cert`, `--cert-key`, `--key`, `--devices` and the payload given as pipes (`<(…)`: a
    /// secret manager's output that never touches the disk) are each read once: the
    /// certificate's topic and the TLS handshake use the one reading. A file that never ends
    /// is refused at its limit.
    @Test func aCertificateAndKeysGivenAsPipesAreEachReadOnce() async throws {
        let binary = try Self.binary()
        try await Receiver.withTesting({ $0 = .testing(requireClientCertificates: true) }) { receiver in
            let certificate = try await PeerProcess.run(
                "bash",
                [
                    "-c",
                    "exec \"$0\" --url https://localhost:\(receiver.tlsPort!) --cacert <(cat \(DevCertificates.ca))"
                        + " --cert <(cat \(DevCertificates.clientCertificate)) --cert-key <(cat \(DevCertificates.clientKey))"
                        + " --device \(SamplePush.deviceToken) \(Self.payload)",
                    binary,
                ], timeout: .seconds(60))
            #expect(certificate.status == 0, "\(certificate.errorOutput)")
            let certified = String(certificate.output.trimmingCharacters(in: .newlines).dropFirst(4))
            #expect(try await receiver.fate(of: certified) == .delivered)
        }
        try await Receiver.withTesting { receiver in
            let key = DevCertificates.directory + "/AuthKey_\(PushSendOptions.developmentKeyID).p8"
            let token = try await PeerProcess.run(
                "bash",
                [
                    "-c",
                    "exec \"$0\" --url http://127.0.0.1:\(receiver.h2cPort!) --key <(cat \(key))"
                        + " --key-id \(PushSendOptions.developmentKeyID) --team-id \(PushSendOptions.developmentTeamID)"
                        + " --topic \(SamplePush.topic) --devices <(echo \(SamplePush.deviceToken)) <(cat \(Self.payload))",
                    binary,
                ], timeout: .seconds(60))
            #expect(token.status == 0, "\(token.errorOutput)")
            let sent = String(token.output.trimmingCharacters(in: .newlines).dropFirst(4))
            #expect(try await receiver.fate(of: sent) == .delivered)
        }
        let endless = try await Self.run(["--url", "http://127.0.0.1:9", "--device", SamplePush.deviceToken, "/dev/zero"])
        #expect(endless.status == 2)
        #expect(
            endless.errorOutput == "pushsend: the payload file '/dev/zero' is over \(StandardInput.limit) bytes (is it the right file?)\n",
            "\(endless.errorOutput)")
    }

    /// A client certificate the receiver does not trust is refused after the TLS 1.3
    /// handshake, with an alert: said as that, and not sent again on new connections.
    @Test func aClientCertificateTheServerRefusesIsSaidAsSuch() async throws {
        try await Receiver.withTesting({ $0 = .testing(requireClientCertificates: true) }) { receiver in
            let other = DevCertificates.directory + "/other-client"
            let result = try await Self.run([
                "--url", "https://localhost:\(receiver.tlsPort!)", "--cacert", DevCertificates.ca,
                "--cert", other + ".pem", "--cert-key", other + "-key.pem", "--device", SamplePush.deviceToken, Self.payload,
            ])
            let said = result.output + result.errorOutput
            #expect(result.status == 2, "\(said)")
            #expect(said.contains("ended the TLS connection with an alert") && said.contains("unknown ca"), "\(said)")
            // Refused once: not sent again on new connections (the server counts each handshake).
            let scrape = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(receiver.adminPort!)/metrics"]).output
            #expect(scrape.contains("\nsilentpush_client_certificates_refused_total 1\n"), "\(scrape)")
        }
    }

    @Test func keyAndConnectionProblemsExitTwoWithOneLine() async throws {
        let rsa = Scratch.directory.appendingPathComponent("rsa-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: rsa) }
        #expect(try await PeerProcess.run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", rsa]).status == 0)
        let cases: [([String], String)] = [
            (
                ["--key", "/nonexistent/AuthKey.p8", "--key-id", "K", "--team-id", "T"],
                "pushsend: cannot read key file '/nonexistent/AuthKey.p8' (check --key)"
            ),
            (["--key", rsa, "--key-id", "K", "--team-id", "T"], "pushsend: key file '\(rsa)': not an EC P-256 key (ES256 needs one) (check --key)"),
            (["--url", "http://127.0.0.1:1"], "pushsend: cannot connect to 127.0.0.1:1"),
            (["--bogus"], "pushsend: Unknown option '--bogus'"),
            (
                ["--cert", DevCertificates.clientCertificate, "--cert-key", DevCertificates.clientKey],
                "pushsend: --cert needs TLS: give an https:// --url (the receiver's TLS port), not http://"
            ),
        ]
        for (arguments, message) in cases {
            var all = ["--device", SamplePush.deviceToken] + arguments + [Self.payload]
            if !arguments.contains("--url") { all = ["--url", "http://127.0.0.1:9"] + all }
            let result = try await Self.run(all)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errorOutput.hasPrefix(message), "\(result.errorOutput)")
            #expect(result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
            #expect(result.output.isEmpty)
        }
    }

    /// A CA to trust and trust in any certificate, together, are one of them too many.
    @Test func aCAAndInsecureTogetherAreRefused() async throws {
        let result = try await Self.run([
            "--url", "https://localhost:9", "--cacert", DevCertificates.ca, "--insecure", "--device", SamplePush.deviceToken, Self.payload,
        ])
        #expect(result.status == 2 && result.errorOutput == "pushsend: give --cacert or --insecure, not both\n", "\(result.errorOutput)")
    }

    /// A key's contents where its path belongs, on the command line or in APNS_KEY, are
    /// refused in one line that never shows them (CI logs keep stderr).
    @Test func aKeysContentsInPlaceOfItsPathAreNeverEchoed() async throws {
        let pem = try String(contentsOfFile: DevCertificates.directory + "/AuthKey_\(PushSendOptions.developmentKeyID).p8", encoding: .utf8)
        let body = try #require(pem.split(separator: "\n").dropFirst().first.map(String.init))  // a line of the key itself
        let given = try await Self.run([
            "--url", "http://127.0.0.1:9", "--device", SamplePush.deviceToken, "--key", pem, "--key-id", "K", "--team-id", "T", Self.payload,
        ])
        let fromEnvironment = try await PeerProcess.run(
            try Self.binary(), ["--url", "https://127.0.0.1:9", "--device", SamplePush.deviceToken, Self.payload],
            environment: ["APNS_KEY": pem, "APNS_KEY_ID": "K", "APNS_TEAM_ID": "T", "PATH": "/usr/bin:/bin"])
        for (result, says) in [
            (given, "pushsend: an argument holds a key's or certificate's contents"),
            (fromEnvironment, "pushsend: APNS_KEY holds the key's contents"),
        ] {
            #expect(result.status == 2)
            #expect(result.errorOutput.hasPrefix(says), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains(body) && !result.errorOutput.contains("PRIVATE KEY"), "\(result.errorOutput)")
            #expect(result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
        }
    }

    /// A key given as bare base64 (its body without the armour, or `base64 -w0` of the file) is
    /// refused without being shown, and an encrypted key is refused at once, saying so: no
    /// passphrase is asked for on the terminal or read from stdin.
    @Test func bareBase64KeysAreNotShownAndEncryptedKeysAreSaidAtOnce() async throws {
        let pem = try String(contentsOfFile: DevCertificates.directory + "/AuthKey_\(PushSendOptions.developmentKeyID).p8", encoding: .utf8)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let wholeFile = Data(pem.utf8).base64EncodedString()
        for key in [body, wholeFile] {
            let result = try await Self.run([
                "--url", "http://127.0.0.1:9", "--device", SamplePush.deviceToken, "--key", key, "--key-id", "K", "--team-id", "T", Self.payload,
            ])
            #expect(result.status == 2)
            #expect(result.errorOutput.hasPrefix("pushsend: --key holds the key's contents"), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains(String(key.prefix(24))), "\(result.errorOutput)")
        }
        let encrypted = Scratch.directory.appendingPathComponent("encrypted-\(UUID().uuidString).p8").path
        defer { try? FileManager.default.removeItem(atPath: encrypted) }
        let made = try await PeerProcess.run(
            "openssl",
            [
                "pkcs8", "-topk8", "-in", DevCertificates.directory + "/AuthKey_\(PushSendOptions.developmentKeyID).p8", "-out", encrypted,
                "-passout", "pass:s3cret",
            ])
        #expect(made.status == 0, "\(made.errorOutput)")
        for arguments in [
            ["--url", "http://127.0.0.1:9", "--key", encrypted, "--key-id", "K", "--team-id", "T"],
            ["--url", "https://127.0.0.1:9", "--cert", DevCertificates.clientCertificate, "--cert-key", encrypted],
        ] {
            // stdin holds a line a prompt would take as the passphrase.
            let result = try await PeerProcess.run(
                try Self.binary(), ["--device", SamplePush.deviceToken] + arguments + [Self.payload], input: Array("s3cret\n".utf8))
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errorOutput.contains("encrypted (passphrase-protected)"), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("pass phrase") && result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
        }
    }

    /// A server that accepts and never speaks holds a push for the answer timeout once: the
    /// push, held for the server's SETTINGS, is not sent again on new connections to wait as long.
    @Test func aSilentServerHoldsAPushForOneAnswerTimeoutNotOnePerConnection() async throws {
        let silent = try LoopbackPort.Silent()
        var options = try PushSendOptions.parse(["-"])
        options.url = "http://127.0.0.1:\(silent.port)"
        options.payloadFile = Self.payload
        options.devices = [SamplePush.deviceToken]
        options.certificatesDirectory = DevCertificates.directory
        options.environment = [:]
        options.json = true
        var configuration = try options.configuration()
        configuration.answerTimeout = .seconds(1)
        let lines = Mutex<[String]>([])
        let summary = try await PushSender(configuration, output: .init(line: { line in lines.withLock { $0.append(line) } }, message: { _ in }))
            .run()
        #expect(summary.sent == 1 && summary.accepted == 0 && summary.exitCode == 2, "\(summary)")
        #expect(silent.takeConnections() == 1, "one connection, not one per resend")
        // Its line has no status and no apns-id, and says why.
        let line = try #require(lines.withLock { $0.first })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["status"] is NSNull && object["apnsId"] is NSNull, "\(line)")
        #expect(object["error"] as? String == "the server sent nothing for 1 s", "\(line)")
    }

    @Test func oneTokenServesEveryConnectionOfARun() async throws {
        try await Receiver.withTesting { receiver in
            var options = try! PushSendOptions.parse(["-"])
            options.url = "http://127.0.0.1:\(receiver.h2cPort!)"
            options.payloadFile = Self.payload
            options.devices = [SamplePush.deviceToken, Self.other]
            options.certificatesDirectory = DevCertificates.directory
            options.environment = [:]
            options.count = 200
            options.concurrency = 10
            options.connections = 4
            options.quiet = true
            let configuration = try options.configuration()
            let summary = try await PushSender(configuration, output: .init(line: { _ in }, message: { _ in })).run()
            #expect(summary.sent == 400 && summary.accepted == 400 && summary.exitCode == 0)
            guard case .token(let signer) = configuration.authentication else { Issue.record("no token"); return }
            #expect(signer.signatureCount == 1)
        }
    }
}
