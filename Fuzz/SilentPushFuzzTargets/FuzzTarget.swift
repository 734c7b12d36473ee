import Foundation
import NIOCore
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTransport
import Synchronization

/// Everything that parses bytes from outside, each as a function of one input: what
/// `make fuzz` runs under libFuzzer and `make test` replays from `Fuzz/corpus` and
/// `Fuzz/regressions`. An input may be refused in any way but a trap, a hang or a leak
/// of state into the next input.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// The JSON scanner, and the JSON values and transfer requests read with it, over any bytes.
    case json
    /// A payload through the request validator (`aps`, content-available, size).
    case payload
    /// A whole APNs request through the endpoint: the first line is the path, then
    /// `name: value` header lines, a blank line, and the body.
    case request
    /// A provider token (the text after `bearer `) parsed, verified and judged.
    case providerToken
    /// A config file (`silentpushd --config`).
    case config
    /// Admin API bodies: `PATCH /v1/devices/{token}` and `POST /v1/clock/advance`.
    case adminBody
    /// Bytes after the client preface into a server HTTP/2 session.
    case h2Session
    /// Text the store keeps and reads back (a file anyone may edit): wait and drop reasons,
    /// and the admin API's times.
    case storedText
    /// A channel-management request: the first line is `METHOD PATH`, the second the
    /// `apns-channel-id`, the rest the create body.
    case channelRequest

    /// Runs one input.
    package func run(_ input: UnsafeRawBufferPointer) {
        switch self {
        case .json: Self.json(input)
        case .payload: Self.payload(input)
        case .request: Self.request(input)
        case .providerToken: Self.providerToken(input)
        case .config: Self.config(input)
        case .adminBody: Self.adminBody(input)
        case .h2Session: Self.h2Session(input)
        case .storedText: Self.storedText(input)
        case .channelRequest: Self.channelRequest(input)
        }
    }

    static func json(_ input: UnsafeRawBufferPointer) {
        input.withMemoryRebound(to: UInt8.self) { bytes in
            var scanner = JSONScanner(bytes)
            if (try? scanner.skipValue()) != nil { _ = try? scanner.expectEnd() }
            var objects = JSONScanner(bytes)
            _ = try? objects.readObject { scanner, _ in _ = try scanner.readScalarText() }
        }
        // The admin API's, the config file's and handlers' reader: what it renders reads back
        // as the same value.
        if let value = try? JSONValue.parse(input) {
            precondition((try? JSONValue.parse(value.rendered.utf8)) == value, "a value that does not read back as rendered")
        }
        // A handler's transfer request (exec `transfer {…}`, an http answer's "transfers").
        if case .success(let request) = TransferRequest.parse(String(decoding: input, as: UTF8.self)) {
            precondition(request.fromFile == nil || request.method != .GET, "an upload read as a GET")
            _ = URLUserInfo.masked(request.url)
        }
    }

    static func channelRequest(_ input: UnsafeRawBufferPointer) {
        let lines = Array(input).split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
        let request = String(decoding: lines.first ?? [], as: UTF8.self).split(separator: " ", maxSplits: 1)
        let route = ChannelRoute(method: String(request.first ?? ""), path: String(request.dropFirst().first ?? ""))
        if let bundleID = route.bundleID { _ = APNsPushType.alert.accepts(topic: bundleID) }
        let header = String(decoding: lines.dropFirst().first ?? [], as: UTF8.self)
        if let id = ChannelID(header: header) { precondition(ChannelID(header: id.text) == id) }
        if let bytes = Base64.decode(header.utf8) { precondition(Base64.decode(Base64.encode(bytes).utf8) == bytes) }
        let body = Array(lines.dropFirst(2).first ?? [])
        if let configuration = try? ChannelConfiguration(parsing: body) {
            precondition((try? ChannelConfiguration(parsing: Array(configuration.json.utf8))) == configuration)
        }
        // The same input as a broadcast: its path, its `name: value` lines as headers, its body.
        if case .broadcast(let bundleID) = APNsRoute(method: "POST", path: String(request.dropFirst().first ?? "")) {
            precondition(!bundleID.isEmpty && !bundleID.contains("/"))
        }
        let fields: [(String, String)] = Array(input).split(separator: 0x0A).compactMap { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            return (String(decoding: line[..<colon], as: UTF8.self), String(decoding: line[(colon + 1)...].drop { $0 == 0x20 }, as: UTF8.self))
        }
        if let broadcast = try? BroadcastRequest(headers: H2HeaderSource(list: H2HeaderList(fields))) {
            precondition(broadcast.expiration >= 0)
        }
        _ = try? BroadcastRequest.checkPayload(body)
    }

    static func payload(_ input: UnsafeRawBufferPointer) {
        _ = try? input.withMemoryRebound(to: UInt8.self) { try APNsPayload.parse($0) }
        // As ActivityKit reads it: a Live Activity push's or a broadcast's.
        if case .success(let activity) = LiveActivityPayload.parse(Array(input)) {
            precondition(activity.event != .start || (activity.attributesType != nil && activity.hasAlert))
        }
        _ = try? APNsRequestValidator().validate(
            deviceToken: Substring(Self.deviceToken), topic: "com.example.app.push-type.liveactivity",
            headers: APNsHeaders(pushType: "liveactivity", priority: "10"), apnsID: "00000000-0000-4000-8000-000000000001", body: Array(input))
        for strict in [false, true] {
            _ = try? APNsRequestValidator(strict: strict).validate(
                deviceToken: Substring(Self.deviceToken), topic: "com.example.app",
                headers: APNsHeaders(pushType: "background", priority: "5"), apnsID: "00000000-0000-4000-8000-000000000001",
                body: Array(input))
        }
    }

    static func request(_ input: UnsafeRawBufferPointer) {
        let text = Array(input)
        let lines = text.split(separator: 0x0A, maxSplits: 64, omittingEmptySubsequences: false)
        guard let pathLine = lines.first else { return }
        var headers: [(name: String, value: String)] = []
        var bodyStart = text.count
        var offset = pathLine.count + 1
        for line in lines.dropFirst() {
            if line.isEmpty {
                bodyStart = min(text.count, offset + 1)
                break
            }
            offset += line.count + 1
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...].drop { $0 == 0x20 }, as: UTF8.self)
            headers.append((name, value))
        }
        // A device token taken as a key gives back its text, whatever the path's last part is.
        let token = String(decoding: pathLine.split(separator: UInt8(ascii: "/")).last ?? [], as: UTF8.self)
        precondition(DeviceKey(token).text == token, "a device key changed its token")
        let request = H2Request(
            streamID: 1, method: "POST", path: String(decoding: pathLine, as: UTF8.self), headers: H2HeaderList(headers),
            body: Array(text[min(bodyStart, text.count)...]), connection: H2ConnectionInfo(id: 1, remoteAddress: "fuzz", tls: nil))
        Self.endpoint.handle(request, writer: H2ResponseWriter(streamID: 1, sink: Self.responses))
    }

    static func providerToken(_ input: UnsafeRawBufferPointer) {
        let jwt = String(decoding: input, as: UTF8.self)
        _ = try? ProviderToken.parse(Substring(jwt))
        let request = H2Request(
            streamID: 1, method: "POST", path: "/3/device/" + Self.deviceToken,
            headers: H2HeaderList([
                ("apns-topic", "com.example.app"), ("apns-push-type", "background"), ("apns-priority", "5"),
                ("authorization", "bearer " + jwt),
            ]),
            body: Array(#"{"aps":{"content-available":1}}"#.utf8),
            connection: H2ConnectionInfo(id: 2, remoteAddress: "fuzz", tls: nil))
        Self.endpoint.handle(request, writer: H2ResponseWriter(streamID: 1, sink: Self.responses))
    }

    static func config(_ input: UnsafeRawBufferPointer) {
        guard let file = try? ConfigFile.parse(Data(input), path: "fuzz.json") else { return }
        var configuration = ReceiverConfiguration()
        file.apply(to: &configuration)
    }

    static func adminBody(_ input: UnsafeRawBufferPointer) {
        guard let fields = try? AdminAPI.object(ByteBuffer(bytes: input)) else { return }
        _ = try? AdminAPI.devicePatch(fields, to: DeviceState())
        _ = try? AdminAPI.taskSubmission(fields)
        if let rule = try? FaultRule(json: fields) {
            precondition(FaultAction(description: rule.action.description) == rule.action, "a fault action does not read back")
            _ = rule.json.rendered
        }
        if let span = try? AdminAPI.advanceSpan(fields) {
            _ = DeviceInstant(secondsSinceEpoch: 1_767_225_600).advanced(by: span)
        }
    }

    static func storedText(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        if let reason = WaitReason<DeviceInstant>(stored: text) {
            _ = reason.text { "\($0.millisecondsSinceEpoch)" }
            precondition(WaitReason(stored: reason.stored) == reason, "a stored reason does not read back")
        }
        _ = DropReason(description: text)
        if let action = FaultAction(description: text) {
            precondition(FaultAction(description: action.description) == action, "a fault action does not read back")
        }
        _ = AdminAPI.instant(text)
    }

    static func h2Session(_ input: UnsafeRawBufferPointer) {
        let answerer = Answerer()
        let session = H2ServerSession(settings: H2Settings(maxConcurrentStreams: 8))
        session.delegate = answerer
        Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8).withUnsafeBytes { session.receive($0, at: 1) }
        // In pieces, as a socket delivers them, with the output drained between.
        var offset = 0
        var clock: UInt64 = 2
        while offset < input.count {
            let length = min(input.count - offset, 1 + Int(input[offset]) % 97)
            session.receive(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + length)]), at: clock)
            session.drainOutput { _ in }
            offset += length
            clock += 1
        }
        _ = session.resetIncompleteRequests(openedAtOrBefore: clock / 2)
        _ = session.requestsAwaitingAnswer
        session.shutdown()
        session.drainOutput { _ in }
    }

    // MARK: Fixtures

    static let deviceToken = String(repeating: "7c", count: 32)

    /// The dev certificates, found from this file (the fuzzer runs in the checkout).
    static let certificates = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("certs").path

    static let responses = DiscardingSink()

    /// One endpoint for every input: its caches and per-connection state see the inputs one
    /// after another, as a long-running receiver does.
    /// A header list as the core reads it.
    struct H2HeaderSource: APNsHeaderSource {
        let list: H2HeaderList

        func forEachHeader(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
            try list.forEachRaw(body)
        }
    }

    static let endpoint: APNsEndpoint = {
        let keys = (try? ProviderKeyRing(specs: [.development(certificatesDirectory: certificates)])) ?? (try! ProviderKeyRing(specs: []))
        // Broadcast paths (`/4/…`) reach the broadcast checks: an empty directory on a store in memory.
        let channels = (try? PushStore.openSQLite(.memory)).map {
            ChannelDirectory(store: $0, channels: [], lastBroadcastID: 0, environment: .sandbox)
        }
        return APNsEndpoint(settings: .init(), keys: keys, sink: AcceptingSink(), channels: channels)
    }()

    final class DiscardingSink: H2ResponseSink {
        func respond(streamID: Int32, response: H2Response) {}
        func respond(streamID: Int32, response: H2Response, after delay: Duration) {}
        func goAway(reason: APNsReason) {}
        func closeConnection() {}
    }

    final class AcceptingSink: PushSink {
        let nextID = Atomic<UInt64>(1)
        func takePushID() -> UInt64 { nextID.add(1, ordering: .relaxed).oldValue }
        func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
            _ = DeviceInstant.expiry(
                ofAPNsExpiration: push.expiration, systemNow: DeviceInstant(secondsSinceEpoch: 1_767_225_600),
                deviceNow: DeviceInstant(secondsSinceEpoch: 1_767_225_600))
            completion(.success(()))
        }
        func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason) {}
    }

    final class Answerer: H2ServerSessionDelegate {
        func session(_ session: H2ServerSession, didReceive request: H2Request) {
            session.respond(streamID: request.streamID, response: H2Response(status: 200, headers: ["apns-id": "ID"]))
        }
        func session(_ session: H2ServerSession, didRefuse request: H2Request, problem: H2RequestProblem) {
            session.respond(streamID: request.streamID, response: H2Response(status: 413, body: Array(#"{"reason":"PayloadTooLarge"}"#.utf8)))
        }
    }
}
