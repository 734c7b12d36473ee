import SilentPushCore
/// A push's fate as the `pushes` table holds it, in its `fate`, `wake_id` and `reason`
/// columns (and `apns_storage`, read here): the one mapping between `PushFate` and SQL, both
/// ways. `reason` holds why a push was dropped or rejected, what holds a pending one
/// (`WaitReason.stored`), or what the fault rule that answered an injected one did; `wake_id`
/// holds that rule's id; `apns_storage` 1 marks a push APNs replaced while the device was
/// offline (`StoreChange.setCoalescedByAPNs` writes it), 2 one APNs held from its arrival
/// (`PushRecord.heldAtAPNs`, written with the row).
struct StoredFate: Equatable {
    var kind: PushFate.Kind
    var wakeID: Int64?
    var reason: String?
    var replacedAtAPNs = false
    /// The push that replaced this one in its slot, read for an expired push (the view's
    /// `replaced_by`): it expired with that push.
    var replacedBy: Int64?

    /// The columns for `fate`.
    init(_ fate: PushFate) {
        kind = fate.kind
        wakeID = (fate.wakeID ?? fate.faultRule).map { Int64(bitPattern: $0) }
        // A rejection's cause, when known, follows its reason on a line of its own.
        let rejection = fate.rejection.map { reason in fate.rejectionCause.map { reason.rawValue + "\n" + $0 } ?? reason.rawValue }
        reason = fate.dropReason?.description ?? rejection ?? fate.waitReason?.stored ?? fate.injection?.description
    }

    /// `apns_storage` as a new row holds it: 2 for a push APNs held from its arrival, else
    /// NULL.
    static func apnsStorage(heldAtAPNs: Bool) -> Int64? { heldAtAPNs ? 2 : nil }

    /// Whether `apns_storage` as read marks a push APNs held from its arrival.
    static func heldAtAPNs(apnsStorage: Int64?) -> Bool { apnsStorage == 2 }

    /// The columns as read; an unknown `fate` text reads as pending, and an unknown reason as
    /// none (a newer version's row).
    init(fate: String, wakeID: Int64?, reason: String?, apnsStorage: Int64? = nil, replacedBy: Int64? = nil) {
        kind = PushFate.Kind(rawValue: fate) ?? .pending
        self.wakeID = wakeID
        self.reason = reason
        replacedAtAPNs = apnsStorage == 1
        self.replacedBy = replacedBy
    }

    /// The fate the columns hold.
    var fate: PushFate {
        switch kind {
        case .pending: .pending(reason.flatMap(WaitReason.init(stored:)))
        case .delivered: wakeID.map { .delivered(by: UInt64(bitPattern: $0)) } ?? .delivered  // no wake: a Live Activity applied it
        case .coalesced: .coalesced(into: wakeID.map { UInt64(bitPattern: $0) }, byAPNs: replacedAtAPNs)
        case .expired: .expired(with: replacedBy.map { UInt64(bitPattern: $0) }, byAPNs: replacedAtAPNs)
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

extension StoredFate {
    /// The view every reader of pushes selects from: each `pushes` row with the fate it has
    /// now. A row left `pending` that a later push replaced in its slot (that push's
    /// `replaced` names it, found through `pushes_by_replaced`) is coalesced, waiting for
    /// its successor's wake (no wake id, no reason) until `closeGeneration` writes the wake.
    /// An `expired` row gets the push that replaced it as `replaced_by`: it expired with that
    /// push, not by its own time. The fate texts come from `PushFate.Kind`, the one mapping.
    ///
    /// Made by migration v26 (and `PostgresSchema`): a later change to it is a migration of
    /// its own.
    static let viewSQL = """
        CREATE VIEW push_fates AS
        SELECT pushes.id, pushes.apns_id, pushes.device_token, pushes.topic, pushes.push_type, pushes.priority,
            pushes.received_at, pushes.expires_at, pushes.collapse_id, pushes.payload, pushes.warnings,
            CASE WHEN pushes.fate = \(literal(.pending)) AND successor.id IS NOT NULL THEN \(literal(.coalesced)) ELSE pushes.fate END AS fate,
            pushes.wake_id,
            CASE WHEN pushes.fate = \(literal(.pending)) AND successor.id IS NOT NULL THEN NULL ELSE pushes.reason END AS reason,
            pushes.generation, pushes.replaced, pushes.apns_key, pushes.apns_storage,
            CASE WHEN pushes.fate = \(literal(.expired)) THEN successor.id END AS replaced_by
        FROM pushes LEFT JOIN pushes AS successor
            ON pushes.fate IN (\(literal(.pending)), \(literal(.expired))) AND successor.replaced = pushes.id
        """

    /// The view as migration v13 made it (before expired rows named their successor): that
    /// migration runs it as it did.
    static let firstViewSQL = """
        CREATE VIEW push_fates AS
        SELECT pushes.id, pushes.apns_id, pushes.device_token, pushes.topic, pushes.push_type, pushes.priority,
            pushes.received_at, pushes.expires_at, pushes.collapse_id, pushes.payload, pushes.warnings,
            CASE WHEN successor.id IS NULL THEN pushes.fate ELSE \(literal(.coalesced)) END AS fate,
            pushes.wake_id,
            CASE WHEN successor.id IS NULL THEN pushes.reason END AS reason,
            pushes.generation, pushes.replaced, pushes.apns_key, pushes.apns_storage
        FROM pushes LEFT JOIN pushes AS successor
            ON pushes.fate = \(literal(.pending)) AND successor.replaced = pushes.id
        """

    /// `kind`'s text as an SQL string literal (the raw values are plain words, no quotes).
    private static func literal(_ kind: PushFate.Kind) -> String {
        "'\(kind.rawValue)'"
    }
}
