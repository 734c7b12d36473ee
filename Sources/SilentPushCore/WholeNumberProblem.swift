/// Why a number flag's text is not a value of the type the flag fills. The argument parser
/// says only that the value is invalid; a user needs to know whether to fix the digits or
/// the size, and each tool's line names the values the flag takes beside this.
package enum WholeNumberProblem: String, Error, Sendable {
    case notAWholeNumber = "not a whole number"
    /// Digits, with an optional sign, that `Number` cannot hold.
    case outOfRange = "out of range"

    /// `text` as a `Number`, or why it is not one.
    package static func parse<Number: FixedWidthInteger>(_ text: String, as type: Number.Type = Number.self) -> Result<Number, Self> {
        if let number = Number(text) { return .success(number) }
        let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        let isWhole = !digits.isEmpty && digits.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        return .failure(isWhole ? .outOfRange : .notAWholeNumber)
    }

    /// The values `range` holds, as a flag's help names them ("1 to 1000").
    package static func describe<Number: FixedWidthInteger>(_ range: ClosedRange<Number>) -> String {
        "\(range.lowerBound) to \(range.upperBound)"
    }
}
