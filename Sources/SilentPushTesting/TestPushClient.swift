import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTransport

/// A provider for tests: pushes to an in-process receiver over cleartext HTTP/2 with a
/// provider token signed by the dev key, as a real provider would.
public final class TestPushClient: Sendable {
    private let connection: H2ClientConnection
    private let jwt: String

    private init(connection: H2ClientConnection, jwt: String) {
        self.connection = connection
        self.jwt = jwt
    }

    /// Connects to `receiver`'s h2c listener, once it is bound. A receiver that has stopped
    /// throws `ReceiverStartError.alreadyRan` (or what stopped it).
    public static func connect(to receiver: Receiver) async throws -> TestPushClient {
        try await receiver.ready()
        guard let port = receiver.h2cPort else { throw TestPushClientError.noCleartextListener }
        return try await connect(port: port)
    }

    /// Connects to a receiver's h2c listener on `host:port` (a `silentpushd` process).
    public static func connect(host: String = "127.0.0.1", port: Int) async throws -> TestPushClient {
        TestPushClient(
            connection: try await H2ClientConnection.connect(host: host, port: port, tls: nil),
            jwt: try DevProviderToken.make())
    }

    /// Sends one push and returns APNs' answer. By default a silent background push
    /// (`{"aps":{"content-available":1}}`, priority 5) to `SamplePush.deviceToken` on the dev topic.
    ///
    /// - Parameters:
    ///   - payload: The JSON payload, sent as given.
    ///   - deviceToken: The device token in the path.
    ///   - topic: `apns-topic`; nil: the dev topic with `pushType`'s suffix
    ///     (`com.example.app.push-type.liveactivity` for a Live Activity push).
    ///   - priority: `apns-priority`; nil sends none (APNs then assumes 10).
    ///   - pushType: `apns-push-type`; nil sends none.
    ///   - expiration: `apns-expiration`, seconds since the epoch; 0 means "deliver now or never".
    ///   - apnsID: `apns-id`; nil lets the receiver make one.
    ///   - collapseID: `apns-collapse-id`.
    ///   - rawHeaders: headers sent exactly as given, replacing any of the same name the
    ///     typed parameters would send: for asserting how the receiver answers a malformed
    ///     value, such as `["apns-priority": "7"]`.
    /// - Returns: The status, the `apns-id` and, for an error, Apple's reason.
    @discardableResult
    public func push(
        _ payload: String = #"{"aps":{"content-available":1}}"#,
        to deviceToken: String = SamplePush.deviceToken, topic: String? = nil,
        priority: APNsPriority? = .normal, pushType: APNsPushType? = .background, expiration: Int64? = nil,
        apnsID: String? = nil, collapseID: String? = nil, rawHeaders: KeyValuePairs<String, String> = [:]
    ) async throws -> TestPushResponse {
        let topic = topic ?? SamplePush.topic + (pushType?.topicSuffix ?? "")
        var headers: [(name: String, value: String)] = [("authorization", "bearer \(jwt)"), ("apns-topic", topic)]
        if let pushType { headers.append(("apns-push-type", pushType.rawValue)) }
        if let priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        for (name, value) in rawHeaders {
            let name = name.lowercased()
            headers.removeAll { $0.name == name }
            headers.append((name, value))
        }
        let response = try await connection.send(
            H2Request(
                method: "POST", path: "/3/device/\(Self.pathSegment(deviceToken))", scheme: "http", headers: H2HeaderList(headers),
                body: Array(payload.utf8)))
        let body = response.body.isEmpty ? nil : APNsErrorBody(parsing: response.body)
        return TestPushResponse(
            status: response.status, apnsID: response.headers.first("apns-id") ?? "", reason: body.flatMap { APNsReason(rawValue: $0.reason) },
            timestamp: body?.timestamp, uniqueID: response.headers.first("apns-unique-id"))
    }

    /// Publishes `payload` on `channel` of `bundleID` (`POST /4/broadcasts/apps/<bundleID>`),
    /// as a provider does. The answer's `apnsID` is its `apns-request-id`.
    @discardableResult
    public func broadcast(
        _ payload: String, bundleID: String, channel: ChannelID, priority: APNsPriority = .high, expiration: Int64 = 0
    ) async throws -> TestPushResponse {
        let headers: [(name: String, value: String)] = [
            ("authorization", "bearer \(jwt)"), ("apns-channel-id", channel.text), ("apns-push-type", "LiveActivity"),
            ("apns-priority", String(priority.rawValue)), ("apns-expiration", String(expiration)),
        ]
        let response = try await connection.send(
            H2Request(
                method: "POST", path: "/4/broadcasts/apps/\(Self.pathSegment(bundleID))", scheme: "http", headers: H2HeaderList(headers),
                body: Array(payload.utf8)))
        let body = response.body.isEmpty ? nil : APNsErrorBody(parsing: response.body)
        return TestPushResponse(
            status: response.status, apnsID: response.headers.first("apns-request-id") ?? "",
            reason: body.flatMap { APNsReason(rawValue: $0.reason) }, timestamp: nil, uniqueID: response.headers.first("apns-unique-id"))
    }

    /// `text` as one segment of a path: every byte but letters, digits and `-._~`
    /// percent-encoded, so a malformed token or bundle id (a `/`, a space) reaches the receiver
    /// whole and gets its own reason (`BadDeviceToken`), not another path's.
    private static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// Closes the connection.
    public func close() async {
        await connection.close()
    }
}
