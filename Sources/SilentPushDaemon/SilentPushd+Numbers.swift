import ArgumentParser
import SilentPushCore
import SilentPushReceiver

extension SilentPushd {
    /// The ranges of the number flags whose limits are this tool's own: the flag's help, its
    /// parse and its check read them here (the wake settings' are `WakeSettings`').
    static let threadsRange = 1...1024
    static let maxConnectionsRange = 1...FileDescriptorLimit.mostConnections

    /// A number flag's value: a whole number the type holds, or a line that names the flag
    /// and says what it takes (the parser's own line, which this tool prints without its
    /// prefix, says only that the value is invalid). Its range is checked with the other
    /// options.
    static func wholeNumber<Number: FixedWidthInteger>(_ text: String, flag: String, expected: String) throws -> Number {
        switch WholeNumberProblem.parse(text, as: Number.self) {
        case .success(let number): return number
        case .failure(let problem): throw ValidationError("\(flag) '\(text)' is \(problem.rawValue): give \(expected)")
        }
    }

    /// `wholeNumber` for a flag that takes `range`.
    static func wholeNumber<Number: FixedWidthInteger>(_ text: String, flag: String, in range: ClosedRange<Number>) throws -> Number {
        try wholeNumber(text, flag: flag, expected: WholeNumberProblem.describe(range))
    }
}
