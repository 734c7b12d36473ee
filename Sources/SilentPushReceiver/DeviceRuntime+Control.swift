import SilentPushCore
import SilentPushStore

/// Why the device clock could not be moved.
public enum DeviceClockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device runs on the system clock, which moves by itself.
    case notManual
    /// Another advance is under way.
    case busy
    /// The clock would pass the last time the device can represent (2262).
    case outOfRange

    public var description: String {
        switch self {
        case .notManual: "the device runs on the system clock; start silentpushd with --clock manual to move it"
        case .busy: "another clock advance is under way"
        case .outOfRange: "the device clock cannot go past 2262-04-11"
        }
    }
}

extension DeviceRuntime {
    /// Moves a manual clock forward by `duration`. Every timer inside the span fires at its
    /// exact device time, in order. Before the clock crosses a running wake's deadline, the
    /// wake's handler gets up to the deadline's length in real time to answer, so advancing
    /// never cuts short a handler that would have finished on a device; one that has not
    /// answered by then is cancelled at the deadline. Returns the new device time.
    @discardableResult
    public func advance(by duration: Duration) async throws(DeviceClockError) -> DeviceInstant {
        guard clock.mode == .manual else { throw .notManual }
        guard advancing.withLock({ busy in
            if busy { return false }
            busy = true
            return true
        }) else { throw .busy }
        defer { advancing.withLock { $0 = false } }

        let target = clock.now.advanced(by: duration)
        guard target < .distantFuture else { throw .outOfRange }
        var waited: Set<UInt64> = []
        while true {
            enum Step {
                case fired
                case wait([UInt64])
                case done
            }
            var effects: [Effect] = []
            let step = state.withLock { state -> Step in
                var changes: [StoreChange] = []
                defer { record(changes) }
                guard let next = state.policy.nextDeadline, next <= target else {
                    clock.set(target)
                    apply(state.policy.advance(to: target), to: &state, changes: &changes, effects: &effects)
                    return .done
                }
                let due = state.running.values.filter { $0.start.deadline <= next && !waited.contains($0.start.wakeID) }
                if !due.isEmpty { return .wait(due.map(\.start.wakeID)) }
                clock.set(next)
                apply(state.policy.advance(to: next), to: &state, changes: &changes, effects: &effects)
                return .fired
            }
            perform(effects)
            switch step {
            case .done:
                // Committed before answering, with the changes queued before it, so a restart
                // resumes from here.
                try? await store.write([.setManualClock(at: target.millisecondsSinceEpoch)])
                return target
            case .fired: continue
            case .wait(let wakes):
                await waitForWakes(wakes, timeout: settings.deadline)
                waited.formUnion(wakes)
            }
        }
    }

    /// Sets `device`'s state (SPEC §4): dropping or releasing the pushes waiting in its
    /// apps' slots. Returns once the change is committed.
    public func setDeviceState(_ new: DeviceState, for device: String) async throws {
        var effects: [Effect] = []
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                var changes: [StoreChange] = [.setDevice(token: device, state: new)]
                apply(state.policy.setDeviceState(new, for: device, now: clock.now), to: &state, changes: &changes, effects: &effects)
                store.write(changes) { continuation.resume(with: $0) }
            }
        }
        perform(effects)
        rearm()
    }

    /// `device`'s state as the policy holds it.
    public func deviceState(of device: String) -> DeviceState {
        state.withLock { $0.policy.deviceState(device) }
    }

    /// Waits until no fetch is running (giving each at most `timeout` of real time) and
    /// every change so far is committed.
    public func settle(timeout: Duration) async {
        while true {
            let running = state.withLock { Array($0.running.keys) }
            if running.isEmpty { break }
            await waitForWakes(running, timeout: timeout)
            if state.withLock({ $0.running.keys.contains { running.contains($0) } }) { break }  // still running: timed out
        }
        try? await store.write([])
    }

    /// Fetches running now.
    public var runningWakeCount: Int { state.withLock { $0.running.count } }

    /// Stops taking pushes and starting wakes, gives running fetches up to `grace` to
    /// answer, records those still running as failed (`deadlineExceeded` if past their
    /// deadline, else `shutdown`), and waits for every change to be committed.
    public func shutdown(grace: Duration) async {
        let running = state.withLock { state in
            state.stopping = true
            return Array(state.running.keys)
        }
        await waitForWakes(running, timeout: grace)
        let cut = state.withLock { state -> [Running] in
            let cut = Array(state.running.values)
            state.running = [:]
            let now = clock.now
            record(cut.map { running in
                // Timers no longer fire while stopping: a wake past its deadline overran.
                let overran = now >= running.start.deadline
                return .finishWake(
                    id: running.start.wakeID, finishedAt: min(now, running.start.deadline).millisecondsSinceEpoch,
                    result: "failed", reason: overran ? FetchResult.deadlineExceeded.reason : "shutdown")
            })
            return cut
        }
        perform(cut.map { .cancel($0) })
        try? await store.write([])
    }
}
