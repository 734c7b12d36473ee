/// RFC 7519's NumericDate, as a provider token's `iat` carries it: seconds since the epoch
/// as any JSON number (`1767225600`, `1767225600.25`, `1.7672256e9`) or as a string of one
/// (APNSwift sends `"1767225600"`). Python's APNs clients send `time.time()`, a fraction.
package enum NumericDate {
    /// The latest `iat` taken: 9999-12-31T23:59:59Z. Later, or before the epoch, is not a
    /// token anyone signed now.
    package static let latestSeconds: Int64 = 253_402_300_799

    /// Whole seconds (rounded down: claims are compared at second precision), or nil when
    /// `text` is not a JSON number or lies outside 1970 through 9999.
    package static func seconds(_ text: String) -> Int64? {
        if let whole = Int64(text) {
            return (0...latestSeconds).contains(whole) ? whole : nil
        }
        guard isJSONNumber(text.utf8), let value = Double(text), value.isFinite,
            value >= 0, value < Double(latestSeconds + 1)
        else { return nil }
        return Int64(value.rounded(.down))
    }

    /// `-? digits (. digits)? ([eE] [+-]? digits)?`, and nothing else (no `inf`, `nan`, hex).
    static func isJSONNumber(_ bytes: String.UTF8View) -> Bool {
        enum Part { case sign, minus, integer, fractionStart, fraction, exponentSign, exponentStart, exponent }
        var part = Part.sign
        for byte in bytes {
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            switch (part, byte) {
            case (.sign, UInt8(ascii: "-")): part = .minus
            case (.sign, _) where digit, (.minus, _) where digit, (.integer, _) where digit: part = .integer
            case (.integer, UInt8(ascii: ".")): part = .fractionStart
            case (.fractionStart, _) where digit, (.fraction, _) where digit: part = .fraction
            case (.integer, UInt8(ascii: "e")), (.integer, UInt8(ascii: "E")),
                (.fraction, UInt8(ascii: "e")), (.fraction, UInt8(ascii: "E")):
                part = .exponentSign
            case (.exponentSign, UInt8(ascii: "+")), (.exponentSign, UInt8(ascii: "-")): part = .exponentStart
            case (.exponentSign, _) where digit, (.exponentStart, _) where digit, (.exponent, _) where digit: part = .exponent
            default: return false
            }
        }
        return part == .integer || part == .fraction || part == .exponent
    }
}
