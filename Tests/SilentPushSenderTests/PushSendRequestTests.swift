import Foundation
import SilentPushCore
import SilentPushSender
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// What pushsend would send, built and checked with no network.
@Suite struct PushSendRequestTests {
    static func options(_ change: (inout PushSendOptions) -> Void) throws -> PushSendOptions {
        var options = try PushSendOptions.parse(["-"])
        options.payloadFile = Scratch.directory.appendingPathComponent("payload-\(UUID().uuidString).json").path
        _ = FileManager.default.createFile(atPath: options.payloadFile!, contents: Data(#"{"aps":{"content-available":1}}"#.utf8))
        options.devices = [SamplePush.deviceToken]
        options.environment = [:]
        options.certificatesDirectory = DevCertificates.directory
        change(&options)
        return options
    }

    /// A certificate in DER (a `.cer`) or PKCS#12 (a `.p12`) is refused with the command that
    /// converts it, not OpenSSL's chain of errors or "holds no private key".
    @Test func aBinaryCertificateIsToldHowToConvertIt() throws {
        let pem = try String(contentsOfFile: DevCertificates.clientCertificate, encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = Scratch.directory.appendingPathComponent("push-\(UUID().uuidString).cer")
        try #require(Data(base64Encoded: base64)).write(to: der)
        let options = try Self.options {
            $0.url = "https://127.0.0.1:2197"
            $0.cert = der.path
        }
        #expect {
            try options.configuration()
        } throws: { error in
            let line = "\(error)"
            return line.contains("--cert '\(der.path)' is not PEM (the file is binary")
                && line.contains("openssl x509 -inform der -in FILE -out cert.pem") && !line.contains("holds no private key")
        }
    }

    /// With `--cert` and no `--topic`, the topic is the certificate's bundle id (its subject
    /// UID), to Apple as locally; a `--topic` given is sent as given.
    @Test func aCertificatesBundleIDIsTheDefaultTopic() throws {
        let apple = try Self.options {
            $0.sandbox = true
            $0.cert = DevCertificates.intermediateClientCertificate
            $0.certKey = DevCertificates.clientKey
        }.configuration()
        #expect(apple.request.topic == "com.example.app")
        #expect(apple.request.headers(providerToken: nil).contains { $0.name == "apns-topic" && $0.value == "com.example.app" })
        let told = try Self.options {
            $0.sandbox = true
            $0.topic = "com.example.other"
            $0.cert = DevCertificates.clientCertificate
            $0.certKey = DevCertificates.clientKey
        }.configuration()
        #expect(told.request.topic == "com.example.other")
    }

    @Test func aLocalPushNeedsNoPayloadAndNoDevice() throws {
        var options = try PushSendOptions.parse([])
        options.environment = [:]
        options.certificatesDirectory = DevCertificates.directory
        let configuration = try options.configuration()
        #expect(configuration.payload == Array(#"{"aps":{"content-available":1}}"#.utf8))
        #expect(configuration.devices == [PushSendOptions.developmentDevice])
        #expect(configuration.request.pushType == .background && configuration.request.priority == .normal)
        #expect(configuration.tls.caFile == DevCertificates.directory + "/ca.pem")
    }

    @Test func withoutTheDevelopmentMaterialTheMessageNamesTheFlags() throws {
        var options = try PushSendOptions.parse([])
        options.environment = [:]
        options.certificatesDirectory = nil
        options.certificatesSearched = { "looked in /opt/x/share/silentpush/certs and /tmp/certs" }
        let noCA = PushSendError.missingDevelopmentMaterial(
            what: "CA", searched: "looked in /opt/x/share/silentpush/certs and /tmp/certs", fix: "--cacert, or --insecure")
        #expect(throws: noCA) { try options.configuration() }
        #expect(
            noCA.description
                == "the development CA was not found (looked in /opt/x/share/silentpush/certs and /tmp/certs): pass --cacert, or --insecure")
        options.insecure = true
        #expect(
            throws: PushSendError.missingDevelopmentMaterial(
                what: "provider key", searched: "looked in /opt/x/share/silentpush/certs and /tmp/certs",
                fix: "--key, --key-id and --team-id, or --cert")
        ) {
            try options.configuration()
        }
        options.key = DevCertificates.authKey
        options.keyID = "K"
        options.teamID = "T"
        #expect(try options.configuration().tls.insecure)
    }

