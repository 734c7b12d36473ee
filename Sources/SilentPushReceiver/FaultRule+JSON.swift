import SilentPushCore

/// A fault rule as the admin API (`POST /v1/faults`) and the config file (`faults`) write it:
/// `{"match": {"device"?, "topic"?, "team"?, "keyId"?}, "fraction"?, "count"?, "from"?,
/// "until"?, "action": {"reason": R} | {"goaway": R, "afterStreams": N} | {"reset": true} |
/// {"delayMs": N}}`. Every number is range-checked; a wrong field is named in the message.
extension FaultRule {
    /// A wrong rule, with what to fix.
    package struct Invalid: Error {
        package let message: String
        init(_ message: String) { self.message = message }
    }

    static let fields = ["match", "fraction", "count", "from", "until", "action"]

    package init(json fields: [(String, JSONValue)]) throws(Invalid) {
        var match = Match()
        var fraction: Double?
        var count: Int?
        var from: DeviceInstant?
        var until: DeviceInstant?
        var action: FaultAction?
        for (key, value) in fields {
            switch (key, value) {
            case ("match", .object(let fields)): match = try Self.match(fields)
            case ("match", _): throw Invalid(#"match must be an object: {"device", "topic", "team", "keyId"}, each optional"#)
            case ("fraction", .double(let value)) where value > 0 && value <= 1: fraction = value
            case ("fraction", .int(1)): fraction = 1
            case ("fraction", _): throw Invalid("fraction must be a number above 0 and at most 1")
            case ("count", .int(let value)) where value >= 1 && value <= 1_000_000_000: count = Int(value)
            case ("count", _): throw Invalid("count must be a whole number from 1 to 1000000000")
            case ("from", .string(let text)) where AdminAPI.instant(text) != nil: from = AdminAPI.instant(text)
            case ("until", .string(let text)) where AdminAPI.instant(text) != nil: until = AdminAPI.instant(text)
            case ("from", _), ("until", _): throw Invalid("\(key) must be an ISO 8601 device time such as 2026-11-22T04:42:47Z")
            case ("action", .object(let fields)): action = try Self.action(fields)
            case ("action", _): throw Invalid(Self.actionShapes)
            default: throw Invalid("unknown field '\(key)' (fields: \(Self.fields.joined(separator: ", ")))")
            }
        }
        guard let action else { throw Invalid("give the rule's action: " + Self.actionShapes) }
        if let from, let until, until <= from { throw Invalid("until must be after from") }
        self.init(match: match, fraction: fraction, count: count, from: from, until: until, action: action)
    }

    static let actionShapes = #"action must be {"reason": R}, {"goaway": R, "afterStreams": N}, {"reset": true} or {"delayMs": N}"#

    /// The fields of a rule's `match`.
    private static let matchFields = ["device", "topic", "team", "keyId"]

    private static func match(_ fields: [(String, JSONValue)]) throws(Invalid) -> Match {
        var match = Match()
        for (key, value) in fields {
            // An unknown field is named as such whatever its value.
            guard Self.matchFields.contains(key) else {
                throw Invalid("unknown field 'match.\(key)' (fields: \(Self.matchFields.joined(separator: ", ")))")
            }
            guard case .string(let text) = value, !text.isEmpty else { throw Invalid("match.\(key) must be a non-empty string") }
            switch key {
            case "device":
                guard let token = AdminAPI.deviceToken(text) else {
                    throw Invalid("match.device must be a device token (\(APNsRequestValidator.deviceTokenShapeText))")
                }
                match.device = token
            case "topic": match.topic = text
            case "team": match.team = text
            default: match.keyID = text  // "keyId", the one field left
            }
        }
        return match
    }

    private static func action(_ fields: [(String, JSONValue)]) throws(Invalid) -> FaultAction {
        func reason(_ value: JSONValue, _ key: String) throws(Invalid) -> APNsReason {
            guard case .string(let text) = value, let reason = APNsReason(rawValue: text) else {
                throw Invalid("\(key) must be one of Apple's reasons, e.g. InternalServerError, ServiceUnavailable, TooManyRequests, Unregistered")
            }
            return reason
        }
        switch fields.map(\.0).sorted() {
        case ["reason"]: return .reason(try reason(fields[0].1, "action.reason"))
        case ["afterStreams", "goaway"], ["goaway"]:
            let goaway = try reason(fields.first { $0.0 == "goaway" }!.1, "action.goaway")
            var after = 0
            if let value = fields.first(where: { $0.0 == "afterStreams" })?.1 {
                guard case .int(let number) = value, number >= 0, number <= Int64(FaultAction.maximumAfterStreams) else {
                    throw Invalid("action.afterStreams must be a whole number from 0 to \(FaultAction.maximumAfterStreams)")
                }
                after = Int(number)
            }
            return .goAway(goaway, afterStreams: after)
        case ["reset"]:
            guard case .bool(true) = fields[0].1 else { throw Invalid("action.reset must be true") }
            return .reset
        case ["delayMs"]:
            let limit = FaultAction.maximumDelay.nanosecondCount / 1_000_000
            guard case .int(let milliseconds) = fields[0].1, milliseconds >= 0, milliseconds <= limit else {
                throw Invalid("action.delayMs must be a whole number from 0 to \(limit)")
            }
            return .delay(.milliseconds(milliseconds))
        default: throw Invalid(actionShapes)
        }
    }

    /// The rule as the admin API answers it.
    package var json: JSONValue {
        let action: JSONValue =
            switch self.action {
            case .reason(let reason): .object([("reason", .string(reason.rawValue))])
            case .goAway(let reason, let after): .object([("goaway", .string(reason.rawValue)), ("afterStreams", .int(Int64(after)))])
            case .reset: .object([("reset", .bool(true))])
            case .delay(let duration): .object([("delayMs", .int(duration.nanosecondCount / 1_000_000))])
            }
        return .object([
            ("id", .int(Int64(bitPattern: id))),
            (
                "match",
                .object([
                    ("device", .string(match.device)), ("topic", .string(match.topic)), ("team", .string(match.team)),
                    ("keyId", .string(match.keyID)),
                ])
            ),
            ("fraction", fraction.map(JSONValue.double) ?? .null), ("count", .int(remaining.map(Int64.init))),
            ("from", .string(from.map(AdminAPI.time))), ("until", .string(until.map(AdminAPI.time))), ("action", action),
            ("applied", .int(Int64(applied))),
        ])
    }
}
