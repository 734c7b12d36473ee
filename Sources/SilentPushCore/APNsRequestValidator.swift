/// Checks an APNs request's headers and payload as APNs does, once the path is known to
/// be `/3/device/<token>` and the sender is authenticated (which settles the topic).
public struct APNsRequestValidator: Sendable {
    /// Refuse what APNs tolerates (priority 10 or an alert on a background push).
    public var strict: Bool

    /// A validator; `strict` refuses what the default mode accepts with a warning.
    public init(strict: Bool = false) {
        self.strict = strict
    }

    /// Device tokens are hex, 32 to 100 bytes.
    public static let deviceTokenHexLength = 64...200
    /// The shape a device token must have, as messages say it.
    package static let deviceTokenShapeText =
        "\(deviceTokenHexLength.lowerBound) to \(deviceTokenHexLength.upperBound) hex digits, an even number of them"
    /// Whether `token` has a device token's shape: an even number of hex digits, 64 to 200.
    public static func isValidDeviceToken(_ token: some StringProtocol) -> Bool {
        deviceTokenShape(token) != nil
    }

    /// A device token's shape in one pass over its bytes: nil when it is not one, else
    /// whether it has upper-case digits (the token is stored lower-case). Runs on every request.
    private static func deviceTokenShape(_ token: some StringProtocol) -> Bool? {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
            guard deviceTokenHexLength.contains(bytes.count), bytes.count % 2 == 0 else { return nil }
            var hasUpperCase = false
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "F"): hasUpperCase = true
                default: return nil
                }
            }
            return hasUpperCase
        }
        return token.withUTF8Bytes(scan)
    }

    /// Whether `topic` has a topic's shape: 1 to 255 visible ASCII characters other than `/`
    /// (a bundle id with any push-type suffix). A push's `apns-topic` and the admin API's
    /// paths are held to the same rule, so every app pushed to can be looked at.
    package static func isTopicShape(_ topic: some StringProtocol) -> Bool {
        isVisibleName(topic, maximumLength: 255)
    }

    /// Whether `text` is a bundle id as the channel and broadcast APIs name an app: a topic's
    /// shape with no push type's suffix (`TopicDisallowed` otherwise).
    package static func isBundleID(_ text: String) -> Bool {
        isTopicShape(text) && APNsPushType.alert.accepts(topic: text)
    }

    /// Whether `text` is 1 to `maximumLength` visible ASCII characters other than `/`: the
    /// shape of a topic, and of the names an admin API path carries.
    package static func isVisibleName(_ text: some StringProtocol, maximumLength: Int) -> Bool {
        // Over the bytes (`withUTF8Bytes`): every push's topic comes here.
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            bytes.count > 0 && bytes.count <= maximumLength && !bytes.contains { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "/") }
        }
        return text.withUTF8Bytes(scan)
    }

    /// A header's whole number: decimal digits only (no sign, no space), at most `Int64.max`.
    static func wholeNumber(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }

    /// `apns-collapse-id` is at most this many bytes.
    public static let maximumCollapseIDLength = 64

    /// Validates one request. Checks run in this order, so the first problem is the one
    /// reported: device token, collapse id, expiration, priority, push type, payload size,
    /// payload (empty, JSON object), push type against topic, then each type's own rules
    /// (background, liveactivity, widgets and controls, location, pushtotalk).
    public func validate(
        deviceToken: Substring, topic: String, headers: APNsHeaders, apnsID: String,
        body: [UInt8]
    ) throws(APNsReason) -> ValidatedPush {
        guard let hasUpperCase = Self.deviceTokenShape(deviceToken) else { throw .badDeviceToken }

        if let collapseID = headers.collapseID, collapseID.utf8.count > Self.maximumCollapseIDLength {
            throw .badCollapseId
        }

        var expiration: Int64?
        if let text = headers.expiration {
            guard let value = Self.wholeNumber(text) else { throw .badExpirationDate }
            expiration = value
        }

        var priority = APNsPriority.high
        if let text = headers.priority {
            guard let value = Self.wholeNumber(text), let parsed = APNsPriority(rawValue: Int(value)) else { throw .badPriority }
            priority = parsed
        }

        var declaredType: APNsPushType?
        if let text = headers.pushType {
            guard let type = APNsPushType(rawValue: text) else { throw .invalidPushType }
            declaredType = type
        }

        let cap = (declaredType ?? APNsPushType.suffixedType(of: topic) ?? .alert).maximumPayloadSize
        guard body.count <= cap else { throw .payloadTooLarge }
        let payload = try body.withUnsafeBufferPointer { bytes throws(APNsReason) in try APNsPayload.parse(bytes) }

        var warnings: [String] = []
        let pushType: APNsPushType
        if let declaredType {
            pushType = declaredType
        } else {
            pushType = Self.inferredType(topic: topic, payload: payload)
            warnings.append("apns-push-type missing: treated as \(pushType.rawValue)")
        }
        guard pushType.accepts(topic: topic) else { throw .invalidPushType }

        var neverWakesReason: DropReason?
        switch pushType {
        case .background:
            if priority == .high {
                // Apple calls this an error, yet APNs accepts it and the app is woken.
                if strict { throw .badPriority }
                warnings.append("priority 10 on a background push (Apple requires 5 or 1)")
            }
            if payload.hasAlert || payload.hasBadge || payload.hasSound {
                if strict { throw .invalidPushType }
                warnings.append("background push carries an alert, badge or sound")
            }
            if !payload.contentAvailable {
                neverWakesReason = .backgroundWithoutContentAvailable
            }
        case .liveactivity:
            // "Set the value for the apns-priority header field to 5 or 10."
            if priority == .low {
                if strict { throw .badPriority }
                warnings.append("priority 1 on a Live Activity push (Apple lists 5 or 10)")
            }
            if case .failure(let problem) = LiveActivityPayload.parse(body) { neverWakesReason = .liveActivityPayload(problem) }
        case .widgets, .controls:
            if !payload.contentChanged { neverWakesReason = .noContentChanged(pushType) }
        case .location:
            // "set notification apns-priority to 10; otherwise, use 5."
            if priority == .low {
                if strict { throw .badPriority }
                warnings.append("priority 1 on a location push (Apple lists 10 or 5)")
            }
        case .pushtotalk:
            // "Set the APNs priority to 10 to request immediate delivery, and set an expiration of 0."
            if priority != .high {
                if strict { throw .badPriority }
                warnings.append("priority \(priority.rawValue) on a pushtotalk push (Apple asks for 10)")
            }
            if let expiration, expiration != 0 {
                warnings.append("apns-expiration \(expiration) on a pushtotalk push (Apple asks for 0)")
            } else if expiration == nil {
                warnings.append("no apns-expiration on a pushtotalk push (Apple asks for 0; without one APNs stores it for an offline device)")
            }
        case .alert, .complication, .fileprovider, .mdm, .voip:
            break
        }

        return ValidatedPush(
            deviceToken: hasUpperCase ? deviceToken.lowercased() : String(deviceToken), topic: topic, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: headers.collapseID, apnsID: apnsID, payload: payload,
            body: body, warnings: warnings, neverWakesReason: neverWakesReason)
    }

    /// The type APNs clients assume without the header: what the topic's suffix says, else
    /// background for a content-available-only payload, else alert.
    static func inferredType(topic: String, payload: APNsPayload) -> APNsPushType {
        if let suffixed = APNsPushType.suffixedType(of: topic) { return suffixed }
        return payload.isBackgroundOnly ? .background : .alert
    }
}
