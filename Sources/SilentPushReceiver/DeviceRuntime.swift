import Foundation
import Logging
import Synchronization
import SilentPushCore
import SilentPushStore

/// The device side (SPEC §4, §5): a `PushSink` that drives the pure `WakePolicy` on the
/// device clock, records every push, wake and device change in the store, and runs the
/// app's fetch handler for each wake under its deadline.
///
/// Every policy event runs under one lock, and its store changes are queued before the lock
/// is released, so the store sees them in the policy's order. Effects (starting and
/// cancelling handlers, arming the system-clock timer) are carried out after it.
public final class DeviceRuntime: PushSink, Sendable {
    /// The device clock.
    public let clock: DeviceClock
    /// Intervals, deadline, fetch cap.
    public let settings: WakeSettings
    /// The durable record.
    public let store: PushStore
    private let handler: any FetchHandler
    private let metrics: DeviceMetrics
    private let logger: Logger
    let state: Mutex<State>
    /// The next push's id: taken by the endpoint per request, before the push reaches the lock.
    private let nextPushID: Atomic<UInt64>
    let advancing = Mutex(false)
    private let timerQueue = DispatchQueue(label: "silentpush.device.timer")

    /// An app on a device, as the policy keys it.
    struct AppKey: WakeApp {
        var device: String
        var topic: String
    }

    typealias Policy = WakePolicy<AppKey, DeviceInstant>
    typealias Action = WakeAction<AppKey, DeviceInstant>
    typealias Start = WakeStart<AppKey, DeviceInstant>

    struct Running {
        var start: Start
        var task: Task<Void, Never>?
        /// Callers waiting for the wake to end (a manual-clock advance about to cross its deadline).
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    struct State {
        var policy: Policy
        var running: [UInt64: Running] = [:]
        var armedTimer: DeviceInstant?
        var nextWaiterToken: UInt64 = 0
        var stopping = false
        /// What the pending-slots gauge shows.
        var reportedPendingSlots = 0
    }

    /// What a locked step leaves to do once the lock is released.
    enum Effect {
        /// Start the wake's fetch; with its `Wake` when the push was in hand.
        case run(Start, Wake?)
        case cancel(Running)
    }

    init(store: PushStore, clock: DeviceClock, settings: WakeSettings, handler: any FetchHandler, metrics: DeviceMetrics, policy: Policy,
         nextPushID: UInt64, logger: Logger) {
        self.store = store
        self.clock = clock
        self.settings = settings
        self.handler = handler
        self.metrics = metrics
        self.logger = logger
        state = Mutex(State(policy: policy))
        self.nextPushID = Atomic(nextPushID)
    }

    // MARK: - PushSink

    public func takePushID() -> UInt64 {
        nextPushID.add(1, ordering: .relaxed).oldValue
    }

