import ArgumentParser
import SilentPushCore

extension PushSendOptions {
    /// A number flag's value: a whole number the type holds, or a line that says what the
    /// flag takes (the parser's own says only that the value is invalid). Its range is
    /// checked with the other options, which name it.
    package static func wholeNumber<Number: FixedWidthInteger>(_ text: String, expected: String) throws -> Number {
        switch WholeNumberProblem.parse(text, as: Number.self) {
        case .success(let number): return number
        case .failure(let problem): throw ValidationError("\(problem.rawValue): give \(expected)")
        }
    }
}
