import SilentPushCore
import SilentPushStore

/// Widget and control pushes: the reload policy decides, and each reload is recorded as a
/// wake of its own kind (`widgets`, `controls`) that starts and ends at once, runs no app
/// code and spends none of the device's background launches.
extension DeviceRecorder {
    /// A `widgets` or `controls` push with `content-changed`, recorded as `row`: it reloads
    /// its extension now, or waits (the daily reload budget, or the device offline), and a
    /// later one replaces it. `completion` runs once its row is committed.
    package mutating func receiveReload(
        _ row: consuming PushRecord, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying() }
        guard owns(row.deviceToken) else { return Self.replying(.notOwner) }
        if let refused = refusingLiveActivityToken(row, now: now) { return refused }
        var actions = Actions(completion: completion)
        actions.changes.append(.probe(at: 0))  // the push's row, once its fate is known
        let push = ReloadPolicy.Push(
            id: row.id, target: ReloadPolicy.Target(device: row.deviceToken, topic: row.topic),
            expiresAt: row.expiresAt.map(DeviceInstant.init(millisecondsSinceEpoch:)))
        know(row, into: &actions)
        var arriving: PushRecord? = consume row
        let online = policy.deviceState(DeviceKey(push.target.device)).network == .online
        record(reloads.receive(push, online: online, now: now), into: &actions, arriving: &arriving)
        if var row = arriving.take() {
            // For an offline device APNs takes it (keeps it, or gives it up at once past its
            // storage limit): the row says so, for its `why`.
            row.heldAtAPNs = !online && row.fate.kind != .dropped
            actions.changes[0] = .insertPush(row)
        }
        return finish(actions)
    }

    /// Puts back a reload push a restarted receiver found pending: decided again, as if it
    /// arrived now.
    package mutating func restoreReload(_ push: ReloadPolicy.Push, now: DeviceInstant) -> Actions {
        var actions = Actions()
        let online = policy.deviceState(DeviceKey(push.target.device)).network == .online
        record(reloads.receive(push, online: online, now: now), into: &actions)
        return finish(actions)
    }

    mutating func record(_ reloadActions: [ReloadAction], into actions: inout Actions) {
        var none: PushRecord?
        record(reloadActions, into: &actions, arriving: &none)
    }

    /// Turns the reload policy's actions into store changes: a reload is a wake, and the
    /// pushes it delivers take its id (the push in hand in `arriving`'s row).
    mutating func record(_ reloadActions: [ReloadAction], into actions: inout Actions, arriving: inout PushRecord?) {
        for action in reloadActions {
            switch action {
            case .reload(let push, let target, let at, let coalesced, _, _):
                let wakeID = policy.takeWakeID()
                let kind = WakeKind(reloadingTopic: target.topic)
                actions.changes.append(
                    .insertWake(
                        WakeRecord(
                            id: wakeID, deviceToken: target.device, topic: target.topic, pushID: push, generation: 0, startedAt: at,
                            deadline: at, finishedAt: at, kind: kind)))
                actions.settle(push, .delivered(by: wakeID), arriving: &arriving)
                actions.close(push, .delivered(by: wakeID), arriving: arriving)
                actions.metrics.reloaded(kind)
                actions.metrics.delivered += 1
                actions.metrics.coalesced += coalesced
            case .wait(let push, let why):
                actions.settle(push, .pending(why), arriving: &arriving)
            case .replaced(let held, let by, let atAPNs):
                // The arriving push heads the chain that records the coalescing.
                if arriving?.id == by { arriving?.replaced = held } else { actions.settle(held, .coalesced, arriving: &arriving) }
                if atAPNs { actions.changes.append(.setCoalescedByAPNs(push: held)) }
            case .expired(let push, let coalesced):
                actions.settle(push, .expired, arriving: &arriving)
                actions.close(push, .expired, arriving: arriving)
                actions.metrics.expired += 1 + coalesced
            case .appDeleted(let push, let coalesced):
                actions.settle(push, .dropped(.appDeleted), arriving: &arriving)
                actions.close(push, .dropped(.appDeleted), arriving: arriving)
                actions.metrics.dropped(.appDeleted, count: 1 + coalesced)
            }
        }
    }
}
