import Logging
import Synchronization
import SilentPushCore
import SilentPushStore
import SilentPushTransport

/// The channel-management API (`/1/apps/<bundleID>/channels` and `…/all-channels`) on a
/// listener of its own, answered as APNs answers it: `201` with `apns-channel-id`, `200`
/// with the configuration or the channel list, `204` for a delete, or the status with
/// `content-type: application/json` and `{"reason":…}`; `apns-request-id` on every answer,
/// echoed or generated. Requests are authorized as pushes are (the provider endpoint's keys
/// and certificate rules), for the path's bundle id.
package final class ChannelEndpoint: H2Service {
    private let directory: ChannelDirectory
    private let provider: APNsEndpoint
    private let ids = APNsIDGenerator()
    private let nextRequest = Atomic<UInt64>(0)
    private let logger: Logger

    package init(directory: ChannelDirectory, provider: APNsEndpoint, logger: Logger) {
        self.directory = directory
        self.provider = provider
        self.logger = logger
    }

    private static let requestIDName = RequestIDHeader.name
    /// The headers a channel request may not give twice.
    private static let once = ["apns-channel-id", RequestIDHeader.name, "authorization"]

    package func handle(_ request: H2Request, writer: H2ResponseWriter) {
        let header = RequestIDHeader(request, generate: newRequestID)
        let requestID = header.id
        do throws(APNsReason) {
            // As the provider API: a header that names the channel, the request or the
            // credentials may come once (which of two channels would a DELETE delete?).
            guard Self.once.allSatisfy({ request.headers.count(of: $0) <= 1 }) else { throw .duplicateHeaders }
            guard header.given != .invalid else { throw .badMessageId }
            let route = ChannelRoute(method: request.method, path: request.path)
            guard let bundleID = route.bundleID else { throw route == .methodNotAllowed ? .methodNotAllowed : .badPath }
            try provider.authorize(request, bundleID: bundleID)
            guard APNsRequestValidator.isBundleID(bundleID) else { throw .topicDisallowed }
            try directory.checkFeatureEnabled(bundleID: bundleID)
            switch route {
            case .create:
                let configuration = try ChannelConfiguration(parsing: request.body)
                try directory.create(bundleID: bundleID, configuration: configuration) { [logger] result in
                    switch result {
                    case .success(let channel):
                        logger.info(
                            "channel created",
                            metadata: [
                                "channel.id": "\(channel.id)", "app.topic": "\(bundleID)",
                                "channel.storage_policy": "\(configuration.storagePolicy.rawValue)",
                            ])
                        writer.respond(H2Response(status: 201, headers: [(Self.requestIDName, requestID), ("apns-channel-id", channel.id.text)]))
                    case .failure(let failure): writer.respond(Self.notRecorded(failure, header: header, logger: logger))
                    }
                }
            case .read:
                let channel = try directory.channel(try Self.channelID(request), bundleID: bundleID)
                writer.respond(
                    H2Response(
                        status: 200, headers: [(Self.requestIDName, requestID), ("content-type", "application/json")],
                        body: Array(channel.configuration.json.utf8)))
            case .delete:
                let id = try Self.channelID(request)
                try directory.delete(id, bundleID: bundleID) { [logger] result in
                    switch result {
                    case .success:
                        logger.info("channel deleted", metadata: ["channel.id": "\(id)", "app.topic": "\(bundleID)"])
                        writer.respond(H2Response(status: 204, headers: [(Self.requestIDName, requestID)]))
                    case .failure(let failure): writer.respond(Self.notRecorded(failure, header: header, logger: logger))
                    }
                }
            case .list:
                var body = "{\"channels\":["
                for (index, channel) in directory.channels(bundleID: bundleID).enumerated() {
                    if index > 0 { body += "," }
                    JSONString.append(channel.id.text, to: &body)
                }
                body += "]}"
                writer.respond(
                    H2Response(
                        status: 200, headers: [(Self.requestIDName, requestID), ("content-type", "application/json")], body: Array(body.utf8)))
            case .methodNotAllowed, .badPath:
                throw .badPath  // settled above
            }
        } catch {
            writer.respond(header.error(error))
        }
    }

    package func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter) {
        let header = RequestIDHeader(request, generate: newRequestID)
        switch problem {
        case .bodyTooLarge: writer.respond(header.error(.payloadTooLarge))
        case .headerListTooLarge: writer.respond(H2Response(status: 431, headers: [(Self.requestIDName, header.id)]))
        }
    }

    private func newRequestID() -> String { ids.apnsID(pushID: nextRequest.add(1, ordering: .relaxed).oldValue) }

    /// The answer to a change the store could not record: 503, as a push's.
    private static func notRecorded(_ failure: ChannelDirectory.NotRecorded, header: RequestIDHeader, logger: Logger) -> H2Response {
        logger.error("cannot record a channel change", metadata: ["error": "\(PushStore.describe(failure.underlying))"])
        return header.error(.serviceUnavailable)
    }

    /// The request's `apns-channel-id`: `MissingChannelId` without one, `BadChannelId` unless
    /// canonical base64 within the length.
    private static func channelID(_ request: H2Request) throws(APNsReason) -> ChannelID {
        try ChannelID(requestHeader: request.headers.first("apns-channel-id"))
    }
}
