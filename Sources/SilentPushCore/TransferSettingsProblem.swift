/// A number in `TransferPolicy.Settings` a receiver cannot run with; the description names
/// the setting, its range and the flag that sets it.
package enum TransferSettingsProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case maximumPerApp(Int)
    case retryDelay(Duration)
    case maximumRetryDelay(Duration)
    case maximumRetryDelayBelowRetryDelay
    case resourceTimeout(Duration)
    case requestTimeout(Duration)

    package var description: String {
        typealias Settings = TransferPolicy.Settings
        func days(_ limit: Duration) -> String { "\(limit.components.seconds / 86_400) day(s)" }
        return switch self {
        case .maximumPerApp(let value):
            "transfers.maximumPerApp \(value): give from 1 to \(Settings.maximumCap) (--transfer-limit)"
        case .retryDelay(let value):
            "transfers.retryDelay \(value): give more than 0 and at most \(days(Settings.retryDelayLimit)) (--transfer-retry-delay)"
        case .maximumRetryDelay(let value):
            "transfers.maximumRetryDelay \(value): give more than 0 and at most \(days(Settings.maximumRetryDelayLimit)) (--transfer-max-retry-delay)"
        case .maximumRetryDelayBelowRetryDelay:
            "transfers.maximumRetryDelay must be at least transfers.retryDelay (--transfer-max-retry-delay)"
        case .resourceTimeout(let value):
            "transfers.resourceTimeout \(value): give more than 0 and at most \(days(Settings.resourceTimeoutLimit)) (--transfer-timeout)"
        case .requestTimeout(let value):
            "transfers.requestTimeout \(value): give more than 0 and at most \(days(Settings.requestTimeoutLimit)) (--transfer-request-timeout)"
        }
    }
}
