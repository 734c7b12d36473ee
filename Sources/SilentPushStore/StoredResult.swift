import SilentPushCore

/// A fetch result as the `wakes` table holds it, in its `result` and `reason` columns: the
/// one mapping between `FetchResult` and SQL, both ways. `result` names the kind: `newData`,
/// `noData`, `failed` (a handler's failure, its words in `reason`), or the receiver's own
/// ending, `deadlineExceeded`, `shutdown` or `interrupted` (no `reason`), or `killed` (the
/// `AppKill` in `reason`), so no handler's words read back as the receiver's or the device's.
package struct StoredResult: Equatable {
    var result: String
    var reason: String?

    /// The columns for `fetchResult`: its kind's name, and the data the kind carries.
    init(_ fetchResult: FetchResult) {
        result = fetchResult.kind.rawValue
        switch fetchResult {
        case .newData, .noData, .deadlineExceeded, .shutdown, .interrupted: reason = nil
        case .failed(let reason): self.reason = reason
        case .killed(let cause): reason = cause.rawValue
        }
    }

    init(result: String, reason: String?) {
        self.result = result
        self.reason = reason
    }

    /// The result the columns hold; nil for a `result` this version does not know (a newer
    /// version's row).
    var fetchResult: FetchResult? {
        switch FetchResult.Kind(rawValue: result) {
        case .newData?: .newData
        case .noData?: .noData
        case .failed?: .failed(reason: reason ?? result)
        case .deadlineExceeded?: .deadlineExceeded
        case .shutdown?: .shutdown
        case .interrupted?: .interrupted
        // A cause this version does not know (a newer one's) still reads as a failure.
        case .killed?: reason.flatMap(AppKill.init(rawValue:)).map(FetchResult.killed) ?? .failed(reason: "\(result): \(reason ?? "")")
        case nil: nil
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
