import Foundation
import SilentPushCore

extension Receiver {
    /// What is wrong with the dates of `--tls-cert`'s certificate at `now` (seconds since the
    /// epoch), said as what clients will do; nil while it is valid. The receiver starts all
    /// the same: a client told to skip the check (`curl -k`) can still connect.
    package static func certificateDatesProblem(_ validity: ClosedRange<Int64>, file: String, now: Int64) -> String? {
        func date(_ seconds: Int64) -> String {
            ISO8601Timestamp.string(millisecondsSinceEpoch: seconds.multipliedReportingOverflow(by: 1000).partialValue)
        }
        if now > validity.upperBound {
            return "--tls-cert '\(file)' expired on \(date(validity.upperBound)): clients that check the server's certificate "
                + "refuse to connect; give a current one"
        }
        if now < validity.lowerBound {
            return "--tls-cert '\(file)' is not valid until \(date(validity.lowerBound)): clients that check the server's "
                + "certificate refuse to connect until then; check this machine's clock or give a current one"
        }
        return nil
    }
}
