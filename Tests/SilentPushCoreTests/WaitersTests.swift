import SilentPushCore
import Testing

/// `Waiters`, the waiting every async primitive of the receiver and the store is built on,
/// through `AsyncLatch`.
@Suite(.timeLimit(.minutes(1))) struct WaitersTests {
    @Test func waitersAreResumedWhenTheLatchOpens() async {
        let latch = AsyncLatch()
        let tasks = (0..<3).map { _ in Task { await latch.wait() } }
        while latch.waiting < 3 { await Task.yield() }
        latch.open()
        for task in tasks { await task.value }
        #expect(latch.waiting == 0)
    }

    @Test func anOpenLatchDoesNotSuspend() async {
        let latch = AsyncLatch()
        latch.open()
        await latch.wait()
        #expect(latch.waiting == 0)
    }

    /// Cancelled before or while it waits, a task returns, and takes its continuation back.
    @Test func aCancelledWaiterReturnsAndLeavesNothingBehind() async {
        let latch = AsyncLatch()
        let waiting = Task { await latch.wait() }
        while latch.waiting == 0 { await Task.yield() }
        waiting.cancel()
        await waiting.value
        #expect(latch.waiting == 0)

        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await latch.wait()
        }
        await cancelledFirst.value
        #expect(latch.waiting == 0)
    }

    @Test func tokensAreDistinct() {
        var waiters = Waiters()
        #expect(waiters.makeToken() != waiters.makeToken())
    }
}