    public func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
        guard store.isWritable else {
            // Nothing reaches the policy that the store could not record; a probe finds out
            // when it can again.
            store.probeSoon()
            metrics.rejected(.serviceUnavailable)
            return completion(.failure(APNsRejection(.serviceUnavailable)))
        }
        var effects: [Effect] = []
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            let now = clock.now
            let expiresAt = DeviceInstant.expiry(ofAPNsExpiration: push.expiration, systemNow: DeviceClock.systemNow, deviceNow: now)
            var record = PushRecord(
                id: id, apnsID: push.apnsID, deviceToken: push.deviceToken, topic: push.topic, pushType: push.pushType.rawValue,
                priority: push.priority.rawValue, receivedAt: now.millisecondsSinceEpoch, expiresAt: expiresAt?.millisecondsSinceEpoch,
                collapseID: push.collapseID, payload: push.body, warnings: push.warnings, fate: .pending)
            var changes: [StoreChange] = []
            if let reason = Self.neverWakesReason(push) {
                record.fate = .dropped(reason: reason)
                metrics.dropped(reason)
                changes.append(.insertPush(record))
                apply(state.policy.advance(to: now), to: &state, changes: &changes, effects: &effects)
            } else {
                changes.append(.insertPush(record))  // written with its first fate below
                let incoming = IncomingPush(id: id, priority: push.priority, expiresAt: expiresAt)
                let actions = state.policy.receive(incoming, for: AppKey(device: push.deviceToken, topic: push.topic), now: now)
                var inserting: PushRecord? = record
                apply(actions, to: &state, changes: &changes, effects: &effects, inserting: &inserting)
                changes[0] = .insertPush(inserting ?? record)
            }
            logger.debug("push accepted", metadata: [
                "push.apns_id": "\(push.apnsID)", "device.token": Self.shortened(push.deviceToken), "app.topic": "\(push.topic)",
                "push.priority": "\(push.priority.rawValue)",
            ])
            store.write(changes) { [logger, metrics] result in
                switch result {
                case .success: metrics.accepted()
                case .failure(let error):
                    logger.debug("cannot record a push", metadata: ["push.apns_id": "\(push.apnsID)", "error": "\(error)"])
                }
                // Not recorded, so not accepted: 503, and the provider retries.
                completion(result.mapError { _ in APNsRejection(.serviceUnavailable) })
            }
            return true
        }
        guard queued else { return completion(.failure(APNsRejection(.shutdown))) }
        perform(effects)
        rearm()
    }

    public func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason) {
        let record = state.withLock { state -> PushRecord? in
            guard !state.stopping else { return nil }
            return PushRecord(
                id: id, apnsID: apnsID, deviceToken: deviceToken ?? "", topic: topic ?? "", pushType: "", priority: 0,
                receivedAt: clock.now.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil, payload: [], warnings: [],
                fate: .rejected(reason: reason.rawValue))
        }
        guard let record else { return }
        metrics.rejected(reason)
        logger.debug("push rejected", metadata: [
            "push.apns_id": "\(apnsID)", "push.reason": "\(reason.rawValue)",
            "device.token": deviceToken.map(Self.shortened) ?? "-",
        ])
        store.write([.insertPush(record)]) { _ in }
    }

    /// A device token as logs show it: enough to tell devices apart, not the whole token.
    static func shortened(_ token: String) -> Logger.MetadataValue {
        token.count > 12 ? "\(token.prefix(8))…" : "\(token)"
    }

    /// Why a push accepted by APNs can never start a background fetch.
    static func neverWakesReason(_ push: ValidatedPush) -> String? {
        if let reason = push.neverWakesReason { return reason }
        guard push.pushType == .background || push.pushType == .alert else {
            return "apns-push-type \(push.pushType.rawValue) does not start a background fetch"
        }
        return push.payload.contentAvailable ? nil : "no content-available: 1, so the app is not woken"
    }

    // MARK: - Actions

    /// Turns the policy's actions into store changes and effects.
    func apply(_ actions: [Action], to state: inout State, changes: inout [StoreChange], effects: inout [Effect]) {
        var none: PushRecord?
        apply(actions, to: &state, changes: &changes, effects: &effects, inserting: &none)
    }

    /// The same; the fate of `inserting`, a push not yet written, goes into its row instead
    /// of an update after it (one statement fewer per push).
    func apply(_ actions: [Action], to state: inout State, changes: inout [StoreChange], effects: inout [Effect],
               inserting: inout PushRecord?) {
        func settle(_ push: UInt64, _ fate: PushFate, generation: UInt32?) {
            if inserting?.id == push {
                inserting?.fate = fate
                if let generation { inserting?.generation = generation }
            } else {
                changes.append(.setFate(push: push, fate: fate, generation: generation))
            }
        }
        /// Closes the slot generation `head` waited last in, unless `head` is the push in
        /// hand and replaced none (nothing was coalesced before it).
        func close(_ head: UInt64, _ fate: PushFate) {
            if inserting?.id == head, inserting?.replaced == nil { return }
            changes.append(.closeGeneration(head: head, fate: fate))
        }
        defer {
            // Most pushes replace a waiting one: the gauge is set only when the count moves.
            if state.policy.pendingSlotCount != state.reportedPendingSlots {
                state.reportedPendingSlots = state.policy.pendingSlotCount
                metrics.pendingSlots(state.reportedPendingSlots)
            }
        }
        for action in actions {
            switch action {
            case .pending(let push, _, let generation):
                settle(push, .pending, generation: generation)
            case .coalesced(let push, _, let generation):
                // Only an arriving push replaces the one waiting: it heads the slot's chain,
                // which records the coalescing; the replaced push's row is left as it is
                // (its update rewrote an older page per commit: ~1 µs of the writer per push).
                if inserting != nil {
                    inserting?.replaced = push
                } else {
                    settle(push, .coalesced(wakeID: nil), generation: generation)
                }
            case .startWake(let start):
                changes.append(.insertWake(WakeRecord(
                    id: start.wakeID, deviceToken: start.app.device, topic: start.app.topic, pushID: start.push,
                    generation: start.generation, startedAt: start.startedAt.millisecondsSinceEpoch,
                    deadline: start.deadline.millisecondsSinceEpoch)))
                settle(start.push, .delivered(wakeID: start.wakeID), generation: nil)
                close(start.push, .delivered(wakeID: start.wakeID))
                state.running[start.wakeID] = Running(start: start)
                // The push in hand, with nothing coalesced, needs no read from the store.
                var wake: Wake?
                if let push = inserting, push.id == start.push, push.replaced == nil {
                    wake = Self.wake(start, delivering: push, coalesced: [])
                }
                effects.append(.run(start, wake))
                metrics.wakeStarted()
                metrics.fate("delivered")
                metrics.fate("coalesced", count: start.coalescedCount)
            case .expired(let push, _, _, let coalesced):
                settle(push, .expired, generation: nil)
                metrics.fate("expired", count: 1 + coalesced)
                close(push, .expired)
            case .dropped(let push, _, let reason, let generation, let coalesced):
                settle(push, .dropped(reason: reason), generation: nil)
                metrics.dropped(reason, count: 1 + coalesced)
                if generation != nil { close(push, .dropped(reason: reason)) }
            case .cancelWake(let wakeID, _):
                guard let running = state.running.removeValue(forKey: wakeID) else { continue }
                changes.append(.finishWake(
                    id: wakeID, finishedAt: running.start.deadline.millisecondsSinceEpoch,
                    result: FetchResult.deadlineExceeded.name, reason: FetchResult.deadlineExceeded.reason))
                effects.append(.cancel(running))
            }
        }
    }

    func perform(_ effects: [Effect]) {
        var effects = effects
        var next = 0
        while next < effects.count {
            let effect = effects[next]
            next += 1
            switch effect {
            case .run(let start, let wake):
                if let result = handler.immediateResult(topic: start.app.topic) {
                    // Ends as it starts: no task, no read of its push. A wake it frees a
                    // fetch slot for comes back as an effect, run by this loop.
                    let (recorded, more) = complete(start, result)
                    metrics.record(recorded, duration: .zero)
                    logger.debug("wake ended", metadata: [
                        "wake.id": "\(start.wakeID)", "wake.result": "\(recorded.name)", "wake.duration_ms": "0",
                        "device.token": Self.shortened(start.app.device),
                    ])
                    effects.append(contentsOf: more)
                    continue
                }
                let task = Task { await self.runWake(start, wake) }
                state.withLock { state in
                    if state.running[start.wakeID] != nil { state.running[start.wakeID]?.task = task }
                }
            case .cancel(let running):
                running.task?.cancel()
                for waiter in running.waiters.values { waiter.resume() }
            }
        }
    }

    /// Queues `changes`, logging a failure (nothing waits on these).
    func record(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        store.write(changes) { [logger] result in
            if case .failure(let error) = result { logger.error("cannot record a device change", metadata: ["error": "\(error)"]) }
        }
    }

    // MARK: - Wakes

    private func runWake(_ start: Start, _ ready: Wake?) async {
        let wake: Wake
        do {
            if let ready { wake = ready } else { wake = try await readWake(start) }
        } catch {
            logger.error("cannot read a wake's push", metadata: ["wake.id": "\(start.wakeID)", "error": "\(error)"])
            metrics.record(finish(start, .failed(reason: "store: \(error)")), duration: .zero)
            return
        }
        let began = ContinuousClock.now
        logger.debug("wake started", metadata: [
            "wake.id": "\(start.wakeID)", "push.apns_id": "\(wake.apnsID)", "device.token": Self.shortened(wake.deviceToken),
            "app.topic": "\(wake.topic)", "wake.coalesced": "\(wake.coalescedAPNsIDs.count)",
        ])
        let result = Task.isCancelled ? FetchResult.deadlineExceeded : await handler.fetch(wake)
        let recorded = finish(start, result)
        let duration = ContinuousClock.now - began
        metrics.record(recorded, duration: duration)
        logger.log(level: recorded == .deadlineExceeded ? .notice : .debug, "wake ended", metadata: [
            "wake.id": "\(start.wakeID)", "wake.result": "\(recorded.name)", "wake.reason": "\(recorded.reason ?? "-")",
            "wake.duration_ms": "\(duration.nanosecondCount / 1_000_000)", "device.token": Self.shortened(wake.deviceToken),
        ])
    }

    /// The wake's push and the apns-ids coalesced into it, from the store.
    private func readWake(_ start: Start) async throws -> Wake {
        // The wake's own changes are queued; once they are committed its push and the
        // pushes coalesced into it are readable.
        try await store.write([])
        guard let (push, coalesced) = try store.delivery(push: start.push, wakeID: start.wakeID) else {
            throw WakeReadError(push: start.push)
        }
        return Self.wake(start, delivering: push, coalesced: coalesced)
    }

    /// What the handler gets for `start`, which delivers `push`.
    private static func wake(_ start: Start, delivering push: PushRecord, coalesced: [String]) -> Wake {
        Wake(
            id: start.wakeID, deviceToken: start.app.device, topic: start.app.topic, apnsID: push.apnsID,
            payload: push.payload, priority: APNsPriority(rawValue: push.priority) ?? .high, coalescedAPNsIDs: coalesced,
            startedAt: start.startedAt.millisecondsSinceEpoch, deadline: start.deadline.millisecondsSinceEpoch)
    }

    /// The handler answered; a wake already cancelled at its deadline ignores it. Returns
    /// the result the wake ended with.
    private func finish(_ start: Start, _ result: FetchResult) -> FetchResult {
        let (recorded, effects) = complete(start, result)
        perform(effects)
        rearm()
        return recorded
    }

    /// Records the handler's answer; returns the result the wake ended with and what the
    /// policy's next steps leave to perform.
    private func complete(_ start: Start, _ result: FetchResult) -> (FetchResult, [Effect]) {
        var effects: [Effect] = []
        let (recorded, waiters) = state.withLock { state -> (FetchResult, [CheckedContinuation<Void, Never>]) in
            guard state.running[start.wakeID] != nil else { return (.deadlineExceeded, []) }
            let now = clock.now
            if state.stopping {
                // Shutting down: record the answer, but start nothing new; what waits stays
                // pending in the store for the next run.
                let running = state.running.removeValue(forKey: start.wakeID)
                record([.finishWake(id: start.wakeID, finishedAt: now.millisecondsSinceEpoch, result: result.name, reason: result.reason)])
                return (result, running.map { Array($0.waiters.values) } ?? [])
            }
            var changes: [StoreChange] = []
            let (accepted, actions) = state.policy.fetchCompleted(wakeID: start.wakeID, app: start.app, now: now)
            var waiters: [CheckedContinuation<Void, Never>] = []
            if accepted, let running = state.running.removeValue(forKey: start.wakeID) {
                changes.append(.finishWake(id: start.wakeID, finishedAt: now.millisecondsSinceEpoch, result: result.name, reason: result.reason))
                waiters = Array(running.waiters.values)
            }
            apply(actions, to: &state, changes: &changes, effects: &effects)
            record(changes)
            return (accepted ? result : .deadlineExceeded, waiters)
        }
        for waiter in waiters { waiter.resume() }
        return (recorded, effects)
    }

    /// Waits until each of `wakes` ends, or `timeout` of real time passes for it; in parallel.
    func waitForWakes(_ wakes: [UInt64], timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for wake in wakes { group.addTask { await self.waitForWake(wake, timeout: timeout) } }
        }
    }

    /// Waits until wake `wakeID` ends, or `timeout` of real time passes.
    func waitForWake(_ wakeID: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wakeEnded(wakeID) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func wakeEnded(_ wakeID: UInt64) async {
        let token = state.withLock { state in
            state.nextWaiterToken += 1
            return state.nextWaiterToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { state -> Bool in
                    guard state.running[wakeID] != nil, !Task.isCancelled else { return false }
                    state.running[wakeID]?.waiters[token] = continuation
                    return true
                }
                if !registered { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.running[wakeID]?.waiters.removeValue(forKey: token) }?.resume()
        }
    }

    // MARK: - Timers

    /// On the system clock, makes sure a timer fires at the policy's next deadline.
    func rearm() {
        guard clock.mode == .system else { return }
        let at = state.withLock { state -> DeviceInstant? in
            guard let next = state.policy.nextDeadline else { return nil }
            if let armed = state.armedTimer, armed <= next { return nil }
            state.armedTimer = next
            return next
        }
        guard let at else { return }
        // At most an hour ahead: a timer that fires early re-arms for what is still due.
        let delay = min(max(.zero, DeviceClock.systemNow.duration(to: at)), .seconds(3600))
        timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay.nanosecondCount))) {
            self.timerFired(at)
        }
    }

    private func timerFired(_ at: DeviceInstant) {
        var effects: [Effect] = []
        state.withLock { state in
            if state.armedTimer == at { state.armedTimer = nil }
            guard !state.stopping else { return }
            var changes: [StoreChange] = []
            apply(state.policy.advance(to: clock.now), to: &state, changes: &changes, effects: &effects)
            record(changes)
        }
        perform(effects)
        rearm()
    }
}

/// A wake's push was not in the store.
struct WakeReadError: Error, CustomStringConvertible {
    let push: UInt64
    var description: String { "push \(push) is missing from the store" }
}