    @Test(
        arguments: [
            (false, nil, "api.sandbox.push.apple.com", 443, "api.sandbox.push.apple.com"),
            (false, 2197, "api.sandbox.push.apple.com", 2197, "api.sandbox.push.apple.com:2197"),
            (true, nil, "api.push.apple.com", 443, "api.push.apple.com"),
            (true, 2197, "api.push.apple.com", 2197, "api.push.apple.com:2197"),
        ] as [(Bool, Int?, String, Int, String)])
    func applesHostsAndTheRequestForThem(production: Bool, port: Int?, host: String, expectedPort: Int, authority: String) throws {
        let configuration = try Self.options {
            if production { $0.production = true } else { $0.sandbox = true }
            $0.port = port
            $0.key = DevCertificates.authKey
            $0.keyID = "ABC123DEFG"
            $0.teamID = "TEAM456"
            $0.topic = "com.example.news"
            $0.priority = 5
            $0.expiration = 0
            $0.collapseID = "scores"
        }.configuration()
        #expect(configuration.target == APNsTarget(scheme: "https", host: host, port: expectedPort))
        #expect(configuration.target.authority == authority)
        #expect(configuration.tls.caFile == nil)  // the system's trust store, for Apple
        var request = configuration.request
        request.deviceToken = SamplePush.deviceToken
        #expect(request.path == "/3/device/\(SamplePush.deviceToken)")
        guard case .token(let signer) = configuration.authentication else { Issue.record("no token"); return }
        let jwt = try signer.token()
        let headers = request.headers(providerToken: jwt)
        #expect(headers.map(\.name) == ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id"])
        #expect(headers.map(\.value).dropFirst().elementsEqual(["com.example.news", "background", "5", "0", "scores"]))

        // The token is what APNs verifies: ES256 over header.claims with the key, kid and iss given.
        let token = try ProviderToken.parse(Substring(jwt))
        #expect(token.keyID == "ABC123DEFG" && token.teamID == "TEAM456")
        #expect(abs(token.issuedAt - Int64(Date().timeIntervalSince1970)) < 60)
        #expect(try ES256Key.load(file: DevCertificates.authKey).verify(signature: token.signature, message: token.signingInput))
    }

    @Test func theDefaultsTargetTheMakeRunReceiverWithTheDevKeyAndCA() throws {
        let configuration = try Self.options { _ in }.configuration()
        #expect(configuration.target == APNsTarget(scheme: "https", host: "localhost", port: 2197))
        #expect(configuration.tls.caFile == DevCertificates.directory + "/ca.pem")
        #expect(configuration.request.topic == "com.example.app")
        #expect(configuration.request.pushType == .background)
        #expect(configuration.request.priority == .normal)
        guard case .token(let signer) = configuration.authentication else { Issue.record("no token"); return }
        #expect(signer.keyID == "DEVKEY0001" && signer.teamID == "DEVTEAM001")
    }

