import Synchronization

/// A flag one task waits on and any thread raises: `wait()` returns once it is raised
/// (consuming it) or the waiting task is cancelled. One waiter at a time.
package final class AsyncSignal: Sendable {
    private struct State {
        var raised = false
        var waiters = Waiters()
    }

    private let state = Mutex(State())

    package init() {}

    /// Raises the flag, resuming the waiter if there is one.
    package func raise() {
        let waiters = state.withLock { state -> [Waiters.Continuation] in
            if state.waiters.isEmpty { state.raised = true }
            return state.waiters.removeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the flag is raised (lowering it again) or the task is cancelled.
    package func wait() async {
        let token = state.withLock { $0.waiters.makeToken() }
        await Waiters.suspend { continuation in
            state.withLock { state -> Bool in
                if state.raised {
                    state.raised = false
                    return false
                }
                if Task.isCancelled { return false }
                state.waiters.add(continuation, token: token)
                return true
            }
        } cancel: {
            state.withLock { $0.waiters.remove(token: token) }
        }
    }
}
