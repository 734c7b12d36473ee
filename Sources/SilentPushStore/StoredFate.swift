import SilentPushCore
/// A push's fate as the `pushes` table holds it, in its `fate`, `wake_id` and `reason`
/// columns: the one mapping between `PushFate` and SQL, both ways. `reason` holds why a
/// push was dropped or rejected, what holds a pending one (`WaitReason.stored`), or what the
/// fault rule that answered an injected one did; `wake_id` holds that rule's id.
struct StoredFate: Equatable {
    var kind: PushFate.Kind
    var wakeID: Int64?
    var reason: String?

    /// The columns for `fate`.
    init(_ fate: PushFate) {
        kind = fate.kind
        wakeID = (fate.wakeID ?? fate.faultRule).map { Int64(bitPattern: $0) }
        // A rejection's cause, when known, follows its reason on a line of its own.
        let rejection = fate.rejection.map { reason in fate.rejectionCause.map { reason.rawValue + "\n" + $0 } ?? reason.rawValue }
        reason = fate.dropReason?.description ?? rejection ?? fate.waitReason?.stored ?? fate.injection?.description
    }

    /// The columns as read; an unknown `fate` text reads as pending, and an unknown reason as
    /// none (a newer version's row).
    init(fate: String, wakeID: Int64?, reason: String?) {
        kind = PushFate.Kind(rawValue: fate) ?? .pending
        self.wakeID = wakeID
        self.reason = reason
    }

    /// The fate the columns hold.
    var fate: PushFate {
        switch kind {
        case .pending: .pending(reason.flatMap(WaitReason.init(stored:)))
        case .delivered: .delivered(by: UInt64(bitPattern: wakeID ?? 0))
        case .coalesced: .coalesced(into: wakeID.map { UInt64(bitPattern: $0) })
        case .expired: .expired
        case .dropped: reason.flatMap(DropReason.init(description:)).map(PushFate.dropped) ?? .droppedForUnknownReason
        case .rejected:
            reason.flatMap { text in
                let lines = text.split(separator: "\n", maxSplits: 1)
                return lines.first.flatMap { APNsReason(rawValue: String($0)) }.map {
                    PushFate.rejected($0, cause: lines.dropFirst().first.map(String.init))
                }
            } ?? .rejectedForUnknownReason
        case .injected:
            reason.flatMap(FaultAction.init(description:)).map { PushFate.injected(by: UInt64(bitPattern: wakeID ?? 0), $0) }
                ?? .injectedForUnknownAction(rule: wakeID.map { UInt64(bitPattern: $0) })
        }
    }
}