    /// APNs wants priority 5 for a background push (it refuses 10) and takes 10 for an alert:
    /// those are the defaults; a priority given is sent as given.
    @Test(
        arguments: [
            (#"{"aps":{"content-available":1}}"#, nil, APNsPushType.background, APNsPriority?.some(.normal)),
            (#"{"aps":{"alert":"hi"}}"#, nil, .alert, .high),
            (#"{"aps":{"content-available":1}}"#, 10, .background, .high),
            (#"{"aps":{"alert":"hi"}}"#, 1, .alert, .low),
        ] as [(String, Int?, APNsPushType, APNsPriority?)])
    func thePriorityFollowsThePushType(payload: String, priority: Int?, type: APNsPushType, expected: APNsPriority?) throws {
        let configuration = try Self.options {
            _ = FileManager.default.createFile(atPath: $0.payloadFile!, contents: Data(payload.utf8))
            $0.priority = priority
        }.configuration()
        #expect(configuration.request.pushType == type)
        #expect(configuration.request.priority == expected)
    }

    /// With no --push-type, the payload says it (a Live Activity's `event`, a widget's
    /// `content-changed`), and a push type with a topic suffix gets it on the topic, as APNs
    /// requires; --event with another push type is refused.
    @Test(
        arguments: [
            ("liveactivity-update.json", nil, APNsPushType.liveactivity, "com.example.app.push-type.liveactivity"),
            ("widgets.json", nil, .widgets, "com.example.app.push-type.widgets"),
            ("widgets.json", "controls", .controls, "com.example.app.push-type.controls"),
            ("liveactivity-update.json", "liveactivity", .liveactivity, "com.example.app.push-type.liveactivity"),
            ("background.json", nil, .background, "com.example.app"),
            ("invalid-background-with-alert.json", nil, .alert, "com.example.app"),
        ] as [(String, String?, APNsPushType, String)])
    func theSamplePayloadsGoAsTheirPushTypeToItsTopic(file: String, pushType: String?, type: APNsPushType, topic: String) throws {
        let configuration = try Self.options {
            $0.payloadFile = Repository.root + "/payloads/" + file
            $0.pushType = pushType
            $0.topic = "com.example.app"
        }.configuration()
        #expect(configuration.request.pushType == type)
        #expect(configuration.request.topic == topic)
    }

    /// A server certificate that did not verify gets the advice its cause needs: the right CA
    /// does not help a certificate issued for another name, or one past its dates.
    @Test func anUntrustedServerGetsTheAdviceItsCauseNeeds() {
        #expect(
            PushSendError.untrustedServer(problem: "the certificate did not verify: hostname mismatch").description.contains(
                "not for the host in --url"))
        #expect(PushSendError.untrustedServer(problem: "the certificate did not verify: certificate has expired").description.contains("renew it"))
        #expect(
            PushSendError.untrustedServer(problem: "the certificate did not verify: unable to get local issuer certificate").description.contains(
                "pass --cacert"))
    }

    /// A device token longer than any header block takes, or with a control character, is
    /// refused in one line that escapes it and says what a token is.
    @Test func aTokenNoServerCouldTakeIsRefusedInOneLine() throws {
        for token in [String(repeating: "0", count: 3_000), "01\n23"] {
            let options = try Self.options { $0.devices = [token] }
            let error = #expect(throws: PushSendError.self) { try options.configuration() }
            let said = error.map { "\($0)" } ?? ""
            #expect(said.hasPrefix("device token '") && !said.contains("\n") && said.count < 300, "\(said)")
        }
    }

    /// A CA given for a cleartext URL would go unused: it is refused, saying why.
    @Test func aCAForACleartextURLIsRefused() throws {
        let options = try Self.options {
            $0.provider.url = "http://127.0.0.1:2198"
            $0.provider.cacert = DevCertificates.ca
        }
        #expect(throws: PushSendError.conflictingOptions("--cacert needs TLS: give an https:// --url (the receiver's TLS port), not http://")) {
            try options.configuration()
        }
    }

    /// A file that cannot be read is said with why, in the system's words from the one
    /// attempt to read it: missing, a directory.
    @Test func anUnreadableFileSaysWhy() throws {
        let missing = try Self.options { $0.payloadFile = "/nonexistent.json" }
        #expect {
            try missing.configuration()
        } throws: { "\($0)" == "cannot read the payload file '/nonexistent.json': No such file or directory" }
        let directory = try Self.options { $0.devicesFile = "/" }
        #expect {
            try directory.configuration()
        } throws: { "\($0)" == "cannot read the --devices file '/': Is a directory" }
    }

    /// A variable set to nothing (`APNS_KEY_ID=` in a CI file) is not given: a local push
    /// still signs with the development key.
    @Test func anEmptyEnvironmentVariableIsNotGiven() throws {
        var options = try PushSendOptions.parse([])
        options.environment = ["APNS_KEY": "", "APNS_KEY_ID": "", "APNS_TEAM_ID": ""]
        options.certificatesDirectory = DevCertificates.directory
        guard case .token(let signer) = try options.configuration().authentication else {
            Issue.record("a local push signs a provider token")
            return
        }
        #expect(signer.keyID == PushSendOptions.developmentKeyID)
    }

    /// A key of the user's in APNS_KEY, pushing to a local receiver, needs its own id and
    /// team, as with --key: the dev key's are not put in its token.
    @Test func aKeyFromTheEnvironmentNeedsItsOwnIdAndTeam() throws {
        var options = try PushSendOptions.parse([])
        options.certificatesDirectory = DevCertificates.directory
        options.environment = ["APNS_KEY": "/keys/other.p8"]
        #expect { try options.configuration() } throws: { "\($0)".contains("--key-id (or APNS_KEY_ID): the id of /keys/other.p8") }
        options.environment = ["APNS_KEY": "/keys/other.p8", "APNS_KEY_ID": "K"]
        #expect { try options.configuration() } throws: { "\($0)".contains("--team-id (or APNS_TEAM_ID)") }
    }

    /// A key or team id no server can take (a line end read from a file, a 100,000-character
    /// id whose header block no server reads) is refused before anything is sent, naming
    /// where it came from; it had been sent, and answered 403 or a reset stream.
    @Test func anIdNoServerTakesIsRefusedNamingWhereItCameFrom() throws {
        var options = try PushSendOptions.parse([])
        options.certificatesDirectory = DevCertificates.directory
        let key = DevCertificates.directory + "/AuthKey_DEVKEY0001.p8"
        for (environment, source) in [
            (["APNS_KEY": key, "APNS_KEY_ID": "ABC123\n", "APNS_TEAM_ID": "T"], "APNS_KEY_ID"),
            (["APNS_KEY": key, "APNS_KEY_ID": "ABC123", "APNS_TEAM_ID": "TEAM ONE"], "APNS_TEAM_ID"),
            (["APNS_KEY": key, "APNS_KEY_ID": String(repeating: "K", count: 100_000), "APNS_TEAM_ID": "T"], "APNS_KEY_ID"),
        ] {
            options.environment = environment
            #expect { try options.configuration() } throws: { "\($0)".hasPrefix("\(source) '") && "\($0)".contains("is not an id as Apple shows it") }
        }
        options.environment = ["APNS_KEY": key, "APNS_KEY_ID": "ABC123DEFG", "APNS_TEAM_ID": "TEAM123456"]
        #expect(throws: Never.self) { try options.configuration() }
    }

    /// A payload that is not a JSON object says what it is instead, or where reading stopped.
    @Test(arguments: [
        (#"{"aps":{"content-available":1},}"#, "it is not JSON: reading stopped at byte 31"),
        ("\u{FEFF}" + #"{"aps":{"content-available":1}}"#, "it starts with a UTF-8 byte order mark: save it without one"),
        (#"[{"aps":{"content-available":1}}]"#, "it is a JSON array"),
        (#""hello""#, "it is a JSON string"),
    ])
    func aPayloadThatIsNotAnObjectSaysWhy(payload: String, why: String) {
        let problem = APNsPushRequest.payloadProblem(Array(payload.utf8), pushType: .background)
        #expect(problem?.hasPrefix("the payload is not a JSON object (") == true && problem?.contains(why) == true, "\(String(describing: problem))")
    }

    /// A pushtotalk push goes with `apns-expiration: 0`, as Apple asks, unless told otherwise.
    @Test func aPushToTalkPushExpiresAtOnceUnlessTold() throws {
        let ptt = try Self.options { $0.pushType = "pushtotalk" }.configuration()
        #expect(ptt.request.expiration == 0 && ptt.request.topic.hasSuffix(".voip-ptt"))
        let told = try Self.options {
            $0.pushType = "pushtotalk"
            $0.expiration = 1_900_000_000
        }.configuration()
        #expect(told.request.expiration == 1_900_000_000)
        #expect(try Self.options { $0.pushType = "alert" }.configuration().request.expiration == nil)
    }

    /// A key that cannot be used is blamed on where it came from: APNS_KEY, or --key.
    @Test func anUnusableKeyNamesWhereItCameFrom() throws {
        var fromEnvironment = try PushSendOptions.parse(["--sandbox", "--topic", "com.example.app", "--device", String(repeating: "ab", count: 32)])
        fromEnvironment.environment = ["APNS_KEY": "/nonexistent.p8", "APNS_KEY_ID": "K", "APNS_TEAM_ID": "T"]
        #expect { try fromEnvironment.configuration() } throws: { "\($0)".hasSuffix("(check APNS_KEY)") }
        var fromFlag = fromEnvironment
        fromFlag.key = "/nonexistent.p8"
        #expect { try fromFlag.configuration() } throws: { "\($0)".hasSuffix("(check --key)") }
    }

    @Test func eventWithAnotherPushTypeIsRefused() throws {
        let options = try Self.options {
            $0.payloadFile = nil
            $0.liveActivity.event = "update"
            $0.pushType = "alert"
        }
        #expect(throws: PushSendError.conflictingOptions("--event makes a Live Activity push: leave out --push-type alert, or give liveactivity")) {
            try options.configuration()
        }
    }

    /// A receiver on this machine is trusted through the development CA unless a CA is given;
    /// any other host through the system's trust store.
    @Test(
        arguments: [
            ("https://localhost:4443", nil, false, DevCertificates.directory + "/ca.pem"),
            ("https://127.0.0.1:2197", nil, false, DevCertificates.directory + "/ca.pem"),
            ("https://[::1]:2197", nil, false, DevCertificates.directory + "/ca.pem"),
            ("https://localhost:4443", "/etc/ssl/mine.pem", false, "/etc/ssl/mine.pem"),
            ("https://localhost:4443", nil, true, nil),
            ("https://staging.example.com:2197", nil, false, nil),
        ] as [(String, String?, Bool, String?)])
    func loopbackTargetsKeepTheDevelopmentCA(url: String, cacert: String?, insecure: Bool, expected: String?) throws {
        let configuration = try Self.options {
            $0.url = url
            $0.cacert = cacert
            $0.insecure = insecure
        }.configuration()
        #expect(configuration.tls.caFile == expected)
    }

    @Test func aTokenIsReusedForFiftyMinutesThenSignedAgain() throws {
        final class Clock: @unchecked Sendable { var now: Int64 = 1_800_000_000 }
        let clock = Clock()
        let signer = ProviderTokenSigner(
            key: try ES256Key.load(file: DevCertificates.authKey), keyID: "K", teamID: "T", now: { clock.now })
        let first = try signer.token()
        for _ in 0..<1000 { #expect(try signer.token() == first) }
        clock.now += 49 * 60 + 59
        #expect(try signer.token() == first)
        clock.now += 1
        #expect(try signer.token() != first)
        #expect(signer.signatureCount == 2)
    }

    enum BadOption: CaseIterable, Sendable {
        case twoTargets, appleWithoutTopic, appleWithoutKey, badURL, noDevice, badPriority, badPushType, badAPNsID
        case missingPayload, missingKey, certKeyWithoutCert
        case hugeCount, countTimesDevicesOverflows, negativeConcurrency, hugeConnections
        case emptyDevicesFile, tokenWithASpace, topicWithATrailingSpace, emptyTopic, collapseIDWithANewline, certWithoutItsKey, urlWithAPassword,
            urlWithAToken, missingCert

        func apply(_ o: inout PushSendOptions) {
            switch self {
            case .twoTargets: o.sandbox = true; o.production = true
            case .appleWithoutTopic: o.sandbox = true
            case .appleWithoutKey: o.sandbox = true; o.topic = "t"
            case .badURL: o.url = "ftp://x"
            case .noDevice: o.devices = []; o.sandbox = true  // a local receiver has a default device
            case .badPriority: o.priority = 7
            case .badPushType: o.pushType = "silent"
            case .badAPNsID: o.apnsID = "123"
            case .missingPayload: o.payloadFile = "/nonexistent.json"
            case .missingKey: o.key = "/nonexistent.p8"; o.keyID = "K"; o.teamID = "T"
            case .certKeyWithoutCert: o.certKey = "k.pem"
            case .hugeCount: o.count = Int.max
            case .countTimesDevicesOverflows: o.count = 100_000_000; o.devices = [SamplePush.deviceToken, SamplePush.deviceToken]
            case .negativeConcurrency: o.concurrency = Int.min
            case .hugeConnections: o.connections = Int.max
            case .emptyDevicesFile:
                o.devices = []
                o.devicesFile = Scratch.directory.appendingPathComponent("devices-\(UUID().uuidString)").path
                _ = FileManager.default.createFile(atPath: o.devicesFile!, contents: Data("# none yet\n\n".utf8))
            case .tokenWithASpace: o.devices = [SamplePush.deviceToken + " # mine"]
            case .topicWithATrailingSpace: o.topic = "com.example.app "
            case .emptyTopic: o.topic = ""
            case .collapseIDWithANewline: o.collapseID = "a\nb"
            case .certWithoutItsKey: o.cert = DevCertificates.directory + "/client.pem"
            case .missingCert:  // to Apple without --topic: the certificate's problem, not the topic's, is said
                o.sandbox = true
                o.cert = "/nonexistent/push.pem"
            case .urlWithAPassword: o.url = "https://user:s3cret@127.0.0.1:2197/x"
            case .urlWithAToken: o.url = "https://s3cret@127.0.0.1:2197/x"
            }
        }

        var message: String {
            switch self {
            case .twoTargets: "give one of --url, --sandbox or --production"
            case .appleWithoutTopic: "give --topic"
            case .appleWithoutKey: "give --key AuthKey.p8"
            case .badURL: "--url 'ftp://x' is not http://HOST:PORT"
            case .noDevice: "give --device TOKEN or --devices FILE"
            case .badPriority: "--priority 7 is not 10, 5 or 1"
            case .badPushType: "--push-type 'silent' is not one of"
            case .badAPNsID: "--apns-id '123' is not a UUID"
            case .missingPayload: "cannot read the payload file '/nonexistent.json'"
            case .missingKey: "cannot read key file '/nonexistent.p8' (check --key)"
            case .certKeyWithoutCert: "--cert-key needs --cert"
            case .hugeCount: "--count must be from 1 to 100000000"
            case .countTimesDevicesOverflows: "2 devices × --count 100000000 is more than 100000000 pushes in one run"
            case .negativeConcurrency: "--concurrency must be from 1 to 100000"
            case .hugeConnections: "--connections must be from 1 to 1000"
            case .emptyDevicesFile: "is not a file of device tokens (it has none)"
            case .tokenWithASpace: "is not one a device can have (visible ASCII, no spaces"
            case .topicWithATrailingSpace: "--topic 'com.example.app ' is not a bundle id"
            case .emptyTopic: "--topic '' is not a bundle id"
            case .collapseIDWithANewline: "--collapse-id 'a\nb' is not an HTTP/2 header value"
            case .certWithoutItsKey: "client.pem' holds no private key: give --cert-key PEM"
            case .missingCert: "cannot read the --cert file '/nonexistent/push.pem'"
            case .urlWithAPassword, .urlWithAToken: "--url 'https://***@127.0.0.1:2197/x' is not"
            }
        }

        /// Whether `error` is the typed case this option should give.
        func isExpected(_ error: PushSendError) -> Bool {
            switch (self, error) {
            case (.twoTargets, .conflictingOptions), (.certKeyWithoutCert, .conflictingOptions): true
            case (.appleWithoutTopic, .missingOption), (.appleWithoutKey, .missingOption), (.noDevice, .missingOption): true
            case (.badURL, .invalidValue(option: "--url", _, _)), (.badPriority, .invalidValue(option: "--priority", _, _)): true
            case (.badPushType, .invalidValue(option: "--push-type", _, _)), (.badAPNsID, .invalidValue(option: "--apns-id", _, _)): true
            case (.missingPayload, .unreadableFile(what: "payload file", path: "/nonexistent.json", _)): true
            case (.missingKey, .unusableKey): true
            case (.hugeCount, .outOfRange(option: "--count", value: Int.max, range: 1...100_000_000)): true
            case (.countTimesDevicesOverflows, .tooManyPushes(devices: 2, count: 100_000_000, limit: 100_000_000)): true
            case (.negativeConcurrency, .outOfRange(option: "--concurrency", value: Int.min, _)): true
            case (.hugeConnections, .outOfRange(option: "--connections", value: Int.max, _)): true
            case (.emptyDevicesFile, .invalidValue(option: "--devices", _, _)), (.tokenWithASpace, .invalidValue(option: "device token", _, _)): true
            case (.topicWithATrailingSpace, .invalidValue(option: "--topic", _, _)), (.emptyTopic, .invalidValue(option: "--topic", _, _)): true
            case (.collapseIDWithANewline, .invalidValue(option: "--collapse-id", _, _)), (.certWithoutItsKey, .conflictingOptions): true
            case (.missingCert, .unreadableFile(what: "--cert file", path: "/nonexistent/push.pem", _)): true
            case (.urlWithAPassword, .invalidValue(option: "--url", _, _)), (.urlWithAToken, .invalidValue(option: "--url", _, _)):
                !error.description.contains("s3cret")
            default: false
            }
        }
    }

    /// A negative number is read as the option's value, so its range is what the line names
    /// (not "missing value", as a flag would have it).
    @Test(arguments: ["--count", "--concurrency", "--connections", "--priority", "--expiration"])
    func aNegativeNumberIsTheValue(option: String) throws {
        let parsed = try PushSendOptions.parse([option, "-1"])
        let options = try Self.options {
            $0.count = parsed.count
            $0.concurrency = parsed.concurrency
            $0.connections = parsed.connections
            $0.priority = parsed.priority
            $0.expiration = parsed.expiration
        }
        #expect {
            try options.configuration()
        } throws: { error in
            "\(error)".hasPrefix(option + " ") && "\(error)".contains("-1")
        }
    }

    @Test(arguments: BadOption.allCases)
    func badOptionsAreNamed(option: BadOption) {
        #expect {
            _ = try Self.options(option.apply).configuration()
        } throws: { error in
            guard let error = error as? PushSendError else { return false }
            return error.description.contains(option.message) && option.isExpected(error)
        }
    }

    @Test(arguments: [
        ("not json", "the payload is not a JSON object"),
        (
            #"{"aps":{"alert":"hi","content-available":1}}"#,
            "a background push must not carry an alert, badge or sound (send it with --push-type alert, or send it anyway with --no-validate)"
        ),
        (
            #"{"aps":{"content-available":1},"x":""# + String(repeating: "a", count: 4100) + #""}"#,
            "the payload is 4138 bytes; APNs takes at most 4096 for a background push"
        ),
    ])
    func aPayloadAPNsWouldRefuseIsStoppedUnlessToldOtherwise(payload: String, message: String) throws {
        let options = try Self.options {
            _ = FileManager.default.createFile(atPath: $0.payloadFile!, contents: Data(payload.utf8))
            $0.pushType = "background"
        }
        #expect {
            _ = try options.configuration()
        } throws: { error in
            (error as? PushSendError)?.description.contains(message) == true
        }
        var anyway = options
        anyway.validate = false
        #expect(try anyway.configuration().payload == Array(payload.utf8))
    }
}
