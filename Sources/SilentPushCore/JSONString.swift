/// Writes a string as a JSON string literal (RFC 8259 §7): quotes, backslashes and control
/// characters escaped, everything else as is.
public enum JSONString {
    /// `value` quoted, appended to `text`.
    public static func append(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `value` quoted.
    public static func quoted(_ value: String) -> String {
        var text = ""
        append(value, to: &text)
        return text
    }
}
