import Foundation
import SilentPushCore
import SilentPushTransport

/// One request to APNs' channel-management API (`pushsend channel`) or broadcast API
/// (`pushsend broadcast`), authenticated as pushes are, and its answer as one line.
package struct ChannelRequest: Sendable {
    /// What to ask.
    package enum Action: Sendable, Equatable {
        /// `POST /1/apps/<bundleID>/channels` with a storage policy.
        case create(MessageStoragePolicy)
        /// `GET /1/apps/<bundleID>/channels` with `apns-channel-id`.
        case read(ChannelID)
        /// `DELETE /1/apps/<bundleID>/channels` with `apns-channel-id`.
        case delete(ChannelID)
        /// `GET /1/apps/<bundleID>/all-channels`.
        case list
        /// `POST /4/broadcasts/apps/<bundleID>` on the provider host.
        case broadcast(channel: ChannelID, priority: APNsPriority, expiration: Int64, payload: [UInt8])
    }

    /// The local receiver's channel-management listener (`make run`), and Apple's hosts.
    package static let developmentChannelsURL = "https://localhost:2195"
    package static let sandboxChannels = APNsTarget(scheme: "https", host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)
    package static let productionChannels = APNsTarget(scheme: "https", host: "api-manage-broadcast.push.apple.com", port: 2196)

    package var action: Action
    /// The app (bundle id) in the path.
    package var bundleID: String
    package var target: APNsTarget
    package var tls: TLSClientConfiguration
    package var authentication: PushSendConfiguration.Authentication
    /// `apns-request-id`; nil lets APNs make one.
    package var requestID: String?

    /// A request.
    package init(
        action: Action, bundleID: String, target: APNsTarget, tls: TLSClientConfiguration,
        authentication: PushSendConfiguration.Authentication, requestID: String? = nil
    ) {
        self.action = action
        self.bundleID = bundleID
        self.target = target
        self.tls = tls
        self.authentication = authentication
        self.requestID = requestID
    }

    /// APNs' answer: the line `pushsend` prints and whether it was a success.
    package struct Answer: Sendable, Equatable {
        package var status: Int
        /// `201 <channel-id>`, `200 <configuration>`, `200 <id> <id>…`, `204 <channel-id>`,
        /// `200 <request-id> [<unique-id>]`, or `<status> <reason> <request-id>`.
        package var line: String
        package var succeeded: Bool { (200..<300).contains(status) }
    }

    /// The method, path, headers and body of the request.
    func httpRequest(token: String?) -> H2Request {
        var headers: [(name: String, value: String)] = []
        if let token { headers.append(("authorization", "bearer \(token)")) }
        if let requestID { headers.append(("apns-request-id", requestID)) }
        let channels = "/1/apps/\(bundleID)/channels"
        let (method, path, body): (String, String, [UInt8])
        switch action {
        case .create(let policy):
            (method, path, body) = ("POST", channels, Array(ChannelConfiguration(storagePolicy: policy).json.utf8))
        case .read(let id):
            headers.append(("apns-channel-id", id.text))
            (method, path, body) = ("GET", channels, [])
        case .delete(let id):
            headers.append(("apns-channel-id", id.text))
            (method, path, body) = ("DELETE", channels, [])
        case .list:
            (method, path, body) = ("GET", "/1/apps/\(bundleID)/all-channels", [])
        case .broadcast(let channel, let priority, let expiration, let payload):
            headers += [
                ("apns-channel-id", channel.text), ("apns-push-type", "LiveActivity"), ("apns-priority", String(priority.rawValue)),
                ("apns-expiration", String(expiration)),
            ]
            (method, path, body) = ("POST", "/4/broadcasts/apps/\(bundleID)", payload)
        }
        return H2Request(method: method, path: path, scheme: target.scheme, headers: H2HeaderList(headers), body: body)
    }

    /// Sends the request; throws `PushSendError` (exit 2) when it cannot connect or sign.
    package func run() async throws -> Answer {
        let context: TLSContext?
        do {
            context = target.scheme == "https" ? try TLSContext.client(tls) : nil
        } catch {
            throw PushSendError.tlsSetup(problem: "\(error)")
        }
        var token: String?
        if case .token(let signer) = authentication {
            do {
                token = try signer.token()
            } catch {
                throw PushSendError.signing(keyID: signer.keyID, problem: "\(error)")
            }
        }
        let connection: H2ClientConnection
        do {
            connection = try await H2ClientConnection.connect(
                host: target.host, port: target.port, tls: context, answerTimeout: PushSendConfiguration.answerTimeout)
        } catch {
            if case .untrustedServer = error as? H2ConnectError { throw PushSendError.untrustedServer(problem: "\(error)") }
            throw PushSendError.connection(problem: "\(error)")
        }
        let response: H2Response
        do {
            response = try await connection.send(httpRequest(token: token))
        } catch {
            await connection.close()
            throw PushSendError.connection(problem: "\(error)")
        }
        await connection.close()
        return Self.answer(to: action, response)
    }

    /// The line for `response`.
    static func answer(to action: Action, _ response: H2Response) -> Answer {
        let requestID = response.headers.first("apns-request-id") ?? "-"
        guard (200..<300).contains(response.status) else {
            let reason = APNsErrorBody(parsing: response.body)?.reason ?? "-"
            var line = "\(response.status) \(reason) \(requestID)"
            // A route unknown where it was sent: most likely the other listener.
            if response.status == 404, reason == APNsReason.badPath.rawValue {
                if case .broadcast = action {
                    line +=
                        " (no broadcast route there: give --url the receiver's provider listener, --listen or --listen-h2c, not --listen-channels)"
                } else {
                    line += " (no channel routes there: give --url the receiver's --listen-channels address, not its provider listener)"
                }
            }
            return Answer(status: response.status, line: line)
        }
        let text = String(decoding: response.body, as: UTF8.self)
        switch action {
        case .create:
            return Answer(status: response.status, line: "\(response.status) \(response.headers.first("apns-channel-id") ?? "-")")
        case .read: return Answer(status: response.status, line: "\(response.status) \(text)")
        case .delete(let id): return Answer(status: response.status, line: "\(response.status) \(id.text)")
        case .list:
            let ids = Self.channelIDs(in: response.body)
            return Answer(status: response.status, line: ([String(response.status)] + ids).joined(separator: " "))
        case .broadcast:
            let unique = response.headers.first("apns-unique-id").map { " \($0)" } ?? ""
            return Answer(status: response.status, line: "\(response.status) \(requestID)\(unique)")
        }
    }

    /// The ids of an `all-channels` answer, `{"channels": [...]}`.
    static func channelIDs(in body: [UInt8]) -> [String] {
        var ids: [String] = []
        body.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            try? scanner.readObject { scanner, key in
                guard key == "channels", try scanner.peek() == .array else { return }
                try scanner.readArray { scanner in
                    if try scanner.peek() == .string { ids.append(try scanner.readString()) } else { try scanner.skipValue() }
                }
            }
        }
        return ids
    }
}
