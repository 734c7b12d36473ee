import Synchronization

/// Lets readers wait for the writer's next transaction to end, without polling. The writer
/// pays one atomic load per transaction while nobody waits.
final class CommitWatch: Sendable {
    private struct Waiters {
        var next: UInt64 = 0
        var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

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
            defer { waiters.continuations = [:] }
            waiting.store(false, ordering: .sequentiallyConsistent)
            return Array(waiters.continuations.values)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Returns once more than `count` transactions have ended, or the task is cancelled.
    func wait(after count: Int) async {
        let id = waiters.withLock { waiters in
            waiters.next += 1
            return waiters.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = waiters.withLock { waiters -> Bool in
                    waiting.store(true, ordering: .sequentiallyConsistent)
                    if self.count > count || Task.isCancelled { return true }
                    waiters.continuations[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            waiters.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
        }
    }
}
