import SilentPushCore
import SilentPushStore

extension DeviceControl {
    /// Moves a manual clock forward by `duration`. Every timer inside the span fires at its
    /// exact device time, in order. Before the clock moves on from a running wake, its handler
    /// gets up to the deadline's length in real time to answer, so advancing never cuts short
    /// a handler that would have finished on a device, and a quick one answers at the device
    /// time it started; one that has not answered by then is cancelled, and its wake ends at
    /// its deadline `failed` (`deadlineExceeded`) whatever the handler says after. A task
    /// run's handler likewise gets its run's time limit, then the grace before its
    /// termination. A transfer try a timer started gets up
    /// to `transferTryWait` to end before the clock moves on, so a retry schedule plays out
    /// in one move. Returns the new device time.
    ///
    /// Each step is one event of the executor; the clock moves after its lock is released
    /// (the recorder steps every later event at the time reached meanwhile).
    @discardableResult
    public func advance(by duration: Duration) async throws(DeviceClockError) -> DeviceInstant {
        guard clock.mode == .manual else { throw .notManual }
        guard duration >= .zero else { throw .backwards }
        let target = clock.target(after: duration)
        guard runtime.modifyStateAndRunActions({ recorder, _ in recorder.beginClockMove(to: target) }) != .clockBusy else { throw .busy }
        defer { runtime.modifyStateAndRunActions { recorder, _ in recorder.endClockMove() } }
        guard target < .distantFuture else { throw .outOfRange }
        while true {
            // The recorder remembers whose handlers it has given their real time.
            let reply = runtime.modifyStateAndRunActions { recorder, _ in recorder.advanceStep(toward: target) }
            guard case .advance(let step) = reply else { return target }
            switch step {
            case .stopped:
                throw .stopped
            case .done:
                runtime.clock.set(target)
                // Committed before answering, with the changes queued before it, so a restart
                // resumes from here. The clock has moved either way; a store that took no
                // write of it is said (and `/readyz` fails until it takes writes again).
                do {
                    try await store.write([.setManualClock(at: target.millisecondsSinceEpoch)])
                } catch {
                    throw .notRecorded(to: target, reason: PushStore.describe(error))
                }
                return target
            case .fired(let to):
                runtime.clock.set(to)
            case .wait(let wakes):
                await runtime.waitForWakes(wakes, timeout: settings.deadline)
                runtime.modifyStateAndRunActions { recorder, _ in recorder.realTimeSpent(wakes) }
            case .waitTasks(let waits):
                let tasks = runtime.runningTasks(waits.map(\.runID))
                await withTaskGroup(of: Void.self) { group in
                    // A run that ended meanwhile has no handle left: nothing to wait for.
                    for wait in waits {
                        guard let task = tasks.first(where: { $0.runID == wait.runID }) else { continue }
                        let limit =
                            switch wait.before {
                            // The run's own time (a processing task's is minutes), as a wake's
                            // handler gets its deadline's: the clocks agree on how a run ends.
                            case .expiry: task.timeLimit
                            case .termination: settings.taskExpirationGrace
                            }
                        group.addTask { await runtime.waitAtMost(limit) { await task.settled.wait() } }
                    }
                }
            case .waitTransfers(let tries):
                let ends = runtime.transferTryEnds(tries)
                await withTaskGroup(of: Void.self) { group in
                    for end in ends { group.addTask { await runtime.waitAtMost(Self.transferTryWait) { await end.wait() } } }
                }
            }
        }
    }

    /// How long in real time a move of the manual clock waits for a transfer try it started
    /// to end before it passes it (*assumed*: a try that fails, as against an origin that is
    /// down, ends well within it, and is retried a delay after the time it began; a longer
    /// one goes on and ends at a later device time).
    static let transferTryWait = Duration.seconds(5)

    /// Moves a manual clock forward to `target`, as `advance(by:)` does; a clock already
    /// there or past it stays. (A cluster's members each move to the time one of them chose.)
    public func advance(to target: DeviceInstant) async throws(DeviceClockError) {
        guard clock.mode == .manual else { throw .notManual }
        let now = clock.now
        guard target > now else { return }
        try await advance(by: now.duration(to: target))
    }
}
