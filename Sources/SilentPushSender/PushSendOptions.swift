import Foundation
import SilentPushCore
import SilentPushTransport

/// `pushsend`'s options as given, before they are checked: `configuration()` resolves them
/// (files read, key loaded, defaults filled in) or throws one line that says what to fix.
public struct PushSendOptions: Sendable {
    public var payloadFile = "-"
    public var url: String?
    public var sandbox = false
    public var production = false
    public var port: Int?
    public var cacert: String?
    public var insecure = false
    public var key: String?
    public var keyID: String?
    public var teamID: String?
    public var cert: String?
    public var certKey: String?
    public var devices: [String] = []
    public var devicesFile: String?
    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    public var collapseID: String?
    public var expiration: Int64?
    public var apnsID: String?
    public var count = 1
    public var concurrency = 1
    public var connections = 1
    public var json = false
    public var quiet = false
    public var verbose = false
    public var validate = true
    /// `APNS_KEY`, `APNS_KEY_ID`, `APNS_TEAM_ID` are read from here.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Where the dev material of `make run` lives (`certs/` of the checkout).
    public var certificatesDirectory = "certs"
    /// The payload when `payloadFile` is `-` (stdin by default).
    public var standardInput: @Sendable () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }

    /// Options with every default.
    public init() {}

    /// The dev receiver `make run` starts.
    public static let developmentURL = "https://localhost:2197"
    /// The dev key, team and topic in `certs/`.
    public static let developmentKeyID = "DEVKEY0001"
    public static let developmentTeamID = "DEVTEAM001"
    public static let developmentTopic = "com.example.app"

    /// The checked configuration.
    public func configuration() throws -> PushSendConfiguration {
        let target = try resolveTarget()
        let local = url != nil || (!sandbox && !production)
        let payload = try readPayload()
        let devices = try readDevices()

        let topic = self.topic ?? (local ? Self.developmentTopic : nil)
        guard let topic, !topic.isEmpty else { throw PushSendError("give --topic (your app's bundle id) when pushing to Apple") }
        let type: APNsPushType
        if let pushType {
            guard let parsed = APNsPushType(rawValue: pushType) else {
                throw PushSendError("--push-type '\(pushType)' is not one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            type = parsed
        } else {
            let parsed = try? payload.withUnsafeBufferPointer { bytes throws(APNsReason) in try APNsPayload.parse(bytes) }
            type = parsed.map(APNsPushRequest.defaultPushType) ?? .alert
        }
        if validate, let problem = APNsPushRequest.payloadProblem(payload, pushType: type) {
            let fix = problem.hasPrefix("a background push") ? "send it with --push-type alert" : "fix the payload"
            throw PushSendError("\(problem) (\(fix), or send it anyway with --no-validate)")
        }
        var priorityValue: APNsPriority?
        if let priority {
            guard let parsed = APNsPriority(rawValue: priority) else { throw PushSendError("--priority \(priority) is not 10, 5 or 1") }
            priorityValue = parsed
        }
        if let apnsID, !APNsHeaders.isCanonicalUUID(apnsID) {
            throw PushSendError("--apns-id '\(apnsID)' is not a UUID (8-4-4-4-12 hex digits)")
        }
        if let collapseID, collapseID.utf8.count > APNsRequestValidator.maximumCollapseIDLength {
            throw PushSendError("--collapse-id is \(collapseID.utf8.count) bytes; APNs takes at most 64")
        }
        if let expiration, expiration < 0 { throw PushSendError("--expiration must be 0 or seconds since the epoch") }
        guard (1...100_000_000).contains(count) else { throw PushSendError("--count must be from 1 to 100000000") }
        guard (1...100_000).contains(concurrency) else { throw PushSendError("--concurrency must be from 1 to 100000") }
        guard (1...1_000).contains(connections) else { throw PushSendError("--connections must be from 1 to 1000") }
        guard devices.count <= 100_000_000 / count else {
            throw PushSendError("\(devices.count) devices × --count \(count) is more than 100000000 pushes in one run")
        }
        if json && quiet { throw PushSendError("give --json or --quiet, not both") }

        var tls = TLSClientConfiguration(caFile: cacert, insecure: insecure)
        if cacert == nil, url == nil, !sandbox, !production {
            tls.caFile = certificatesDirectory + "/ca.pem"  // the make-run receiver's dev CA
        }
        let authentication: PushSendConfiguration.Authentication
        if cert != nil || certKey != nil {
            guard let cert else { throw PushSendError("--cert-key needs --cert") }
            guard key == nil else { throw PushSendError("give --key or --cert, not both") }
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
        guard chosen <= 1 else { throw PushSendError("give one of --url, --sandbox or --production") }
        if let port, !(1...65535).contains(port) { throw PushSendError("--port \(port) is not a port") }
        if sandbox { return .sandbox(port: port ?? 443) }
        if production { return .production(port: port ?? 443) }
        if port != nil { throw PushSendError("--port goes with --sandbox or --production; put the port in --url") }
        let text = url ?? Self.developmentURL
        guard let target = APNsTarget(url: text) else {
            throw PushSendError("--url '\(text)' is not http://HOST:PORT or https://HOST:PORT")
        }
        return target
    }

    func readPayload() throws -> [UInt8] {
        if payloadFile == "-" { return Array(standardInput()) }
        guard let data = FileManager.default.contents(atPath: payloadFile) else {
            throw PushSendError("cannot read the payload file '\(payloadFile)'")
        }
        return Array(data)
    }

    func readDevices() throws -> [String] {
        var tokens = devices
        if let devicesFile {
            guard let data = FileManager.default.contents(atPath: devicesFile) else {
                throw PushSendError("cannot read the devices file '\(devicesFile)'")
            }
            tokens += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        guard !tokens.isEmpty else { throw PushSendError("give --device TOKEN or --devices FILE") }
        return tokens
    }

    func signer(local: Bool) throws -> ProviderTokenSigner {
        let keyFile = key ?? environment["APNS_KEY"] ?? (local ? certificatesDirectory + "/AuthKey_\(Self.developmentKeyID).p8" : nil)
        let keyID = self.keyID ?? environment["APNS_KEY_ID"] ?? (key == nil && local ? Self.developmentKeyID : nil)
        let teamID = self.teamID ?? environment["APNS_TEAM_ID"] ?? (key == nil && local ? Self.developmentTeamID : nil)
        guard let keyFile else { throw PushSendError("give --key AuthKey.p8 (or APNS_KEY), or --cert, to push to Apple") }
        guard let keyID, !keyID.isEmpty else { throw PushSendError("give --key-id (or APNS_KEY_ID): the id of \(keyFile)") }
        guard let teamID, !teamID.isEmpty else { throw PushSendError("give --team-id (or APNS_TEAM_ID): your team's id") }
        let key: ES256Key
        do {
            key = try ES256Key.load(file: keyFile)
        } catch {
            throw PushSendError("\(error) (check --key)")
        }
        guard key.canSign else { throw PushSendError("key file '\(keyFile)' is a public key; pushsend signs with the .p8 private key (check --key)") }
        return ProviderTokenSigner(key: key, keyID: keyID, teamID: teamID)
    }
}
