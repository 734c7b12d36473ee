import Synchronization

/// A latch any thread opens once and any number of tasks wait on: `wait()` returns once it is
/// open (at once, if it is already) or the waiting task is cancelled. Unlike `AsyncSignal`,
/// waiting does not close it again.
package final class AsyncLatch: Sendable {
    private struct State {
        var open = false
        var waiters = Waiters()
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether it is open.
    package var isOpen: Bool { state.withLock { $0.open } }

    /// How many tasks wait for it to open.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Opens it, resuming every waiter.
    package func open() {
        let waiters = state.withLock { state in
            state.open = true
            return state.waiters.removeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once it is open, or the task is cancelled.
    package func wait() async {
        let token = state.withLock { $0.waiters.makeToken() }
        await Waiters.suspend { continuation in
            state.withLock { state -> Bool in
                if state.open || Task.isCancelled { return false }
                state.waiters.add(continuation, token: token)
                return true
            }
        } cancel: {
            state.withLock { $0.waiters.remove(token: token) }
        }
    }
}
