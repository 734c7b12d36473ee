/// A JSON value as the admin API and the config file read it, and the admin API writes it.
/// Rendering keeps field order (what a person reads first comes first); decoding keeps types
/// exact, so `"forceQuit": 1` is a wrong type rather than `true`.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// JSON text already checked, written as it is (a Live Activity's content-state, as sent:
    /// its members' order is the provider's).
    case raw(String)

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.raw(a), .raw(b)): a == b
        default: false
        }
    }

    /// A string, or null.
    package static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// A number, or null.
    package static func int(_ value: Int64?) -> JSONValue { value.map(JSONValue.int) ?? .null }

    /// The field `key` of an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    /// The JSON text.
    package var rendered: String {
        var text = ""
        render(into: &text)
        return text
    }

    private func render(into text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value): text += value.isFinite ? "\(value)" : "null"
        case .string(let value): JSONString.append(value, to: &text)
        case .raw(let value): text += value
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.render(into: &text)
            }
            text += "]"
        case .object(let fields):
            text += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { text += "," }
                JSONString.append(key, to: &text)
                text += ":"
                value.render(into: &text)
            }
            text += "}"
        }
    }

}
