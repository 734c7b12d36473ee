import SilentPushCore
import SilentPushStore
import Synchronization

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
        guard
            advancing.withLock({ busy in
                if busy { return false }
                busy = true
                return true
            })
        else { throw .busy }
        defer { advancing.withLock { $0 = false } }

        let target = clock.now.advanced(by: duration)
        guard target < .distantFuture else { throw .outOfRange }
        var waited: Set<UInt64> = []
        var waitedTasks: Set<DeviceRecorder.TaskWait> = []
        while true {
            let reply = modifyStateAndRunActions { recorder, _ in
                let actions = recorder.advanceStep(toward: target, waited: waited, waitedTasks: waitedTasks)
                switch actions.reply {
                case .advance(.fired(let to)): clock.set(to)
                case .advance(.done): clock.set(target)
                default: break
                }
                return actions
            }
            guard case .advance(let step) = reply else { return target }
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
            case .waitTasks(let waits):
                let tasks = runningTasks(waits.map(\.runID))
                await withTaskGroup(of: Void.self) { group in
                    for task in tasks {
                        // Before its expiry, as long as its time (30 s at most); before its
                        // termination, its grace.
                        let expired = waits.contains { $0.runID == task.runID && $0.expired }
                        let limit = expired ? settings.taskExpirationGrace : min(task.timeLimit, settings.deadline)
                        group.addTask { await self.waitAtMost(limit) { await task.settled.wait() } }
                    }
                }
                waitedTasks.formUnion(waits)
            }
        }
    }

    /// Steps the recorder with `event`, handing it the completion its changes are committed
    /// with, and returns the event's reply once they are.
    @discardableResult
    func committing(
        _ event: @escaping (inout DeviceRecorder, DeviceInstant, @escaping PushStore.Completion) -> DeviceRecorder.Actions
    ) async throws -> DeviceRecorder.Reply {
        let answer = Mutex<DeviceRecorder.Reply>(.done)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // The event returns before this task goes on, however soon the commit resumes it.
            let reply = modifyStateAndRunActions { recorder, now in event(&recorder, now) { continuation.resume(with: $0) } }
            answer.withLock { $0 = reply }
        }
        return answer.withLock { $0 }
    }

    /// Sets `device`'s state: dropping or releasing the pushes waiting in its
    /// apps' slots. Returns once the change is committed.
    public func setDeviceState(_ new: DeviceState, for device: String) async throws {
        try await committing { recorder, now, completion in
            recorder.setDeviceState(new, for: device, now: now, completion: completion)
        }
    }

    /// The user opened `topic`'s app on `device` at `opened` (nil: now). An app not opened
    /// for a while is launched less, then not at all (`WakeSettings.appUsageThreshold`).
    /// Returns once the change is committed.
    public func setLastOpened(_ opened: DeviceInstant? = nil, device: String, topic: String) async throws {
        try await committing { recorder, now, completion in
            recorder.setLastOpened(opened ?? now, for: AppKey(device: device, topic: topic), now: now, completion: completion)
        }
    }

    /// Forgets when the app was last opened: its usage is unknown, which counts as in use.
    public func clearLastOpened(device: String, topic: String) async throws {
        try await committing { recorder, now, completion in
            recorder.setLastOpened(nil, for: AppKey(device: device, topic: topic), now: now, completion: completion)
        }
    }

    /// When the user last opened `topic`'s app on `device`, if known.
    public func lastOpened(device: String, topic: String) -> DeviceInstant? {
        inspect { $0.policy.lastOpened(AppKey(device: device, topic: topic)) }
    }

    /// Restarts `device`: no background launch starts during the warm-up (`--reboot-warmup`).
    /// Returns the warm-up's end, once what it changed is committed.
    @discardableResult
    public func reboot(_ device: String) async throws -> DeviceInstant {
        let now = clock.now
        try await committing { recorder, now, completion in
            recorder.reboot(device, now: now, completion: completion)
        }
        return now.advanced(by: settings.rebootWarmup)
    }

    /// Forgets `device` (nil: every device): what waits for it, its state, and every record of
    /// it in the store; running wakes and task runs are stopped. Returns once committed.
    public func forget(device: String?) async throws {
        try await committing { recorder, now, completion in recorder.forget(device, now: now, completion: completion) }
    }

    /// Every device the device side knows (it received a push for it, or its state was set),
    /// with the topics of its apps.
    public func knownDevices() -> [String: Set<String>] {
        inspect { recorder in
            var devices: [String: Set<String>] = [:]
            for app in recorder.policy.knownApps { devices[app.device, default: []].insert(app.topic) }
            for device in recorder.policy.devicesWithState where devices[device] == nil { devices[device] = [] }
            return devices
        }
    }

    /// `device`'s state as the policy holds it.
    public func deviceState(of device: String) -> DeviceState {
        inspect { $0.policy.deviceState(device) }
    }

    /// If a push of `priority` came now for `topic` on `device`: when it would wake the app,
    /// and what holds it until then. Changes nothing.
    public func forecast(device: String, topic: String, priority: APNsPriority = .normal) -> WakeForecast<DeviceInstant> {
        let now = clock.now
        return inspect { $0.policy.forecast(for: AppKey(device: device, topic: topic), priority: priority, now: now) }
    }

    /// Waits until no fetch is running (giving each at most `timeout` of real time) and
    /// every change so far is committed.
    public func settle(timeout: Duration) async {
        while true {
            let running = inspect { Array($0.running.keys) }
            if running.isEmpty { break }
            await waitForWakes(running, timeout: timeout)
            if inspect({ $0.running.keys.contains { running.contains($0) } }) { break }  // still running: timed out
        }
        // Task handlers that are done, or that finish within the timeout.
        let tasks = runningTasks()
        await withTaskGroup(of: Void.self) { group in
            for task in tasks { group.addTask { await self.waitAtMost(timeout) { await task.settled.wait() } } }
        }
        // Handlers of wakes cancelled at their deadline may still be unwinding.
        await waitAtMost(timeout) { await self.handlersIdle() }
        try? await store.flush()
    }

    /// Fetches running now.
    public var runningWakeCount: Int { inspect { $0.running.count } }

    /// Stops taking pushes and starting wakes, gives running fetches up to `grace` to
    /// answer, records those still running as failed (`deadlineExceeded` if past their
    /// deadline, else `shutdown`), and waits for every change to be committed. `run()` does
    /// this on graceful shutdown; a runtime that is not run may call it itself.
    public func shutdown(grace: Duration) async {
        var running: [UInt64] = []
        if case .stoppingWith(let wakes) = modifyStateAndRunActions({ recorder, _ in recorder.beginShutdown() }) { running = wakes }
        await waitForWakes(running, timeout: grace)
        modifyStateAndRunActions { recorder, now in
            var actions = recorder.cutRunning(now: now)
            actions.append(recorder.cutRunningTasks(now: now))
            return actions
        }
        endFetches()
        try? await store.flush()
    }
}
