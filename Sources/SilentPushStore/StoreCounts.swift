import SilentPushCore

/// Totals over the store (the admin API's `GET /v1/stats`).
package struct StoreCounts: Sendable, Equatable {
    /// Pushes by fate.
    package var pushes: [String: Int]
    /// Dropped pushes by reason.
    package var dropped: [String: Int]
    /// Rejected pushes by Apple's reason.
    package var rejected: [String: Int]
    /// Fetch wakes by result; widget and control reloads by their kind (`widgets`, `controls`).
    package var wakes: [String: Int]

    /// What `GET /v1/stats` calls a push of `fate`: its fate's name, but `coalescedWaiting`
    /// for a coalesced push whose wake has not started. A Live Activity push (`ridesWake`
    /// false) rides none: replaced by a newer update, it is coalesced for good.
    package static func pushKey(_ fate: PushFate, ridesWake: Bool = true) -> String {
        fate.kind == .coalesced && fate.wakeID == nil && ridesWake ? "coalescedWaiting" : fate.name
    }

    /// What `GET /v1/stats` calls a fetch wake that ended with `result` (nil: running):
    /// `deadlineExceeded` apart from other failures.
    package static func wakeKey(_ result: FetchResult?) -> String {
        guard let result else { return "running" }
        return result.countedAs.rawValue
    }

    /// What `GET /v1/stats` calls a wake of `kind` that ended with `result`: a reload by its kind.
    package static func wakeKey(_ kind: WakeKind, _ result: FetchResult?) -> String {
        kind == .fetch ? wakeKey(result) : kind.rawValue
    }

    /// Counts `times` pushes of `fate`, and their reason when dropped or rejected.
    mutating func count(_ fate: PushFate, ridesWake: Bool = true, times: Int) {
        pushes[Self.pushKey(fate, ridesWake: ridesWake), default: 0] += times
        if let reason = fate.dropReason { dropped[reason.description, default: 0] += times }
        if fate.kind == .rejected { rejected[fate.rejection?.rawValue ?? "", default: 0] += times }
    }

    /// Counts `times` wakes of `kind` that ended with `result` (nil: running).
    mutating func countWake(kind: WakeKind, result: FetchResult?, times: Int) {
        wakes[Self.wakeKey(kind, result), default: 0] += times
    }
}
