import ArgumentParser
import Foundation
import SilentPushCore

/// The options `pushsend channel` and `pushsend broadcast` share: where to connect, how to
/// authenticate, the app and the request id. `request(_:)` checks them and builds the request,
/// or throws one line that says what to fix.
package struct ChannelOptions: ParsableArguments, Sendable {
    @OptionGroup package var provider: ProviderOptions

    @Option(help: "The app's bundle id (default: with --cert, the certificate's bundle id; for local receivers, com.example.app).")
    package var topic: String?

    @Option(name: .customLong("request-id"), help: "apns-request-id (a UUID); APNs makes one when it is not given.")
    package var requestID: String?

    package init() {}

    /// The checked request for `action`: to the channel-management host, or for a broadcast
    /// to the provider host.
    package func request(_ action: ChannelRequest.Action) throws -> ChannelRequest {
        let isBroadcast: Bool
        if case .broadcast = action { isBroadcast = true } else { isBroadcast = false }
        let port = provider.port
        let target =
            isBroadcast
            ? try provider.resolveTarget(
                development: PushSendOptions.developmentURL, sandbox: .sandbox(port: port ?? 443), production: .production(port: port ?? 443))
            : try provider.resolveTarget(
                development: ChannelRequest.developmentChannelsURL,
                sandbox: APNsTarget(scheme: "https", host: ChannelRequest.sandboxChannels.host, port: port ?? ChannelRequest.sandboxChannels.port),
                production: APNsTarget(
                    scheme: "https", host: ChannelRequest.productionChannels.host, port: port ?? ChannelRequest.productionChannels.port))
        let local = provider.isLocal
        if let topic, !APNsRequestValidator.isTopicShape(topic) {
            throw PushSendError.invalidValue(
                option: "--topic", value: "'\(topic)'", expected: "a bundle id (1 to 255 visible ASCII characters, no spaces or /)")
        }
        // Read here only when the bundle id comes from it; else `credentials` reads it. Once.
        let identity = topic == nil ? try provider.clientIdentity() : nil
        guard let bundleID = try topic ?? provider.certificateTopic(of: identity) ?? (local ? PushSendOptions.developmentTopic : nil) else {
            throw PushSendError.missingOption(need: "--topic (your app's bundle id) when talking to Apple")
        }
        if let requestID, !APNsHeaders.isCanonicalUUID(requestID) {
            throw PushSendError.invalidValue(option: "--request-id", value: "'\(requestID)'", expected: "a UUID (8-4-4-4-12 hex digits)")
        }
        let (tls, authentication) = try provider.credentials(for: target, local: local, identity: identity)
        return ChannelRequest(action: action, bundleID: bundleID, target: target, tls: tls, authentication: authentication, requestID: requestID)
    }

    /// `--channel`: a channel id as APNs writes it.
    package static func channelID(_ text: String?) throws -> ChannelID {
        guard let text else { throw PushSendError.missingOption(need: "--channel ID (from pushsend channel create or list)") }
        guard let id = ChannelID(header: text) else {
            throw PushSendError.invalidValue(option: "--channel", value: "'\(text)'", expected: "a channel id (base64, as apns-channel-id)")
        }
        return id
    }

    /// `--storage-policy`: 0 (No Message Stored) or 1 (Most Recent Message Stored).
    package static func storagePolicy(_ value: Int) throws -> MessageStoragePolicy {
        guard let policy = MessageStoragePolicy(rawValue: value) else {
            throw PushSendError.invalidValue(
                option: "--storage-policy", value: "\(value)", expected: "0 (no message stored) or 1 (the most recent stored)")
        }
        return policy
    }

    /// A broadcast's payload: the file, `-` for stdin; checked as APNs checks it.
    package static func broadcastPayload(
        _ file: String?, standardInput: () throws(PushSendError) -> Data = { () throws(PushSendError) in try StandardInput.read() }
    ) throws
        -> [UInt8]
    {
        guard let file else {
            throw PushSendError.missingOption(need: "a payload file (such as payloads/liveactivity-broadcast.json), or - for stdin")
        }
        let bytes: [UInt8]
        if file == "-" {
            bytes = Array(try standardInput())
        } else {
            bytes = try PushSendError.read("payload file", file, limit: StandardInput.limit)
        }
        do throws(APNsReason) {
            try BroadcastRequest.checkPayload(bytes)
        } catch {
            let fix =
                switch error {
                case .payloadTooLarge: "make it at most \(BroadcastRequest.maximumPayloadSize) bytes (it has \(bytes.count))"
                case .payloadEmpty: "give a payload, such as payloads/liveactivity-broadcast.json"
                default: "make it a JSON object"
                }
            throw PushSendError.refusedPayload(problem: "APNs would refuse this broadcast payload (\(error.rawValue))", fix: fix)
        }
        return bytes
    }

    /// A broadcast from `pushsend broadcast`'s flags, checked.
    package static func broadcast(channel: String?, priority: Int, expiration: Int64, payloadFile: String?) throws -> ChannelRequest.Action {
        guard let priorityValue = APNsPriority(rawValue: priority) else {
            throw PushSendError.invalidValue(option: "--priority", value: "\(priority)", expected: "10, 5 or 1")
        }
        guard expiration >= 0 else {
            throw PushSendError.invalidValue(option: "--expiration", value: "\(expiration)", expected: "0 or seconds since the epoch")
        }
        return .broadcast(
            channel: try channelID(channel), priority: priorityValue, expiration: expiration, payload: try broadcastPayload(payloadFile))
    }
}
