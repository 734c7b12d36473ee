import ServiceLifecycle
import SilentPushCore

extension DeviceRuntime: Service {
    /// Runs the device side's long-lived work as child tasks: the fetch handlers of the
    /// wakes the policy starts, and, on the system clock, the timer that fires the policy's
    /// deadlines. On graceful shutdown it stops taking pushes, gives running fetches what is
    /// left of the receiver's shutdown grace (`shutdownGrace`, counted from `shutdownBegan`),
    /// records what is left and returns once every change is committed.
    public func run() async throws {
        let shutdownRequested = AsyncSignal()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await shutdownRequested.wait()
                    await self.shutdown(grace: self.remainingShutdownGrace())
                }
                if clock.mode == .system {
                    group.addTask { await self.runTimer() }
                }
                for await work in fetches {
                    switch work {
                    case .wake(let fetch): group.addTask { await self.runWake(fetch) }
                    case .task(let task): group.addTask { await self.runTask(task) }
                    case .transfer(let transfer): group.addTask { await self.runTransfer(transfer) }
                    case .relaunchFiles(let requests): group.addTask { await self.discardRelaunchFiles(of: requests) }
                    }
                }
                // The fetch queue ends at shutdown; the timer stops with it.
                group.cancelAll()
            }
            // What the last tasks recorded as they unwound (a transfer's try cut by the stop).
            try? await store.flush()
        } onGracefulShutdown: {
            shutdownRequested.raise()
        }
    }

    /// Marks when graceful shutdown began (the first mark counts). The receiver marks it as the
    /// signal arrives, before its server drains, so streams and fetches share one grace rather
    /// than each taking a whole one in turn.
    package func shutdownBegan(at instant: ContinuousClock.Instant = .now) {
        let first = shutdownStart.withLock { start in
            guard start == nil else { return false }
            start = instant
            return true
        }
        if first {
            logger.notice(
                "shutting down: answering the requests under way and letting fetches end",
                metadata: ["shutdown.grace": "\(shutdownGrace)"])
        }
    }

    /// Whether graceful shutdown has begun: the receiver takes nothing new (`/readyz` says so).
    package var isShuttingDown: Bool { shutdownStart.withLock { $0 != nil } }

    /// `shutdownGrace` less the real time since `shutdownBegan` (all of it when unmarked).
    func remainingShutdownGrace(now: ContinuousClock.Instant = .now) -> Duration {
        let start = shutdownStart.withLock { $0 } ?? now
        return max(.zero, shutdownGrace - start.duration(to: now))
    }

    /// Fires the policy's deadlines on the system clock, each as it comes, until cancelled.
    private func runTimer() async {
        while !Task.isCancelled {
            let next = inspect { $0.timerDeadline }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.timerMoved.wait() }
                if let next {
                    // At most a second at a time: a sleep cut short (an earlier deadline was
                    // armed) holds its memory until it would have ended.
                    let delay = min(max(.zero, DeviceClock.systemNow.duration(to: next)), Self.longestTimerSleep)
                    group.addTask { try? await Task.sleep(for: delay) }
                }
                await group.next()
                group.cancelAll()
            }
            if Task.isCancelled { return }
            metrics.timerWokeUp()
            modifyStateAndRunActions { recorder, now in
                if let next { recorder.timerFired(at: next, now: now) } else { recorder.advance(to: now) }
            }
        }
    }

    /// The longest the timer sleeps before it looks at the clock again.
    static let longestTimerSleep = Duration.seconds(1)

    /// Waits until no fetch is running (giving each at most `timeout` of real time) and
    /// every change so far is committed. Returns false when it gave up: a fetch or task
    /// handler still ran after `timeout`, or the last changes could not be committed.
    @discardableResult
    func settle(timeout: Duration) async -> Bool {
        var settled = true
        while true {
            let running = inspect { Array($0.running.keys) }
            if running.isEmpty { break }
            await waitForWakes(running, timeout: timeout)
            if inspect({ $0.running.keys.contains { running.contains($0) } }) {  // still running: timed out
                settled = false
                break
            }
        }
        // Task handlers that are done, or that finish within the timeout.
        let tasks = runningTasks()
        let tasksEnded = await withTaskGroup(of: Bool.self) { group in
            for task in tasks { group.addTask { await self.waitAtMost(timeout) { await task.settled.wait() } } }
            return await group.reduce(true) { $0 && $1 }
        }
        // Handlers of wakes cancelled at their deadline may still be unwinding.
        let idle = await waitAtMost(timeout) { await self.handlersIdle() }
        do {
            try await store.flush()
        } catch {
            settled = false
        }
        return settled && tasksEnded && idle
    }

    /// Stops taking pushes and starting wakes and task runs, gives running fetches and task
    /// runs up to `grace` to end, records the fetches still running as failed
    /// (`deadlineExceeded` if past their deadline, else `shutdown`) and the runs `interrupted`,
    /// and waits for every change to be committed. `run()` does this on graceful shutdown; a
    /// runtime that is not run (a benchmark's driver, or a receiver whose start failed) calls
    /// it itself.
    func shutdown(grace: Duration) async {
        var stopping: [UInt64] = []
        if case .stoppingWith(let wakes) = modifyStateAndRunActions({ recorder, _ in recorder.beginShutdown() }) { stopping = wakes }
        // A wake gets no more than its deadline (timers no longer fire while stopping, so
        // nothing else would end it): on the system clock what is left to it; on the manual
        // clock, which stands still, its deadline's length in real time, as a move of the
        // clock gives it.
        let running = inspect { recorder in stopping.compactMap { recorder.running[$0] } }
        let now = clock.now
        let tasks = runningTasks()
        await withTaskGroup(of: Void.self) { group in
            for wake in running {
                let deadline =
                    clock.mode == .system ? max(.zero, now.duration(to: wake.deadline)) : max(.zero, wake.startedAt.duration(to: wake.deadline))
                let left = min(grace, deadline)
                group.addTask { await self.waitForWake(wake.wakeID, timeout: left) }
            }
            for task in tasks { group.addTask { await self.waitAtMost(grace) { await task.settled.wait() } } }
        }
        // Interrupted here, before the cut records it: a run whose handler returned first
        // (without completing) settled its files already, and is not relaunched again.
        let returned = Set(runningTasks().filter { !$0.interrupt() }.map(\.runID))
        modifyStateAndRunActions { recorder, now in
            var actions = recorder.cutRunning(now: now)
            actions.append(recorder.cutRunningTasks(now: now, returned: returned))
            return actions
        }
        endFetches()
        try? await store.flush()
        await transferClient.shutdown()
    }
}
