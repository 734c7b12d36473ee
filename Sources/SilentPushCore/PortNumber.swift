/// A TCP port written as text, read the same way by every address the project parses (a
/// listener, an APNs target, a transfer's URL, a PostgreSQL URL, pushsend's `--admin`).
package enum PortNumber {
    /// The port `text` names: one to five ASCII digits (no sign, no space) from 1 to 65535,
    /// or 0 too when `allowingZero` (a listener's "any free port"); nil otherwise.
    package static func parse(_ text: some StringProtocol, allowingZero: Bool = false) -> Int? {
        let digits = text.utf8
        guard (1...5).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (allowingZero ? 0...65535 : 1...65535).contains(value) ? value : nil
    }
}
