/// What the receiver needs from a notification payload: whether it is a silent push, what
/// `aps` carries, and the top-level custom keys. The whole document is validated as JSON;
/// nested custom values are checked but not kept.
public struct APNsPayload: Sendable, Equatable {
    /// `aps.content-available` is the number 1.
    public var contentAvailable: Bool
    /// `aps.alert` is present.
    public var hasAlert: Bool
    /// `aps.badge` is present.
    public var hasBadge: Bool
    /// `aps.sound` is present.
    public var hasSound: Bool
    /// The payload has an `aps` dictionary.
    public var hasAps: Bool
    /// `aps.content-changed` is `true` (what a `widgets` or `controls` push carries).
    public var contentChanged = false
    /// `aps.event` is present (what a Live Activity push carries).
    public var hasEvent = false
    /// Top-level keys other than `aps`, in order, with their value as text when it is a
    /// scalar (strings unescaped, numbers as written) and nil for objects, arrays and null.
    public var customValues: [(key: String, value: String?)]

    /// A silent push: `content-available: 1` and no alert, badge or sound.
    public var isBackgroundOnly: Bool { contentAvailable && !hasAlert && !hasBadge && !hasSound }

    /// The text value of the top-level key `key`, if it is a scalar.
    public func customValue(_ key: String) -> String? {
        customValues.first { $0.key == key }?.value ?? nil
    }

    /// Parses `bytes`: PayloadEmpty when there are none, BadRequestPayload unless they are a
    /// JSON object (the size cap is checked by the caller, which knows the push type).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(APNsReason) -> APNsPayload {
        guard !bytes.isEmpty else { throw .payloadEmpty }
        var payload = APNsPayload(contentAvailable: false, hasAlert: false, hasBadge: false, hasSound: false, hasAps: false, customValues: [])
        do {
            var scanner = JSONScanner(bytes)
            guard try scanner.peek() == .object else { throw APNsReason.badRequestPayload }
            try scanner.readObjectKeys { scanner, key in
                if key == "aps", try scanner.peek() == .object {
                    payload.hasAps = true
                    try scanner.readObjectKeys { scanner, apsKey in
                        switch apsKey {
                        case "content-available":
                            payload.contentAvailable = try scanner.peek() == .number && (try scanner.readNumberText()) == "1"
                        case "alert": payload.hasAlert = true
                        case "badge": payload.hasBadge = true
                        case "sound": payload.hasSound = true
                        case "content-changed": payload.contentChanged = try scanner.peek() == .bool && (try scanner.readBool())
                        case "event": payload.hasEvent = true
                        default: break
                        }
                    }
                } else {
                    payload.customValues.append((key.string, try scanner.readScalarText()))
                }
            }
            try scanner.expectEnd()
        } catch {
            throw .badRequestPayload
        }
        return payload
    }

    public static func == (lhs: APNsPayload, rhs: APNsPayload) -> Bool {
        lhs.contentAvailable == rhs.contentAvailable && lhs.hasAlert == rhs.hasAlert && lhs.hasBadge == rhs.hasBadge
            && lhs.hasSound == rhs.hasSound && lhs.hasAps == rhs.hasAps && lhs.contentChanged == rhs.contentChanged && lhs.hasEvent == rhs.hasEvent
            && lhs.customValues.elementsEqual(rhs.customValues) { $0.key == $1.key && $0.value == $1.value }
    }
}
