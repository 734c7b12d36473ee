import Synchronization

/// The store's group commit, whichever engine holds the records: callers queue changes with
/// a completion; the engine's one writer commits everything queued meanwhile in one
/// transaction, then this calls every completion. A push answered after its completion is
/// recorded; durability costs latency (one commit), not throughput (one commit per batch,
/// not per push).
///
/// A caller that queues a batch (the event loop, a read's pushes) holds the writer: an idle
/// writer then starts when the hold ends, or when `heldBatch` writes wait, so the batch
/// shares one commit and a commit's fixed cost (locks, log records of the same last pages,
/// wakeups, a round trip) is paid once per read.
final class StoreWriter: Sendable {
    /// Changes and who waits for them. (A struct, not a tuple: a closure in a tuple in an
    /// array is stored through a reabstraction thunk, allocated per push.) The statements
    /// read a batch of them where they are.
    struct Entry {
        var changes: [StoreChange]
        var completion: PushStore.Completion
    }

    private enum Phase {
        /// Nothing queued, no commit under way.
        case idle
        /// A drain runs on the writer; entries queued now join its next batch. `released`: a
        /// hold ended while a commit ran, so the drain takes what waits next, whatever other
        /// holds remain.
        case draining(released: Bool)
        /// Closed: writes fail at once. A drain under way commits what was queued before,
        /// then resumes the close waiting for it.
        case closed(waiting: CheckedContinuation<Void, Never>?)
    }

    private struct Queue {
        var entries: [Entry] = []
        var phase = Phase.idle
        /// Callers queueing a batch: while any is, an idle writer is not started.
        var holds = 0
    }

    /// What commits the batches.
    let engine: any StoreEngine
    /// The most a hold keeps from an idle writer: a batch that reaches it starts its commit
    /// before the hold ends, so a hold adds a push at most the event loop's work on 32
    /// requests of latency, while a read's requests still share one commit.
    static let heldBatch = 32
    private let queue = Mutex(Queue())
    private let commits = Atomic<Int>(0)
    /// Readers waiting for the next transaction to end.
    let commitWatch = CommitWatch()
    /// Whether the last commit succeeded (see `PushStore+Health.swift`).
    let writable = Atomic<Bool>(true)
    let writabilityObserver = Mutex<(@Sendable (_ writable: Bool, _ error: (any Error)?) -> Void)?>(nil)

    init(engine: any StoreEngine) {
        self.engine = engine
    }

    /// Transactions committed so far.
    var commitCount: Int { commits.load(ordering: .relaxed) }

    /// Queues `changes`; an empty list only waits for what was queued before it.
    func enqueue(_ changes: [StoreChange], completion: @escaping PushStore.Completion) {
        start(add(changes, completion: completion))
    }

    /// Queues `changes` and returns what is left to do, for `start(_:)` once the caller's
    /// own lock is released: the order of writes is the order of these calls.
    func add(_ changes: [StoreChange], completion: @escaping PushStore.Completion) -> PushStore.Queued {
        queue.withLock { queue -> PushStore.Queued in
            switch queue.phase {
            case .closed:
                return .refused(completion)
            case .draining:
                queue.entries.append(Entry(changes: changes, completion: completion))
                return .joined
            case .idle:
                queue.entries.append(Entry(changes: changes, completion: completion))
                // A batch is being queued: its release (or its size) starts the drain.
                if queue.holds > 0, queue.entries.count < Self.heldBatch { return .joined }
                queue.phase = .draining(released: false)
                return .startsDrain
            }
        }
    }

    /// Does what `add(_:completion:)` left: starts the drain, or fails a refused write.
    func start(_ queued: PushStore.Queued) {
        switch queued {
        case .startsDrain: engine.startDrain(of: self)
        case .joined: break
        case .refused(let completion): completion(.failure(PushStoreError.closed))
        }
    }

    /// Holds an idle writer's next commit until `release()`.
    func hold() {
        queue.withLock { $0.holds += 1 }
    }

    /// Ends a `hold()`, starting the commit of what waits (other holds' writes too: a batch
    /// waits for no more than its own hold and a commit under way).
    func release() {
        let drain = queue.withLock { queue -> Bool in
            queue.holds -= 1
            guard !queue.entries.isEmpty else { return false }
            switch queue.phase {
            case .idle:
                queue.phase = .draining(released: false)
                return true
            case .draining:
                queue.phase = .draining(released: true)
                return false
            case .closed:
                return false
            }
        }
        if drain { engine.startDrain(of: self) }
    }

    /// Stops taking writes, lets a drain under way commit what was queued before, and closes
    /// the engine.
    func close() async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = queue.withLock { queue -> Bool in
                switch queue.phase {
                case .idle:
                    queue.phase = .closed(waiting: nil)
                    return false
                case .draining:
                    queue.phase = .closed(waiting: continuation)
                    return true
                case .closed:
                    return false
                }
            }
            if !waits { continuation.resume() }
        }
        try await engine.close()
    }

    /// The next batch of a drain to commit; nil when the drain ends: the queue is empty, or
    /// what is left is a batch still being queued under a hold, whose release (or size)
    /// starts the next drain. `started` is false on a drain's first call (which takes what
    /// waits whatever the holds). Batches of flushes alone complete here: what they wait for
    /// is committed already.
    func nextBatch(_ started: inout Bool) -> [Entry]? {
        while true {
            let first = !started
            started = true
            var closing: CheckedContinuation<Void, Never>?
            let batch = queue.withLock { queue -> [Entry] in
                if !first, queue.holds > 0, queue.entries.count < Self.heldBatch, case .draining(released: false) = queue.phase {
                    queue.phase = .idle
                    return []
                }
                if case .draining = queue.phase { queue.phase = .draining(released: false) }
                if queue.entries.isEmpty {
                    switch queue.phase {
                    case .draining: queue.phase = .idle
                    case .closed(let waiting):
                        closing = waiting
                        queue.phase = .closed(waiting: nil)
                    case .idle: break
                    }
                }
                defer { queue.entries = [] }
                return queue.entries
            }
            closing?.resume()
            if batch.isEmpty { return nil }
            if batch.allSatisfy({ $0.changes.isEmpty }) {
                for entry in batch { entry.completion(.success(())) }
                continue
            }
            return batch
        }
    }

    /// Ends a batch `nextBatch` gave: counts a commit, notes writability, then calls every
    /// completion with `result` (only now: a success means committed).
    func finish(_ batch: [Entry], _ result: Result<Void, any Error>) {
        if case .success = result { commits.add(1, ordering: .relaxed) }
        noteCommit(result)
        for entry in batch { entry.completion(result) }
        commitWatch.transactionEnded()
    }

    /// Notes whether a commit succeeded, telling the observer when that changes.
    private func noteCommit(_ result: Result<Void, any Error>) {
        let failure: (any Error)?
        switch result {
        case .success: failure = nil
        case .failure(let error): failure = error
        }
        let succeeded = failure == nil
        guard writable.exchange(succeeded, ordering: .relaxed) != succeeded else { return }
        writabilityObserver.withLock { $0 }?(succeeded, failure)
    }
}
