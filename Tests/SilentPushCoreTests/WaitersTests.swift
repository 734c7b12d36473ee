import SilentPushCore
import Synchronization
import Testing

/// The waiting every async primitive of the receiver and the store is built on.
@Suite(.timeLimit(.minutes(1))) struct WaitersTests {
    /// A gate as the primitives build one: an open flag and its waiters under one lock.
    final class Gate: Sendable {
        struct State {
            var open = false
            var waiters = Waiters()
        }

        let state = Mutex(State())

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                return state.waiters.removeAll()
            }
            for waiter in waiters { waiter.resume() }
        }

        var waiting: Int { state.withLock { $0.waiters.count } }

        func wait() async {
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

    @Test func waitersAreResumedWhenTheGateOpens() async {
        let gate = Gate()
        let tasks = (0..<3).map { _ in Task { await gate.wait() } }
        while gate.waiting < 3 { await Task.yield() }
        gate.open()
        for task in tasks { await task.value }
        #expect(gate.waiting == 0)
    }

    @Test func anOpenGateDoesNotSuspend() async {
        let gate = Gate()
        gate.open()
        await gate.wait()
        #expect(gate.waiting == 0)
    }

    /// Cancelled before or while it waits, a task returns, and takes its continuation back.
    @Test func aCancelledWaiterReturnsAndLeavesNothingBehind() async {
        let gate = Gate()
        let waiting = Task { await gate.wait() }
        while gate.waiting == 0 { await Task.yield() }
        waiting.cancel()
        await waiting.value
        #expect(gate.waiting == 0)

        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await gate.wait()
        }
        await cancelledFirst.value
        #expect(gate.waiting == 0)
    }

    @Test func tokensAreDistinct() {
        var waiters = Waiters()
        #expect(waiters.makeToken() != waiters.makeToken())
    }
}
