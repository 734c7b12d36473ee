import Synchronization

/// A latch any thread opens once and any number of tasks wait on: `wait()` returns once it is
/// open (at once, if it is already) or the waiting task is cancelled. Unlike `AsyncSignal`,
/// waiting does not close it again.
final class AsyncLatch: Sendable {
    private struct State {
        var open = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Whether it is open.
    var isOpen: Bool { state.withLock { $0.open } }

    /// Opens it, resuming every waiter.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once it is open, or the task is cancelled.
    func wait() async {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.open || Task.isCancelled { return true }
                    state.waiters[token] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: token) }?.resume()
        }
    }
}
