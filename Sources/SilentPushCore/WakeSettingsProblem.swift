/// A number of `WakeSettings` outside the range its flag takes: which, what it was, and what
/// to give instead.
package struct WakeSettingsProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The setting's name (`deadline`, `appUsageFactors.week`).
    package let setting: String
    /// Its value, as Swift prints it.
    package let value: String
    /// The range it must be in, in words.
    package let expected: String
    /// The flag that sets it, if one does.
    package let flag: String?

    package var description: String {
        "wakeSettings.\(setting) \(value): give \(expected)" + (flag.map { " (\($0))" } ?? "")
    }
}
