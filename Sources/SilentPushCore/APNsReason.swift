/// Why APNs refuses a request. Raw values are Apple's reason strings, as sent in
/// `{"reason":"…"}`; `status` is the HTTP status APNs answers with.
public enum APNsReason: String, Error, Sendable, CaseIterable {
    // 400
    /// The `apns-collapse-id` is longer than allowed (400).
    case badCollapseId = "BadCollapseId"
    /// The device token is malformed, or unknown to a registered-only receiver (400).
    case badDeviceToken = "BadDeviceToken"
    /// The `apns-expiration` is not valid (400).
    case badExpirationDate = "BadExpirationDate"
    /// The `apns-id` (or a channel request's `apns-request-id`) is not valid (400).
    case badMessageId = "BadMessageId"
    /// The `apns-priority` is not valid (400).
    case badPriority = "BadPriority"
    /// The `apns-topic` is not valid (400).
    case badTopic = "BadTopic"
    /// The device token does not match the topic (400).
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    /// A header is repeated (400).
    case duplicateHeaders = "DuplicateHeaders"
    /// The connection was idle too long: the reason in the GOAWAY that closes it (400 in Apple's table).
    case idleTimeout = "IdleTimeout"
    /// The `apns-push-type` is not valid, or does not fit the topic (400).
    case invalidPushType = "InvalidPushType"
    /// The path names no device token (400).
    case missingDeviceToken = "MissingDeviceToken"
    /// The `apns-topic` is missing where it is required (400).
    case missingTopic = "MissingTopic"
    /// The payload is empty (400).
    case payloadEmpty = "PayloadEmpty"
    /// Pushing to this topic is not allowed (400).
    case topicDisallowed = "TopicDisallowed"
    /// Apple documents no reason for a push payload that is not a JSON object; this is the
    /// reason Apple documents for an invalid request payload elsewhere in its push APIs.
    case badRequestPayload = "BadRequestPayload"
    // 400, the broadcast and channel-management APIs only
    /// Broadcast is not enabled for the app (400).
    case featureNotEnabled = "FeatureNotEnabled"
    /// The `apns-channel-id` is missing (400).
    case missingChannelId = "MissingChannelId"
    /// The `apns-channel-id` is not valid (400).
    case badChannelId = "BadChannelId"
    /// The app has no such channel in this environment (400).
    case channelNotRegistered = "ChannelNotRegistered"
    /// A channel's configuration has a member or value that is not valid (400).
    case badRequestParams = "BadRequestParams"
    /// The push type is missing: a channel's `push-type`, or a broadcast's `apns-push-type` (400).
    case missingPushType = "MissingPushType"
    /// The app already has the most channels it may have in this environment (400).
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    // 403
    /// The client certificate is not valid (403).
    case badCertificate = "BadCertificate"
    /// The client certificate is for the other environment (403).
    case badCertificateEnvironment = "BadCertificateEnvironment"
    /// The provider token is stale: a new one is needed (403).
    case expiredProviderToken = "ExpiredProviderToken"
    /// The action is not allowed (403): here, a provider token signed with a revoked key.
    case forbidden = "Forbidden"
    /// The provider token is not valid, or its signature cannot be verified (403).
    case invalidProviderToken = "InvalidProviderToken"
    /// Neither a client certificate nor a provider token was given (403).
    case missingProviderToken = "MissingProviderToken"
    /// The provider token's key is unrelated to the connection's first token's: a new connection is needed (403).
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    /// The provider token's key does not match the environment (403).
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    /// Broadcast and channel management: the path's bundle id is not one the token or
    /// certificate may send to.
    case topicMismatch = "TopicMismatch"
    // 404, 405
    /// The request path is not valid (404).
    case badPath = "BadPath"
    /// The request method is not allowed for the path (405).
    case methodNotAllowed = "MethodNotAllowed"
    // 410
    /// The device token has expired (410).
    case expiredToken = "ExpiredToken"
    /// The device token is no longer active for the topic (410).
    case unregistered = "Unregistered"
    // 413
    /// The payload is larger than its push type allows (413).
    case payloadTooLarge = "PayloadTooLarge"
    // 429
    /// The connection's provider token is updated too often (429).
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    /// Too many requests to the same device token (429).
    case tooManyRequests = "TooManyRequests"
    // 500, 503
    /// An internal server error (500).
    case internalServerError = "InternalServerError"
    /// The service is unavailable (503).
    case serviceUnavailable = "ServiceUnavailable"
    /// The server is shutting down (503).
    case shutdown = "Shutdown"

    /// The HTTP status APNs answers this reason with.
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .badRequestPayload, .featureNotEnabled, .missingChannelId, .badChannelId,
            .channelNotRegistered, .badRequestParams, .missingPushType, .cannotCreateChannelConfig:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }
}
