/// A broadcast (`POST /4/broadcasts/apps/<bundleID>`) as APNs checks it: its headers first,
/// then its channel, then its payload. Each check refuses with Apple's reason.
public struct BroadcastRequest: Sendable, Equatable {
    /// `apns-channel-id`: the channel to publish on.
    public var channelID: ChannelID
    /// `apns-priority` (required on a broadcast: there is no default).
    public var priority: APNsPriority
    /// `apns-expiration` in seconds since the epoch; 0: one attempt, nothing stored.
    public var expiration: Int64

    /// The largest broadcast payload: "a maximum size of 5 KB (5,120 bytes)".
    public static let maximumPayloadSize = 5120

    /// A request already checked.
    public init(channelID: ChannelID, priority: APNsPriority, expiration: Int64) {
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
    }

    /// Reads the broadcast's headers: `DuplicateHeaders` when one comes twice;
    /// `MissingChannelId`, `BadChannelId`; `MissingPushType`, `InvalidPushType` (any spelling
    /// Apple's pages show of Live Activity is taken); `BadPriority` unless 10, 5 or 1;
    /// `BadExpirationDate` unless a whole number of seconds, 0 or more. All four are required.
    public init(headers source: some APNsHeaderSource) throws(APNsReason) {
        var values: [String?] = Array(repeating: nil, count: Field.allCases.count)
        var duplicate = false
        source.forEachHeader { name, value in
            guard let field = Field.named(name) else { return }
            if values[field.rawValue] != nil {
                duplicate = true
                return
            }
            values[field.rawValue] = String(decoding: value, as: UTF8.self)
        }
        if duplicate { throw .duplicateHeaders }
        let channelID = try ChannelID(requestHeader: values[Field.channelID.rawValue])
        guard let pushType = values[Field.pushType.rawValue], !pushType.isEmpty else { throw .missingPushType }
        guard ChannelConfiguration.pushTypeSpellings.contains(pushType) else { throw .invalidPushType }
        // Whole numbers as a push's headers take them (one rule: APNsRequestValidator.wholeNumber).
        guard let priorityText = values[Field.priority.rawValue], let number = APNsRequestValidator.wholeNumber(priorityText),
            let priority = APNsPriority(rawValue: Int(number))
        else { throw .badPriority }
        guard let expirationText = values[Field.expiration.rawValue], let expiration = APNsRequestValidator.wholeNumber(expirationText) else {
            throw .badExpirationDate
        }
        self.init(channelID: channelID, priority: priority, expiration: expiration)
    }

    /// Checks the request against its channel: a channel that stores no message takes only
    /// expiration 0 (`BadExpirationDate`: "For channels with a `No Messages Stored` storage
    /// policy, you can only specify a `0` expiration value").
    public func check(against channel: BroadcastChannel) throws(APNsReason) {
        if channel.configuration.storagePolicy == .noMessageStored, expiration != 0 { throw .badExpirationDate }
    }

    /// Checks the payload: `PayloadEmpty`, `PayloadTooLarge` past 5,120 bytes,
    /// `BadRequestPayload` unless a JSON object. What the payload says is the device's to
    /// judge.
    public static func checkPayload(_ body: [UInt8]) throws(APNsReason) {
        guard !body.isEmpty else { throw .payloadEmpty }
        guard body.count <= maximumPayloadSize else { throw .payloadTooLarge }
        _ = try body.withUnsafeBufferPointer { bytes throws(APNsReason) in try APNsPayload.parse(bytes) }
    }

    /// The headers a broadcast reads; each may come once. `apns-request-id` and `apns-id`
    /// are the endpoint's to read, but count as duplicates here too.
    private enum Field: Int, CaseIterable {
        case channelID, pushType, priority, expiration, requestID, apnsID, authorization

        var name: String {
            switch self {
            case .channelID: "apns-channel-id"
            case .pushType: "apns-push-type"
            case .priority: "apns-priority"
            case .expiration: "apns-expiration"
            case .requestID: "apns-request-id"
            case .apnsID: "apns-id"
            case .authorization: "authorization"
            }
        }

        static func named(_ bytes: UnsafeRawBufferPointer) -> Field? {
            allCases.first { $0.name.utf8.elementsEqual(bytes) }
        }
    }
}
