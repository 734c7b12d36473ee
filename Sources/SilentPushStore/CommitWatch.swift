import SilentPushCore
import Synchronization

/// Lets readers wait for the writer's next transaction to end, without polling. The writer
/// pays one atomic load per transaction while nobody waits.
final class CommitWatch: Sendable {
    /// Transactions ended (committed or failed).
    private let endedCount = Atomic<Int>(0)
    private let waiting = Atomic<Bool>(false)
    private let waiters = Mutex(Waiters())

    /// How many transactions have ended: pass it to `wait(after:)`.
    var count: Int { endedCount.load(ordering: .sequentiallyConsistent) }

    /// The writer ended a transaction.
    func transactionEnded() {
        endedCount.add(1, ordering: .sequentiallyConsistent)
        guard waiting.load(ordering: .sequentiallyConsistent) else { return }
        let resumed = waiters.withLock { waiters in
            waiting.store(false, ordering: .sequentiallyConsistent)
            return waiters.removeAll()
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Returns once more than `count` transactions have ended, or the task is cancelled.
    func wait(after count: Int) async {
        let token = waiters.withLock { $0.makeToken() }
        await Waiters.suspend { continuation in
            waiters.withLock { waiters -> Bool in
                waiting.store(true, ordering: .sequentiallyConsistent)
                if self.count > count || Task.isCancelled { return false }
                waiters.add(continuation, token: token)
                return true
            }
        } cancel: {
            waiters.withLock { $0.remove(token: token) }
        }
    }
}
