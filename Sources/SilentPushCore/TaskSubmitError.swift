/// Why `BGTaskScheduler.submit(_:)` refused a request: Apple's `BGTaskScheduler.Error.Code`
/// (raw values: its case names; ``code``: its numbers).
public enum TaskSubmitError: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// Background App Refresh is off (for the app or the device): no background work can be scheduled.
    case unavailable
    /// Already as many pending requests of that kind as iOS allows: 1 refresh, 10 processing.
    case tooManyPendingTaskRequests
    /// The identifier is not in the app's `BGTaskSchedulerPermittedIdentifiers`, or the
    /// app lacks the kind's background mode.
    case notPermitted
    /// A continued task submitted with the `fail` strategy could not start at once.
    case immediateRunIneligible

    /// `BGTaskScheduler.Error.Code`'s raw value.
    public var code: Int {
        switch self {
        case .unavailable: 1
        case .tooManyPendingTaskRequests: 2
        case .notPermitted: 3
        case .immediateRunIneligible: 4
        }
    }

    public var description: String {
        switch self {
        case .unavailable: "unavailable: Background App Refresh is off"
        case .tooManyPendingTaskRequests: "tooManyPendingTaskRequests: at most 1 refresh and 10 processing requests may be pending"
        case .notPermitted: "notPermitted: the identifier is not declared in the app's permitted identifiers, or its background mode is missing"
        case .immediateRunIneligible: "immediateRunIneligible: the continued task could not start now (strategy fail)"
        }
    }
}
