/// What a Live Activity push (`apns-push-type: liveactivity`, or a broadcast) says, read as
/// ActivityKit reads it: the `aps` keys of Apple's "Starting and updating Live Activities
/// with ActivityKit push notifications". A payload APNs accepts but ActivityKit cannot use
/// is a `LiveActivityPayloadProblem`: the device drops the push and says why.
public struct LiveActivityPayload: Sendable, Equatable {
    /// `aps.event`.
    public enum Event: String, Sendable, CaseIterable {
        /// Starts an activity (push-to-start).
        case start
        /// Updates an activity's content.
        case update
        /// Ends an activity.
        case end
    }

    /// `aps.event`: start, update or end.
    public var event: Event
    /// `aps.timestamp`: "the current time in seconds since 1970", which orders updates.
    public var timestamp: DeviceInstant
    /// `aps.content-state` as sent (a JSON object); nil on an `end` without one, which keeps
    /// the content the activity shows.
    public var contentState: String?
    /// `aps.attributes-type` (a start's).
    public var attributesType: String?
    /// `aps.attributes` as sent (a start's JSON object).
    public var attributes: String?
    /// `aps.alert` is present.
    public var hasAlert: Bool
    /// `aps.stale-date`.
    public var staleDate: DeviceInstant?
    /// `aps.dismissal-date`.
    public var dismissalDate: DeviceInstant?
    /// `aps.relevance-score`.
    public var relevanceScore: Double?
    /// `aps.input-push-token: 1`: a start issues the new activity's update token.
    public var inputPushToken: Bool
    /// `aps.input-push-channel`: a start subscribes the new activity to this channel.
    public var inputPushChannel: ChannelID?

    /// A payload, field by field.
    public init(
        event: Event, timestamp: DeviceInstant, contentState: String?, attributesType: String? = nil, attributes: String? = nil,
        hasAlert: Bool = false, staleDate: DeviceInstant? = nil, dismissalDate: DeviceInstant? = nil, relevanceScore: Double? = nil,
        inputPushToken: Bool = false, inputPushChannel: ChannelID? = nil
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.attributesType = attributesType
        self.attributes = attributes
        self.hasAlert = hasAlert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
    }

    /// Why ActivityKit cannot use `bytes`; nil when it can.
    package static func problem(in bytes: [UInt8]) -> LiveActivityPayloadProblem? {
        if case .failure(let problem) = parse(bytes) { problem } else { nil }
    }

    /// Reads `bytes`, a payload APNs accepted (a JSON object): the payload, or the first
    /// problem ActivityKit would trip on.
    public static func parse(_ bytes: [UInt8]) -> Result<LiveActivityPayload, LiveActivityPayloadProblem> {
        var fields = Fields()
        do {
            try bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                try scanner.readObject { scanner, key in
                    guard key == "aps" else { return }
                    guard try scanner.peek() == .object else { throw LiveActivityPayloadProblem.noAps }
                    fields.hasAps = true
                    try scanner.readObject { scanner, key in try fields.read(key, &scanner) }
                }
            }
        } catch let problem as LiveActivityPayloadProblem {
            return .failure(problem)
        } catch {
            return .failure(.noAps)  // not JSON: APNs refuses such a payload before the device sees it
        }
        return fields.payload()
    }

    /// The `aps` members as read, before the rules between them are checked.
    private struct Fields {
        var hasAps = false
        var event: String?
        var timestamp: Int64?
        var contentState: String?
        var attributesType: String?
        var attributes: String?
        var hasAlert = false
        var staleDate: Int64?
        var dismissalDate: Int64?
        var relevanceScore: Double?
        var inputPushToken = false
        var inputPushChannel: ChannelID?

        mutating func read(_ key: String, _ scanner: inout JSONScanner) throws {
            switch key {
            case "event":
                guard try scanner.peek() == .string else { throw LiveActivityPayloadProblem.unknownEvent }
                event = try scanner.readString()
            case "timestamp": timestamp = try Self.seconds(&scanner, else: .badTimestamp)
            case "content-state":
                guard try scanner.peek() == .object else { throw LiveActivityPayloadProblem.badContentState }
                contentState = try scanner.readRawValue()
            case "attributes-type":
                guard try scanner.peek() == .string else { throw LiveActivityPayloadProblem.missingAttributesType }
                attributesType = try scanner.readString()
            case "attributes":
                guard try scanner.peek() == .object else { throw LiveActivityPayloadProblem.missingAttributes }
                attributes = try scanner.readRawValue()
            case "alert":
                hasAlert = true
                try scanner.skipValue()
            case "stale-date": staleDate = try Self.seconds(&scanner, else: .badStaleDate)
            case "dismissal-date": dismissalDate = try Self.seconds(&scanner, else: .badDismissalDate)
            case "relevance-score":
                guard try scanner.peek() == .number, let value = Double(try scanner.readNumberText()), value.isFinite else {
                    throw LiveActivityPayloadProblem.badRelevanceScore
                }
                relevanceScore = value
            case "input-push-token":
                // `1` asks for the token; anything else asks for nothing.
                inputPushToken = try scanner.peek() == .number && (try scanner.readNumberText()) == "1"
            case "input-push-channel":
                guard try scanner.peek() == .string, let id = ChannelID(header: try scanner.readString()) else {
                    throw LiveActivityPayloadProblem.badInputPushChannel
                }
                inputPushChannel = id
            default:
                try scanner.skipValue()
            }
        }

        /// A JSON number of seconds since 1970, within 1970 through 2262-04-11 (the last
        /// instant a device clock holds: later ones would all read as that one, and an update
        /// sent in 2300 would not be told from one of 2262).
        static func seconds(_ scanner: inout JSONScanner, else problem: LiveActivityPayloadProblem) throws -> Int64 {
            guard try scanner.peek() == .number, let seconds = NumericDate.seconds(String(try scanner.readNumberText())),
                seconds <= DeviceInstant.distantFuture.nanosecondsSinceEpoch / 1_000_000_000
            else {
                throw problem
            }
            return seconds
        }

        func payload() -> Result<LiveActivityPayload, LiveActivityPayloadProblem> {
            guard hasAps else { return .failure(.noAps) }
            guard let eventText = event else { return .failure(.missingEvent) }
            guard let event = Event(rawValue: eventText) else { return .failure(.unknownEvent) }
            guard let timestamp else { return .failure(.missingTimestamp) }
            if event != .end, contentState == nil { return .failure(.missingContentState) }
            if event == .start {
                guard attributesType != nil else { return .failure(.missingAttributesType) }
                guard attributes != nil else { return .failure(.missingAttributes) }
                guard hasAlert else { return .failure(.missingAlert) }
                if inputPushToken, inputPushChannel != nil { return .failure(.bothInputs) }
            }
            return .success(
                LiveActivityPayload(
                    event: event, timestamp: DeviceInstant(secondsSinceEpoch: timestamp), contentState: contentState,
                    attributesType: attributesType, attributes: attributes, hasAlert: hasAlert,
                    staleDate: staleDate.map(DeviceInstant.init(secondsSinceEpoch:)),
                    dismissalDate: dismissalDate.map(DeviceInstant.init(secondsSinceEpoch:)), relevanceScore: relevanceScore,
                    inputPushToken: inputPushToken, inputPushChannel: inputPushChannel))
        }
    }
}
