import Logging
import SilentPushCore
import SilentPushStore

/// Wakes: what the executor does with a fetch the recorder started (a child task of
/// `run()`), and the waiting for wakes to end that advances and shutdowns do.
extension DeviceRuntime {
    /// Runs one wake's handler (a child task of `run()`), racing its cancellation.
    func runWake(_ fetch: Fetch) async {
        await countingHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.runHandler(fetch) }
                group.addTask { await fetch.cancellation.wait() }
                await group.next()
                group.cancelAll()
                await group.waitForAll()
            }
        }
    }

    /// Runs `body`, a handler's task, counted so a shutdown can wait for none to be left.
    func countingHandler(_ body: () async -> Void) async {
        handlers.withLock { $0.running += 1 }
        defer {
            let idle = handlers.withLock { handlers -> [AsyncSignal] in
                handlers.running -= 1
                guard handlers.running == 0 else { return [] }
                defer { handlers.idleWaiters = [] }
                return handlers.idleWaiters
            }
            for waiter in idle { waiter.raise() }
        }
        await body()
    }

    private func runHandler(_ fetch: Fetch) async {
        let start = fetch.start
        let wake: Wake
        do {
            if let ready = fetch.wake { wake = ready } else { wake = try await readWake(start) }
        } catch {
            logger.error("cannot read a wake's push", metadata: ["wake.id": "\(start.wakeID)", "error": "\(PushStore.describe(error))"])
            _ = recordFetch(start, result: .failed(reason: "store: \(PushStore.describe(error))"))
            metrics.handlerRan(.zero)
            return
        }
        let began = ContinuousClock.now
        logger.debug(
            "wake started",
            metadata: [
                "wake.id": "\(start.wakeID)", "push.apns_id": "\(wake.apnsID)", "device.token": Self.shortened(wake.deviceToken),
                "app.topic": "\(wake.topic)", "wake.coalesced": "\(wake.coalescedAPNsIDs.count)",
            ])
        let errorOutput = FetchErrorOutput()
        let context = transferContext(app: start.app, source: .wake(start.wakeID))
        let result =
            Task.isCancelled
            ? FetchResult.deadlineExceeded
            : await FetchErrorOutput.$current.withValue(errorOutput) {
                await FetchContext.$current.withValue(context) { await handler.fetch(wake) }
            }
        let recorded = recordFetch(start, result: result)
        if let text = errorOutput.text {
            modifyStateAndRunActions { recorder, _ in recorder.recordErrorOutput(text, wakeID: start.wakeID) }
            logger.debug(
                "fetch handler stderr",
                // One log line however many lines it wrote.
                metadata: ["wake.id": "\(start.wakeID)", "wake.stderr": "\(text.replacing("\n", with: "\\n"))"])
        }
        let duration = ContinuousClock.now - began
        metrics.handlerRan(duration)
        logger.log(
            level: recorded == .deadlineExceeded ? .notice : .debug, "wake ended",
            metadata: [
                "wake.id": "\(start.wakeID)", "wake.result": "\(recorded.name)", "wake.reason": "\(recorded.reason ?? "-")",
                "wake.duration_ms": "\(duration.nanosecondCount / 1_000_000)", "device.token": Self.shortened(wake.deviceToken),
            ])
    }

    /// Records the handler's `result` for `start`; returns the result the wake ended with.
    private func recordFetch(_ start: DeviceRecorder.Start, result: FetchResult) -> FetchResult {
        modifyStateAndRunActions { $0.fetchCompleted(start, result: result, now: $1) }.recordedResult ?? result
    }

    /// The wake's push and the apns-ids coalesced into it, from the store.
    private func readWake(_ start: DeviceRecorder.Start) async throws -> Wake {
        // The wake's own changes were handed over before it started; once they are committed
        // its push and the pushes coalesced into it are readable.
        try await store.flush()
        guard let (push, coalesced) = try await store.delivery(push: start.push, wakeID: start.wakeID) else {
            throw WakeReadError(push: start.push)
        }
        return Wake(start, delivering: push, coalesced: coalesced)
    }

    /// Waits until each of `wakes` ends, or `timeout` of real time passes for it; in parallel.
    func waitForWakes(_ wakes: [UInt64], timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for wake in wakes { group.addTask { await self.waitForWake(wake, timeout: timeout) } }
        }
    }

    /// Waits until wake `wakeID` ends, or `timeout` of real time passes.
    func waitForWake(_ wakeID: UInt64, timeout: Duration) async {
        await waitAtMost(timeout) { await self.wakeEnded(wakeID) }
    }

    /// Runs `body` for at most `timeout` of real time (it is cancelled then). Returns whether
    /// `body` ended first.
    @discardableResult
    func waitAtMost(_ timeout: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let ended = await group.next() ?? false
            group.cancelAll()
            return ended
        }
    }

    /// Ends the fetch queue: `run()` returns once the fetches under way end.
    func endFetches() {
        fetchQueue.finish()
    }

    /// Returns once no handler task is running, cancelled ones included (they may still be
    /// unwinding after their wake ended), or when the caller is cancelled.
    func handlersIdle() async {
        let idle = AsyncSignal()
        let registered = handlers.withLock { handlers -> Bool in
            if handlers.running == 0 { return false }
            handlers.idleWaiters.append(idle)
            return true
        }
        if registered { await idle.wait() }
    }
}

/// A wake's push was not in the store.
struct WakeReadError: Error, CustomStringConvertible {
    let push: UInt64
    var description: String { "push \(push) is missing from the store" }
}
