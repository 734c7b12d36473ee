import Logging
import SilentPushCore
import SilentPushTransport

/// Broadcasts (`POST /4/broadcasts/apps/<bundleID>`) on the provider listener, answered as
/// APNs answers them: `200` with `apns-request-id` (and, in the development environment,
/// `apns-unique-id`) once the broadcast is recorded, or the status with `apns-request-id`,
/// `content-type: application/json` and `{"reason":…}`. In a cluster, the 200 waits until
/// every member has fanned the broadcast out to its devices' activities.
extension APNsEndpoint {
    /// Checks in Apple's order: the request id, who sends (`TopicMismatch`), the bundle id
    /// (`TopicDisallowed`), the capability (`FeatureNotEnabled`), the headers, the channel,
    /// the payload.
    func broadcast(_ request: H2Request, bundleID: String, channels: ChannelDirectory, writer: H2ResponseWriter) {
        let header = RequestIDHeader(request, generate: newBroadcastRequestID)
        let receivedAt = deviceNow()
        do throws(APNsReason) {
            guard header.given != .invalid else { throw .badMessageId }
            try authorize(request, bundleID: bundleID)
            guard APNsRequestValidator.isBundleID(bundleID) else { throw .topicDisallowed }
            try channels.checkFeatureEnabled(bundleID: bundleID)
            let broadcast = try BroadcastRequest(headers: HeaderFields(list: request.headers))
            let (record, storagePolicy) = try channels.broadcast(
                broadcast, bundleID: bundleID, requestID: header.id, payload: request.body, receivedAt: receivedAt)
            sink.broadcast(record, storagePolicy: storagePolicy) { [logger] result in
                let accepted = { @Sendable in
                    var headers = H2HeaderList(name: RequestIDHeader.name, value: record.requestID)
                    if let unique = record.uniqueID { headers.append(name: "apns-unique-id", value: unique) }
                    writer.respond(H2Response(status: 200, headers: headers))
                    logger.debug(
                        "broadcast accepted",
                        metadata: ["app.topic": "\(bundleID)", "channel.id": "\(record.channelID)", "broadcast.request_id": "\(record.requestID)"])
                }
                switch result {
                case .success:
                    guard let relay = channels.clusterRelay else { return accepted() }
                    // In a cluster, every member's devices' activities have it before the 200.
                    relay.fanOut(record) { result in
                        switch result {
                        case .success: accepted()
                        case .failure(let error):
                            logger.warning(
                                "a broadcast did not reach every member of the cluster; answered 503",
                                metadata: ["broadcast.request_id": "\(record.requestID)", "error": "\(error)"])
                            writer.respond(header.error(.serviceUnavailable))
                        }
                    }
                case .failure(let rejection):
                    writer.respond(header.error(rejection.reason))
                }
            }
        } catch {
            writer.respond(header.error(error))
        }
    }

    /// A `/4/…` request whose path or method APNs refuses.
    func refuseBroadcast(_ request: H2Request, reason: APNsReason, writer: H2ResponseWriter) {
        writer.respond(RequestIDHeader(request, generate: newBroadcastRequestID).error(reason))
    }

    /// A broadcast the transport refused before it was whole.
    func refuseBroadcast(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter) {
        let header = RequestIDHeader(request, generate: newBroadcastRequestID)
        switch problem {
        case .bodyTooLarge: writer.respond(header.error(.payloadTooLarge))
        case .headerListTooLarge: writer.respond(H2Response(status: 431, headers: H2HeaderList(name: RequestIDHeader.name, value: header.id)))
        }
    }

    private func newBroadcastRequestID() -> String { requestIDs.apnsID(pushID: nextRequest.add(1, ordering: .relaxed).oldValue) }
}
