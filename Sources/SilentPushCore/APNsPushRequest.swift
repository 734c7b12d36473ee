/// One push as a provider sends it: the path and the header fields, built
/// without any network so that what goes to Apple can be checked in a test.
public struct APNsPushRequest: Sendable, Equatable {
    /// The device token, in hex, as the path carries it.
    public var deviceToken: String
    /// `apns-topic`.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// `apns-priority`; nil: not sent.
    public var priority: APNsPriority?
    /// `apns-expiration`: seconds since the epoch, 0 for now-or-never.
    public var expiration: Int64?
    /// `apns-collapse-id`; nil: not sent.
    public var collapseID: String?
    /// `apns-id`, a canonical UUID; nil: not sent (APNs makes one).
    public var apnsID: String?

    /// A request.
    public init(
        deviceToken: String, topic: String, pushType: APNsPushType, priority: APNsPriority? = nil,
        expiration: Int64? = nil, collapseID: String? = nil, apnsID: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// `/3/device/<token>`.
    public var path: String { "/3/device/\(deviceToken)" }

    /// The header fields, in the order sent; `authorization` carries a provider token
    /// (nil with certificate auth).
    public func headers(providerToken: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let providerToken { headers.append(("authorization", "bearer \(providerToken)")) }
        headers.append(("apns-topic", topic))
        headers.append(("apns-push-type", pushType.rawValue))
        if let priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        return headers
    }

    /// The push type a provider means when it names none: liveactivity for a payload with
    /// `aps.event`, widgets for one whose `aps` only says `content-changed`, background for
    /// one that is only `content-available: 1`, alert otherwise.
    public static func defaultPushType(for payload: APNsPayload) -> APNsPushType {
        if payload.hasEvent { return .liveactivity }
        if payload.contentChanged, !payload.contentAvailable, !payload.hasAlert, !payload.hasBadge, !payload.hasSound { return .widgets }
        return payload.isBackgroundOnly ? .background : .alert
    }

    /// What APNs would refuse, or a silent push could not do, checked before sending; nil
    /// when the payload is fine. The message says what to fix.
    public static func payloadProblem(_ bytes: [UInt8], pushType: APNsPushType) -> String? {
        let payload: APNsPayload
        do {
            payload = try bytes.withUnsafeBufferPointer { buffer throws(APNsReason) in try APNsPayload.parse(buffer) }
        } catch {
            return bytes.isEmpty ? "the payload is empty" : "the payload is not a JSON object (\(whyNotAnObject(bytes)))"
        }
        if bytes.count > pushType.maximumPayloadSize {
            let article = pushType.rawValue.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            return "the payload is \(bytes.count) bytes; APNs takes at most \(pushType.maximumPayloadSize) for \(article) \(pushType.rawValue) push"
        }
        if pushType == .background, payload.hasAlert || payload.hasBadge || payload.hasSound {
            return "a background push must not carry an alert, badge or sound"
        }
        return nil
    }

    /// What is wrong with a payload APNs would not read as a JSON object: where reading
    /// stopped, or what it is instead.
    static func whyNotAnObject(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return "it starts with a UTF-8 byte order mark: save it without one" }
        do {
            switch try JSONValue.parse(bytes) {
            case .object, .raw: return "APNs would not read it"
            case .array: return "it is a JSON array"
            case .string: return "it is a JSON string"
            case .int, .double: return "it is a JSON number"
            case .bool: return "it is a JSON boolean"
            case .null: return "it is JSON null"
            }
        } catch .duplicateKey(let key, let offset) {
            return "it names \"\(key)\" twice (at byte \(offset))"
        } catch .tooDeep(let offset) {
            return "it nests objects and arrays more than \(JSONScanner.maximumDepth) deep (at byte \(offset))"
        } catch {
            return "it is not JSON: reading stopped at byte \(error.offset)"
        }
    }
}
