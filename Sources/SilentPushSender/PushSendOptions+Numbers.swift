import ArgumentParser

extension PushSendOptions {
    /// A number flag's value: a whole number the type holds, or a line that says what the
    /// flag takes (the parser's own says only that the value is invalid). Its range is
    /// checked with the other options, which name it.
    static func wholeNumber<Number: FixedWidthInteger>(_ text: String, expected: String) throws -> Number {
        if let number = Number(text) { return number }
        let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        let problem = !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) ? "out of range" : "not a whole number"
        throw ValidationError("\(problem): give \(expected)")
    }
}
