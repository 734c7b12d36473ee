import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushTransport

/// `pushsend`'s options as given, before they are checked: `configuration()` resolves them
/// (files read, key loaded, defaults filled in) or throws one line that says what to fix.
public struct PushSendOptions: ParsableArguments, Sendable {
    @Argument(
        help: ArgumentHelp(
            "The payload JSON file, or - for stdin (default: a silent push, {\"aps\":{\"content-available\":1}}).", valueName: "payload"))
    public var payloadFile: String?

    @Option(help: ArgumentHelp("The receiver: http://HOST:PORT (h2c) or https://HOST:PORT (TLS, ALPN h2).", valueName: "url"))
    public var url: String?

    @Flag(help: "Apple's development host, api.sandbox.push.apple.com.")
    public var sandbox = false

    @Flag(help: "Apple's production host, api.push.apple.com.")
    public var production = false

    @Option(help: "The port for --sandbox/--production: 443 (default) or 2197.")
    public var port: Int?

    @Option(help: ArgumentHelp("Trust this CA (PEM) for https.", valueName: "pem"))
    public var cacert: String?

    @Flag(help: "Do not verify the server's certificate.")
    public var insecure = false

    @Option(help: ArgumentHelp("The provider-token key (.p8). Also APNS_KEY.", valueName: "p8"))
    public var key: String?

    @Option(name: .customLong("key-id"), help: "The key's id. Also APNS_KEY_ID.")
    public var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your team id. Also APNS_TEAM_ID.")
    public var teamID: String?

    @Option(help: ArgumentHelp("Authenticate with this client certificate (PEM) instead of a token.", valueName: "pem"))
    public var cert: String?

