import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushTransport

/// `pushsend`'s options as given, before they are checked: `configuration()` resolves them
/// (files read, key loaded, defaults filled in) or throws one line that says what to fix.
package struct PushSendOptions: ParsableArguments, Sendable {
    @Argument(
        help: ArgumentHelp(
            "The payload JSON file, or - for stdin (default: a silent push, {\"aps\":{\"content-available\":1}}).", valueName: "payload"))
    package var payloadFile: String?

    /// Where to connect and how to authenticate (shared with `pushsend channel` and `broadcast`).
    @OptionGroup package var provider: ProviderOptions

    /// A Live Activity payload made from options (`--event` and the rest).
    @OptionGroup package var liveActivity: LiveActivityOptions

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp("A device token (hex). Repeatable (default for local receivers: 64 zeros, the development device).", valueName: "token"))
    package var devices: [String] = []

    @Option(name: .customLong("devices"), help: ArgumentHelp("A file of device tokens, one a line.", valueName: "file"))
    package var devicesFile: String?

    @Option(help: "apns-topic (default: with --cert, the certificate's bundle id; for local receivers, com.example.app).")
    package var topic: String?

    @Option(
        name: .customLong("push-type"),
        help: "apns-push-type (default: liveactivity with aps.event, widgets with content-changed, background if only content-available, else alert)."
    )
    package var pushType: String?

    // `.unconditional`: a negative number is the value, not taken for a flag, so its range
    // check names it.
    @Option(
        parsing: .unconditional,
        help: "apns-priority: 10, 5 or 1 (default: 5 for background, as Apple requires; 10 for alert and liveactivity; none for the rest).",
        transform: { try Self.wholeNumber($0, expected: "10, 5 or 1") })
    package var priority: Int?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    package var collapseID: String?

    @Option(
        parsing: .unconditional, help: "apns-expiration: seconds since the epoch (0: now or never).",
        transform: { try Self.wholeNumber($0, expected: "0 or seconds since the epoch") })
    package var expiration: Int64?

    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID) for every push.")
    package var apnsID: String?

    @Option(
        parsing: .unconditional, help: "Pushes per device (1 to 100000000).",
        transform: { try Self.wholeNumber($0, expected: "1 to 100000000") })
    package var count: Int = 1

    @Option(
        parsing: .unconditional, help: "Streams in flight per connection, 1 to 100000 (kept within the server's MAX_CONCURRENT_STREAMS).",
        transform: { try Self.wholeNumber($0, expected: "1 to 100000") })
    package var concurrency: Int = 1

    @Option(
        parsing: .unconditional, help: "Connections, 1 to 1000.", transform: { try Self.wholeNumber($0, expected: "1 to 1000") })
    package var connections: Int = 1

    @Flag(help: "One JSON object per push instead of a line.")
    package var json = false

    @Flag(help: "No line per push: the summary alone.")
    package var quiet = false

    @Flag(help: "Print each request's and response's headers on stderr.")
    package var verbose = false

    @Flag(name: .customLong("no-validate"), help: "Send the payload even if APNs would refuse it.")
    package var noValidate = false

    /// Check the payload as APNs would before sending it (`--no-validate` turns it off).
    package var validate: Bool {
        get { !noValidate }
        set { noValidate = !newValue }
    }

    // The provider's options, where the flags put them (tests set them here too).
    package var url: String? {
        get { provider.url }
        set { provider.url = newValue }
    }
    package var sandbox: Bool {
        get { provider.sandbox }
        set { provider.sandbox = newValue }
    }
    package var production: Bool {
        get { provider.production }
        set { provider.production = newValue }
    }
    package var port: Int? {
        get { provider.port }
        set { provider.port = newValue }
    }
    package var cacert: String? {
        get { provider.cacert }
        set { provider.cacert = newValue }
    }
    package var insecure: Bool {
        get { provider.insecure }
        set { provider.insecure = newValue }
    }
    package var key: String? {
        get { provider.key }
        set { provider.key = newValue }
    }
    package var keyID: String? {
        get { provider.keyID }
        set { provider.keyID = newValue }
    }
    package var teamID: String? {
        get { provider.teamID }
        set { provider.teamID = newValue }
    }
    package var cert: String? {
        get { provider.cert }
        set { provider.cert = newValue }
    }
    package var certKey: String? {
        get { provider.certKey }
        set { provider.certKey = newValue }
    }
    package var environment: [String: String] {
        get { provider.environment }
        set { provider.environment = newValue }
    }
    package var certificatesDirectory: String? {
        get { provider.certificatesDirectory }
        set { provider.certificatesDirectory = newValue }
    }
    package var certificatesSearched: @Sendable () -> String {
        get { provider.certificatesSearched }
        set { provider.certificatesSearched = newValue }
    }
    /// The payload when `payloadFile` is `-` (stdin by default).
    package var standardInput: @Sendable () throws(PushSendError) -> Data = { () throws(PushSendError) in try StandardInput.read() }

    /// For `parse(_:)`: options are made from arguments (`PushSendOptions.parse(["payload.json"])`).
    package init() {}

    /// The flags; the rest is not parsed.
    private enum CodingKeys: String, CodingKey {
        case payloadFile, provider, liveActivity, devices, devicesFile
        case topic, pushType, priority, collapseID, expiration, apnsID, count, concurrency, connections, json, quiet, verbose, noValidate
    }

    /// The dev receiver `make run` starts.
    package static let developmentURL = "https://localhost:2197"
    /// The dev key, team and topic in `certs/`.
    package static let developmentKeyID = "DEVKEY0001"
    package static let developmentTeamID = "DEVTEAM001"
    package static let developmentTopic = "com.example.app"
    /// The device a local push goes to when none is given.
    package static let developmentDevice = String(repeating: "0", count: 64)
    /// The payload sent when none is given: a silent push.
    package static let silentPayload = #"{"aps":{"content-available":1}}"#

    /// The checked configuration.
    package func configuration() throws -> PushSendConfiguration {
        let target = try provider.resolveTarget(
            development: Self.developmentURL, sandbox: .sandbox(port: port ?? 443), production: .production(port: port ?? 443))
        let local = provider.isLocal
        let activityPayload = try liveActivity.payload()
        if activityPayload != nil, payloadFile != nil {
            throw PushSendError.conflictingOptions("give a payload file or --event, not both")
        }
        let payload = try activityPayload ?? readPayload()
        let devices = try readDevices(local: local)

        if let topic = self.topic, !APNsRequestValidator.isTopicShape(topic) {
            throw PushSendError.invalidValue(
                option: "--topic", value: "'\(topic)'", expected: "a bundle id (1 to 255 visible ASCII characters, no spaces or /)")
        }
        // With a certificate and no --topic, its own bundle id (the topic APNs takes for a
        // certificate of one topic, and the app's among a universal certificate's).
        // Read here only when the topic comes from it; else `credentials` reads it, after
        // the checks before it. Either way once.
        let identity = self.topic == nil ? try provider.clientIdentity() : nil
        guard var topic = try self.topic ?? provider.certificateTopic(of: identity) ?? (local ? Self.developmentTopic : nil) else {
            throw PushSendError.missingOption(need: "--topic (your app's bundle id) when pushing to Apple")
        }
        let type: APNsPushType
        if let pushType {
            guard let parsed = APNsPushType(rawValue: pushType) else {
                throw PushSendError.invalidValue(
                    option: "--push-type", value: "'\(pushType)'", expected: "one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            if activityPayload != nil, parsed != .liveactivity {
                throw PushSendError.conflictingOptions("--event makes a Live Activity push: leave out --push-type \(pushType), or give liveactivity")
            }
            type = parsed
        } else if activityPayload != nil {
            type = .liveactivity
        } else {
            let parsed = try? payload.withUnsafeBufferPointer { bytes throws(APNsReason) in try APNsPayload.parse(bytes) }
            type = parsed.map(APNsPushRequest.defaultPushType) ?? .alert
        }
        // A push type with a topic suffix (liveactivity, widgets, voip…) goes to the bundle id
        // with it, as APNs requires; --no-validate sends the topic as given.
        if validate, let suffix = type.topicSuffix, !topic.hasSuffix(suffix) { topic += suffix }
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
            priorityValue = type == .background ? .normal : type == .alert || type == .liveactivity ? .high : nil
        }
        if let apnsID, !APNsHeaders.isCanonicalUUID(apnsID) {
            throw PushSendError.invalidValue(option: "--apns-id", value: "'\(apnsID)'", expected: "a UUID (8-4-4-4-12 hex digits)")
        }
        if let collapseID, !Self.isFieldValue(collapseID) {
            throw PushSendError.invalidValue(
                option: "--collapse-id", value: "'\(collapseID)'", expected: "an HTTP/2 header value (no control characters, no space at either end)")
        }
        if let collapseID, collapseID.utf8.count > APNsRequestValidator.maximumCollapseIDLength {
            throw PushSendError.tooLong(option: "--collapse-id", bytes: collapseID.utf8.count, limit: APNsRequestValidator.maximumCollapseIDLength)
        }
        if let expiration, expiration < 0 {
            throw PushSendError.invalidValue(option: "--expiration", value: "\(expiration)", expected: "0 or seconds since the epoch")
        }
        // Apple: a pushtotalk push is "set an expiration of 0" (delivered now or never).
        let expiration = expiration ?? (validate && type == .pushtotalk ? 0 : nil)
        guard Self.countRange.contains(count) else { throw PushSendError.outOfRange(option: "--count", value: count, range: Self.countRange) }
        guard Self.concurrencyRange.contains(concurrency) else {
            throw PushSendError.outOfRange(option: "--concurrency", value: concurrency, range: Self.concurrencyRange)
        }
        guard Self.connectionsRange.contains(connections) else {
            throw PushSendError.outOfRange(option: "--connections", value: connections, range: Self.connectionsRange)
        }
        // A run's pushes (devices × count) are bounded as one --count is.
        guard devices.count <= Self.countRange.upperBound / count else {
            throw PushSendError.tooManyPushes(devices: devices.count, count: count, limit: Self.countRange.upperBound)
        }
        if json && quiet { throw PushSendError.conflictingOptions("give --json or --quiet, not both") }

        let (tls, authentication) = try provider.credentials(for: target, local: local, identity: identity)
        return PushSendConfiguration(
            target: target, tls: tls, authentication: authentication, devices: devices, payload: payload,
            request: APNsPushRequest(
                deviceToken: "", topic: topic, pushType: type, priority: priorityValue, expiration: expiration,
                collapseID: collapseID, apnsID: apnsID),
            count: count, concurrency: concurrency, connections: connections,
            output: json ? .json : quiet ? .quiet : .lines, verbose: verbose, progress: isatty(STDERR_FILENO) == 1)
    }

    func readPayload() throws -> [UInt8] {
        guard let payloadFile else { return Array(Self.silentPayload.utf8) }
        if payloadFile == "-" { return Array(try standardInput()) }
        return try PushSendError.read("payload file", payloadFile, limit: StandardInput.limit)
    }

    /// The longest token sent: past it, the request's headers outgrow what a server takes
    /// (APNs device tokens are \(APNsRequestValidator.deviceTokenHexLength.lowerBound) to \(APNsRequestValidator.deviceTokenHexLength.upperBound) hex digits; a malformed one up to here is sent, to see
    /// APNs refuse it).
    static let longestDeviceToken = 1_000
    /// The most bytes `--devices` reads: about four million tokens.
    static let devicesFileLimit = 256 << 20
    /// The ranges `--count`, `--concurrency` and `--connections` take.
    static let countRange = 1...100_000_000
    static let concurrencyRange = 1...100_000
    static let connectionsRange = 1...1_000

    func readDevices(local: Bool) throws -> [String] {
        var tokens = devices
        if let devicesFile {
            let data = try PushSendError.read("--devices file", devicesFile, limit: Self.devicesFileLimit)
            tokens += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        if let devicesFile, tokens.count == devices.count {
            throw PushSendError.invalidValue(option: "--devices", value: "'\(devicesFile)'", expected: "a file of device tokens (it has none)")
        }
        // A token goes into the request's path: a malformed one (to see APNs refuse it) is
        // sent, but one HTTP/2 cannot carry at all, or longer than any header block takes, is
        // refused here, naming it (control characters escaped, so the message stays one line).
        if let (index, bad) = tokens.enumerated().first(where: { _, token in
            token.utf8.count > Self.longestDeviceToken || !token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        }) {
            let fromFile = index >= devices.count
            let shown =
                bad.unicodeScalars.prefix(80).map { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F ? String($0) : $0.escaped(asASCII: true) }
                .joined() + (bad.unicodeScalars.count > 80 ? "…" : "")
            let expected =
                bad.utf8.count > Self.longestDeviceToken
                ? "a device token: it has \(bad.utf8.count) characters (APNs device tokens are \(APNsRequestValidator.deviceTokenHexLength.lowerBound) to \(APNsRequestValidator.deviceTokenHexLength.upperBound) hex digits; a malformed one of up to \(Self.longestDeviceToken) is sent, to see it refused)"
                : "one a device can have (visible ASCII, no spaces\(fromFile ? ": put a comment on a line of its own" : ""))"
            throw PushSendError.invalidValue(option: "device token", value: "'\(shown)'\(fromFile ? " in --devices" : "")", expected: expected)
        }
        if tokens.isEmpty, local { tokens = [Self.developmentDevice] }
        guard !tokens.isEmpty else { throw PushSendError.missingOption(need: "--device TOKEN or --devices FILE") }
        return tokens
    }

    /// Whether `text` can be sent as an HTTP/2 field value (RFC 9113 §8.2.1): no control
    /// characters, and no space or tab at either end; not empty.
    static func isFieldValue(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, let last = bytes.last else { return false }
        return first != 0x20 && first != 0x09 && last != 0x20 && last != 0x09 && bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }

}
