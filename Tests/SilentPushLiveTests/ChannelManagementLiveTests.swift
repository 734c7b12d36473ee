import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The channel-management API on its own listener, driven by curl with the requests of
/// Apple's "Sending channel management requests to APNs" page.
@Suite(.serialized) struct ChannelManagementLiveTests {
    static let app = "com.example.MyApp"
    static let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"

    /// An answer as curl reports it: status line and headers, then the body.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String

        func reason() -> String? {
            guard let data = body.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return nil
            }
            return object["reason"] as? String
        }
    }

    /// Sends one request with curl: over TLS with the dev CA (`port`), or in cleartext.
    static func curl(
        _ method: String, _ path: String, port: Int, tls: Bool = true, headers: [String] = [], body: String? = nil,
        token: String? = nil
    ) async throws -> Answer {
        var arguments = ["-sS", "-X", method, "-D", "/dev/stderr"]
        arguments += tls ? ["--http2", "--cacert", DevCertificates.ca] : ["--http2-prior-knowledge"]
        // nil: the dev key's token; empty: no authorization header.
        let token = try token ?? DevProviderToken.make()
        if !token.isEmpty { arguments += ["-H", "authorization: bearer \(token)"] }
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["-d", body] }
        arguments.append("\(tls ? "https://localhost" : "http://127.0.0.1"):\(port)\(path)")
        let result = try await PeerProcess.run("curl", arguments)
        #expect(result.status == 0, "\(result.errorOutput)")
        let lines = result.errorOutput.split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        return Answer(status: status, headers: fields, body: result.output)
    }

    func withReceiver(_ configure: (inout ReceiverConfiguration) -> Void = { _ in }, _ body: (Receiver) async throws -> Void) async throws {
        try await Receiver.withTesting(
            { configuration in
                configuration.listenChannels = ListenAddress(host: "127.0.0.1", port: 0)
                configuration.listenChannelsH2C = ListenAddress(host: "127.0.0.1", port: 0)
                configure(&configuration)
            }, body)
    }

    @Test func theDocumentedLifecycleCreateReadListDeleteOverTLS() async throws {
        try await withReceiver { receiver in
            let port = try #require(receiver.channelsPort)
            let created = try await Self.curl(
                "POST", "/1/apps/\(Self.app)/channels", port: port, headers: ["apns-request-id: \(Self.requestID)"],
                body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
            #expect(created.status == 201)
            #expect(created.headers["apns-request-id"] == Self.requestID)
            #expect(created.body.isEmpty)
            let channel = try #require(created.headers["apns-channel-id"])
            #expect(ChannelID(header: channel) != nil, "base64: \(channel)")

            let read = try await Self.curl(
                "GET", "/1/apps/\(Self.app)/channels", port: port, headers: ["apns-request-id: \(Self.requestID)", "apns-channel-id: \(channel)"])
            #expect(read.status == 200)
            #expect(read.headers["apns-request-id"] == Self.requestID)
            #expect(read.body == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)

            let listed = try await Self.curl("GET", "/1/apps/\(Self.app)/all-channels", port: port)
            #expect(listed.status == 200)
            #expect(listed.body == #"{"channels":["\#(channel)"]}"#)
            #expect(UUID(uuidString: listed.headers["apns-request-id"] ?? "") != nil, "generated when not sent")

            let deleted = try await Self.curl(
                "DELETE", "/1/apps/\(Self.app)/channels", port: port, headers: ["apns-request-id: \(Self.requestID)", "apns-channel-id: \(channel)"])
            #expect(deleted.status == 204)
            #expect(deleted.headers["apns-request-id"] == Self.requestID)

            let gone = try await Self.curl("GET", "/1/apps/\(Self.app)/channels", port: port, headers: ["apns-channel-id: \(channel)"])
            #expect(gone.status == 400)
            #expect(gone.reason() == "ChannelNotRegistered")
            #expect(gone.headers["content-type"] == "application/json")
            let again = try await Self.curl("DELETE", "/1/apps/\(Self.app)/channels", port: port, headers: ["apns-channel-id: \(channel)"])
            #expect(again.reason() == "ChannelNotRegistered")
            #expect(try await Self.curl("GET", "/1/apps/\(Self.app)/all-channels", port: port).body == #"{"channels":[]}"#)
        }
    }

    @Test func everyReasonWithApplesStatusInCleartext() async throws {
        try await withReceiver({ configuration in
            configuration.apps["com.example.off"] = {
                var declaration = AppDeclaration(permittedTaskIdentifiers: [], backgroundModes: [])
                declaration.broadcast = false
                return declaration
            }()
        }) { receiver in
            let port = try #require(receiver.channelsH2CPort)
            let policy = #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#
            let cases: [(method: String, path: String, headers: [String], body: String?, token: String?, status: Int, reason: String)] = [
                ("GET", "/1/apps/\(Self.app)/channels", [], nil, nil, 400, "MissingChannelId"),
                ("GET", "/1/apps/\(Self.app)/channels", ["apns-channel-id: not*base64"], nil, nil, 400, "BadChannelId"),
                ("DELETE", "/1/apps/\(Self.app)/channels", ["apns-channel-id: dHN0LXNyY2gtY2hubA=="], nil, nil, 400, "ChannelNotRegistered"),
                (
                    "DELETE", "/1/apps/\(Self.app)/channels", ["apns-channel-id: dHN0LXNyY2gtY2hubA==", "apns-channel-id: b3RoZXItY2hhbm5lbA=="], nil,
                    nil, 400, "DuplicateHeaders"
                ),
                (
                    "POST", "/1/apps/\(Self.app)/channels", [], #"{"message-storage-policy": 3, "push-type": "LiveActivity"}"#, nil, 400,
                    "BadRequestParams"
                ),
                ("POST", "/1/apps/\(Self.app)/channels", [], "{nope", nil, 400, "BadRequestPayload"),
                ("POST", "/1/apps/\(Self.app)/channels", [], #"{"message-storage-policy": 0}"#, nil, 400, "MissingPushType"),
                ("POST", "/1/apps/\(Self.app)/channels", [], #"{"message-storage-policy": 0, "push-type": "alert"}"#, nil, 400, "InvalidPushType"),
                ("POST", "/1/apps/\(Self.app)/channels", ["apns-request-id: nope"], policy, nil, 400, "BadMessageId"),
                ("POST", "/1/apps/\(Self.app).voip/channels", [], policy, nil, 400, "TopicDisallowed"),
                ("POST", "/1/apps/\(String(repeating: "a", count: 256))/channels", [], policy, nil, 400, "TopicDisallowed"),
                ("POST", "/1/apps/com.example.off/channels", [], policy, nil, 400, "FeatureNotEnabled"),
                ("POST", "/1/apps/\(Self.app)/channels", [], policy, "", 403, "MissingProviderToken"),
                ("POST", "/1/apps/\(Self.app)/channels", [], policy, "e30.e30.e30", 403, "InvalidProviderToken"),
                ("POST", "/1/apps/\(Self.app)/channel", [], policy, nil, 404, "BadPath"),
                ("PUT", "/1/apps/\(Self.app)/channels", [], policy, nil, 405, "MethodNotAllowed"),
            ]
            for item in cases {
                let answer = try await Self.curl(
                    item.method, item.path, port: port, tls: false, headers: item.headers, body: item.body, token: item.token)
                #expect(answer.status == item.status, "\(item.method) \(item.path) \(item.headers): \(answer.body)")
                #expect(answer.reason() == item.reason, "\(item.method) \(item.path) \(item.headers)")
                #expect(UUID(uuidString: answer.headers["apns-request-id"] ?? "") != nil)
            }
            let empty = try await Self.curl("POST", "/1/apps/\(Self.app)/channels", port: port, tls: false, body: "")
            #expect(empty.reason() == "PayloadEmpty")
        }
    }

    @Test func aStoredChannelOutlivesARestartAndTheOtherEnvironmentDoesNotSeeIt() async throws {
        let directory = Scratch.directory.appendingPathComponent("channels-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        var channel = ""
        try await withReceiver({ $0.store = .file(store) }) { receiver in
            let created = try await Self.curl(
                "POST", "/1/apps/\(Self.app)/channels", port: try #require(receiver.channelsPort),
                body: #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#)
            #expect(created.status == 201)
            channel = try #require(created.headers["apns-channel-id"])
        }
        try await withReceiver({ $0.store = .file(store) }) { receiver in
            let read = try await Self.curl(
                "GET", "/1/apps/\(Self.app)/channels", port: try #require(receiver.channelsPort), headers: ["apns-channel-id: \(channel)"])
            #expect(read.status == 200)
            #expect(read.body == #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        }
        let production = try await ChannelDirectory(store: try PushStore.open(.file(store)), environment: .production)
        #expect(throws: APNsReason.channelNotRegistered) { try production.channel(try #require(ChannelID(header: channel)), bundleID: Self.app) }
        #expect(production.channels(bundleID: Self.app).isEmpty)
    }

    @Test func theLimitIsPerAppAndCountsChannelsBeingWritten() async throws {
        let directory = try await ChannelDirectory(store: try PushStore.open(.memory), environment: .sandbox, limit: 2)
        let configuration = ChannelConfiguration(storagePolicy: .noMessageStored)
        async let first = directory.create(bundleID: Self.app, configuration: configuration)
        async let second = directory.create(bundleID: Self.app, configuration: configuration)
        let ids = try await [first.id, second.id]
        #expect(Set(ids).count == 2)
        await #expect(throws: APNsReason.cannotCreateChannelConfig) { try await directory.create(bundleID: Self.app, configuration: configuration) }
        _ = try await directory.create(bundleID: "com.example.other", configuration: configuration)
        try await directory.delete(ids[0], bundleID: Self.app)
        _ = try await directory.create(bundleID: Self.app, configuration: configuration)
    }
}