    @Option(name: .customLong("cert-key"), help: ArgumentHelp("The client certificate's private key (PEM).", valueName: "pem"))
    public var certKey: String?

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp("A device token (hex). Repeatable (default for local receivers: 64 zeros, the development device).", valueName: "token"))
    public var devices: [String] = []

    @Option(name: .customLong("devices"), help: ArgumentHelp("A file of device tokens, one a line.", valueName: "file"))
    public var devicesFile: String?

    @Option(help: "apns-topic (default for local receivers: com.example.app).")
    public var topic: String?

    @Option(name: .customLong("push-type"), help: "apns-push-type (default: background for a content-available-only payload, else alert).")
    public var pushType: String?

    @Option(help: "apns-priority: 10, 5 or 1 (default: 5 for background, as APNs requires; 10 for alert).")
    public var priority: Int?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    public var collapseID: String?

    @Option(help: "apns-expiration: seconds since the epoch (0: now or never).")
    public var expiration: Int64?

    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID) for every push.")
    public var apnsID: String?

    @Option(help: "Pushes per device.")
    public var count = 1

    @Option(help: "Streams in flight per connection (kept within the server's MAX_CONCURRENT_STREAMS).")
    public var concurrency = 1

    @Option(help: "Connections.")
    public var connections = 1

    @Flag(help: "One JSON object per push instead of a line.")
    public var json = false

    @Flag(help: "No line per push: the summary alone.")
    public var quiet = false

    @Flag(help: "Print each request's and response's headers on stderr.")
    public var verbose = false

    @Flag(name: .customLong("no-validate"), help: "Send the payload even if APNs would refuse it.")
    public var noValidate = false

    /// Check the payload as APNs would before sending it (`--no-validate` turns it off).
    public var validate: Bool {
        get { !noValidate }
        set { noValidate = !newValue }
    }

    /// `APNS_KEY`, `APNS_KEY_ID`, `APNS_TEAM_ID` are read from here.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Where the development CA and key are: next to the install, in the checkout or in the
    /// working directory (nil when none has them).
    public var certificatesDirectory: String? = Platform.developmentMaterial()?.certificates
    /// Where `certificatesDirectory` was looked for, for the message when it is nil.
    package var certificatesSearched: @Sendable () -> String = { Platform.developmentMaterialSearched }
    /// The payload when `payloadFile` is `-` (stdin by default).
    public var standardInput: @Sendable () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }

    /// For `parse(_:)`: options are made from arguments (`PushSendOptions.parse(["payload.json"])`).
    public init() {}

    /// The flags; the rest is not parsed.
    private enum CodingKeys: String, CodingKey {
        case payloadFile, url, sandbox, production, port, cacert, insecure, key, keyID, teamID, cert, certKey, devices, devicesFile
        case topic, pushType, priority, collapseID, expiration, apnsID, count, concurrency, connections, json, quiet, verbose, noValidate
    }

    /// The dev receiver `make run` starts.
    public static let developmentURL = "https://localhost:2197"
    /// The dev key, team and topic in `certs/`.
    public static let developmentKeyID = "DEVKEY0001"
    public static let developmentTeamID = "DEVTEAM001"
    public static let developmentTopic = "com.example.app"
    /// The device a local push goes to when none is given.
    public static let developmentDevice = String(repeating: "0", count: 64)
    /// The payload sent when none is given: a silent push.
    public static let silentPayload = #"{"aps":{"content-available":1}}"#

    /// The checked configuration.
    public func configuration() throws -> PushSendConfiguration {
        let target = try resolveTarget()
        let local = url != nil || (!sandbox && !production)
        let payload = try readPayload()
        let devices = try readDevices(local: local)

        let topic = self.topic ?? (local ? Self.developmentTopic : nil)
        guard let topic, !topic.isEmpty else { throw PushSendError.missingOption(need: "--topic (your app's bundle id) when pushing to Apple") }
        let type: APNsPushType
        if let pushType {
            guard let parsed = APNsPushType(rawValue: pushType) else {
                throw PushSendError.invalidValue(
                    option: "--push-type", value: "'\(pushType)'", expected: "one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            type = parsed
        } else {
            let parsed = try? payload.withUnsafeBufferPointer { bytes throws(APNsReason) in try APNsPayload.parse(bytes) }
            type = parsed.map(APNsPushRequest.defaultPushType) ?? .alert
        }
        if validate, let problem = APNsPushRequest.payloadProblem(payload, pushType: type) {
            let fix = problem.hasPrefix("a background push") ? "send it with --push-type alert" : "fix the payload"
            throw PushSendError.invalidPayload(problem: problem, fix: fix)
        }
        var priorityValue: APNsPriority?
        if let priority {
            guard let parsed = APNsPriority(rawValue: priority) else {
                throw PushSendError.invalidValue(option: "--priority", value: "\(priority)", expected: "10, 5 or 1")
            }
            priorityValue = parsed
        } else {
            // APNs refuses priority 10 for background pushes; for alerts, 10 is its own default.
            priorityValue = type == .background ? .normal : type == .alert ? .high : nil
        }
        if let apnsID, !APNsHeaders.isCanonicalUUID(apnsID) {
            throw PushSendError.invalidValue(option: "--apns-id", value: "'\(apnsID)'", expected: "a UUID (8-4-4-4-12 hex digits)")
        }
        if let collapseID, collapseID.utf8.count > APNsRequestValidator.maximumCollapseIDLength {
            throw PushSendError.tooLong(option: "--collapse-id", bytes: collapseID.utf8.count, limit: APNsRequestValidator.maximumCollapseIDLength)
        }
        if let expiration, expiration < 0 {
            throw PushSendError.invalidValue(option: "--expiration", value: "\(expiration)", expected: "0 or seconds since the epoch")
        }
        guard (1...100_000_000).contains(count) else { throw PushSendError.outOfRange(option: "--count", value: count, range: 1...100_000_000) }
        guard (1...100_000).contains(concurrency) else {
            throw PushSendError.outOfRange(option: "--concurrency", value: concurrency, range: 1...100_000)
        }
        guard (1...1_000).contains(connections) else {
            throw PushSendError.outOfRange(option: "--connections", value: connections, range: 1...1_000)
        }
        guard devices.count <= 100_000_000 / count else {
            throw PushSendError.tooManyPushes(devices: devices.count, count: count, limit: 100_000_000)
        }
        if json && quiet { throw PushSendError.conflictingOptions("give --json or --quiet, not both") }

        var tls = TLSClientConfiguration(caFile: cacert, insecure: insecure)
        // A receiver on this machine has a certificate from the development CA (make run's);
        // the default target always does, another loopback URL when the CA is at hand.
        let developmentCA = certificatesDirectory.map { $0 + "/ca.pem" }
        if cacert == nil, !insecure, !sandbox, !production {
            if url == nil {
                guard let developmentCA else {
                    throw PushSendError.missingDevelopmentMaterial(what: "CA", searched: certificatesSearched(), fix: "--cacert, or --insecure")
                }
                tls.caFile = developmentCA
            } else if let developmentCA, target.scheme == "https", target.isLoopback, FileManager.default.isReadableFile(atPath: developmentCA) {
                tls.caFile = developmentCA
            }
        }
        let authentication: PushSendConfiguration.Authentication
        if cert != nil || certKey != nil {
            guard let cert else { throw PushSendError.conflictingOptions("--cert-key needs --cert") }
            guard key == nil else { throw PushSendError.conflictingOptions("give --key or --cert, not both") }
            tls.certificateFile = cert
            tls.privateKeyFile = certKey ?? cert
            authentication = .certificate
        } else {
            authentication = .token(try signer(local: local))
        }
        return PushSendConfiguration(
            target: target, tls: tls, authentication: authentication, devices: devices, payload: payload,
            request: APNsPushRequest(
                deviceToken: "", topic: topic, pushType: type, priority: priorityValue, expiration: expiration,
                collapseID: collapseID, apnsID: apnsID),
            count: count, concurrency: concurrency, connections: connections,
            output: json ? .json : quiet ? .quiet : .lines, verbose: verbose, progress: isatty(STDERR_FILENO) == 1)
    }

    func resolveTarget() throws -> APNsTarget {
        let chosen = [url != nil, sandbox, production].filter { $0 }.count
        guard chosen <= 1 else { throw PushSendError.conflictingOptions("give one of --url, --sandbox or --production") }
        if let port, !(1...65535).contains(port) { throw PushSendError.outOfRange(option: "--port", value: port, range: 1...65535) }
        if sandbox { return .sandbox(port: port ?? 443) }
        if production { return .production(port: port ?? 443) }
        if port != nil { throw PushSendError.conflictingOptions("--port goes with --sandbox or --production; put the port in --url") }
        let text = url ?? Self.developmentURL
        guard let target = APNsTarget(url: text) else {
            throw PushSendError.invalidValue(option: "--url", value: "'\(text)'", expected: "http://HOST:PORT or https://HOST:PORT")
        }
        return target
    }

    func readPayload() throws -> [UInt8] {
        guard let payloadFile else { return Array(Self.silentPayload.utf8) }
        if payloadFile == "-" { return Array(standardInput()) }
        guard let data = FileManager.default.contents(atPath: payloadFile) else {
            throw PushSendError.unreadableFile(what: "payload file", path: payloadFile)
        }
        return Array(data)
    }

    func readDevices(local: Bool) throws -> [String] {
        var tokens = devices
        if let devicesFile {
            guard let data = FileManager.default.contents(atPath: devicesFile) else {
                throw PushSendError.unreadableFile(what: "devices file", path: devicesFile)
            }
            tokens += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        if tokens.isEmpty, local { tokens = [Self.developmentDevice] }
        guard !tokens.isEmpty else { throw PushSendError.missingOption(need: "--device TOKEN or --devices FILE") }
        return tokens
    }

    func signer(local: Bool) throws -> ProviderTokenSigner {
        let developmentKey = certificatesDirectory.map { $0 + "/AuthKey_\(Self.developmentKeyID).p8" }
        if local, key == nil, environment["APNS_KEY"] == nil, developmentKey == nil {
            throw PushSendError.missingDevelopmentMaterial(
                what: "provider key", searched: certificatesSearched(), fix: "--key, --key-id and --team-id, or --cert")
        }
        let keyFile = key ?? environment["APNS_KEY"] ?? (local ? developmentKey : nil)
        let keyID = self.keyID ?? environment["APNS_KEY_ID"] ?? (key == nil && local ? Self.developmentKeyID : nil)
        let teamID = self.teamID ?? environment["APNS_TEAM_ID"] ?? (key == nil && local ? Self.developmentTeamID : nil)
        guard let keyFile else { throw PushSendError.missingOption(need: "--key AuthKey.p8 (or APNS_KEY), or --cert, to push to Apple") }
        guard let keyID, !keyID.isEmpty else { throw PushSendError.missingOption(need: "--key-id (or APNS_KEY_ID): the id of \(keyFile)") }
        guard let teamID, !teamID.isEmpty else { throw PushSendError.missingOption(need: "--team-id (or APNS_TEAM_ID): your team's id") }
        let key: ES256Key
        do {
            key = try ES256Key.load(file: keyFile)
        } catch {
            throw PushSendError.unusableKey(problem: "\(error)")
        }
        guard key.canSign else {
            throw PushSendError.unusableKey(problem: "key file '\(keyFile)' is a public key; pushsend signs with the .p8 private key")
        }
        return ProviderTokenSigner(key: key, keyID: keyID, teamID: teamID)
    }
}
