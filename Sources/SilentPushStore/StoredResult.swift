import SilentPushCore

/// A fetch result as the `wakes` table holds it, in its `result` and `reason` columns: the
/// one mapping between `FetchResult` and SQL, both ways. `result` names the kind: `newData`,
/// `noData`, `failed` (a handler's failure, its words in `reason`), or the receiver's own
/// ending, `deadlineExceeded`, `shutdown` or `interrupted` (no `reason`), or `killed` (the
/// `AppKill` in `reason`), so no handler's words read back as the receiver's or the device's.
package struct StoredResult: Equatable {
    var result: String
    var reason: String?

    /// The columns for `fetchResult`.
    init(_ fetchResult: FetchResult) {
        switch fetchResult {
        case .newData: (result, reason) = ("newData", nil)
        case .noData: (result, reason) = ("noData", nil)
        case .failed(let reason): (result, self.reason) = ("failed", reason)
        case .deadlineExceeded: (result, reason) = ("deadlineExceeded", nil)
        case .shutdown: (result, reason) = ("shutdown", nil)
        case .interrupted: (result, reason) = ("interrupted", nil)
        case .killed(let cause): (result, reason) = ("killed", cause.rawValue)
        }
    }

    init(result: String, reason: String?) {
        self.result = result
        self.reason = reason
    }

    /// The result the columns hold; nil for a `result` this version does not know (a newer
    /// version's row).
    var fetchResult: FetchResult? {
        switch result {
        case "newData": .newData
        case "noData": .noData
        case "failed": .failed(reason: reason ?? "failed")
        case "deadlineExceeded": .deadlineExceeded
        case "shutdown": .shutdown
        case "interrupted": .interrupted
        // A cause this version does not know (a newer one's) still reads as a failure.
        case "killed": reason.flatMap(AppKill.init(rawValue:)).map(FetchResult.killed) ?? .failed(reason: "killed: \(reason ?? "")")
        default: nil
        }
    }

    /// The columns of `result`, or none (a wake still running).
    static func columns(_ result: FetchResult?) -> (result: String?, reason: String?) {
        guard let result else { return (nil, nil) }
        let stored = StoredResult(result)
        return (stored.result, stored.reason)
    }

    /// The result of a row's columns; nil for a running wake, or a `result` this version does not know.
    package static func read(result: String?, reason: String?) -> FetchResult? {
        result.flatMap { StoredResult(result: $0, reason: reason).fetchResult }
    }
}
