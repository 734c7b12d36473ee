import Synchronization

/// A flag one task waits on and any thread raises: `wait()` returns once it is raised
/// (consuming it) or the waiting task is cancelled. One waiter at a time.
package final class AsyncSignal: Sendable {
    private struct State {
        var raised = false
        var waiter: (token: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Raises the flag, resuming the waiter if there is one.
    package func raise() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter.take() else {
                state.raised = true
                return nil
            }
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns once the flag is raised (lowering it again) or the task is cancelled.
    package func wait() async {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.raised {
                        state.raised = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiter = (token, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard state.waiter?.token == token else { return nil }
                return state.waiter.take()?.continuation
            }
            waiter?.resume()
        }
    }
}
