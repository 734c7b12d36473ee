/// Tasks suspended until another thread resumes them, each under a token so that a cancelled
/// task can take its own continuation back. It lives inside its owner's lock, beside what the
/// tasks wait for, so that a change and the waiters it resumes are seen together.
package struct Waiters: Sendable {
    /// What a waiting task is suspended on.
    package typealias Continuation = CheckedContinuation<Void, Never>

    private var nextToken: UInt64 = 0
    private var waiting: [UInt64: Continuation] = [:]

    package init() {}

    /// Whether no task waits.
    package var isEmpty: Bool { waiting.isEmpty }

    /// How many tasks wait.
    package var count: Int { waiting.count }

    /// A token for one task's wait: make it before `suspend`, since `cancel` needs it.
    package mutating func makeToken() -> UInt64 {
        nextToken &+= 1
        return nextToken
    }

    /// Keeps `continuation` under `token` until `remove(token:)` or `removeAll()`.
    package mutating func add(_ continuation: Continuation, token: UInt64) {
        waiting[token] = continuation
    }

    /// The continuation kept under `token`, taken out; nil once it was taken.
    package mutating func remove(token: UInt64) -> Continuation? {
        waiting.removeValue(forKey: token)
    }

    /// Every continuation kept, taken out: resume them after leaving the lock.
    package mutating func removeAll() -> [Continuation] {
        defer { waiting = [:] }
        return Array(waiting.values)
    }

    /// Suspends the calling task until it is resumed or cancelled.
    ///
    /// `enqueue` runs with the task's continuation and, under the owner's lock, either keeps
    /// it and returns true, or returns false to resume at once: when what the task waits for
    /// holds already, or when `Task.isCancelled`. Checked under the lock `cancel` takes, a
    /// cancellation is never missed: it either came first and `enqueue` sees it, or it finds
    /// the continuation kept. `cancel` takes the continuation back (nil once it was resumed).
    package static func suspend(enqueue: (Continuation) -> Bool, cancel: @Sendable () -> Continuation?) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Continuation) in
                if !enqueue(continuation) { continuation.resume() }
            }
        } onCancel: {
            cancel()?.resume()
        }
    }
}
