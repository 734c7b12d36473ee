import GRDB
import Synchronization

/// The store's group commit, on GRDB's own writer: callers queue changes with a completion;
/// the writer commits everything queued meanwhile in one transaction, then calls every
/// completion. A push answered after its completion is on disk; durability costs latency
/// (one commit), not throughput (one commit per batch, not per push).
///
/// A caller that queues a batch (the event loop, a read's pushes) holds the writer: an idle
/// writer then starts when the hold ends, or when `heldBatch` writes wait, so the batch
/// shares one commit and a commit's fixed cost (locks, WAL frames of the same last pages,
/// wakeups) is paid once per read.
///
/// A file store also checkpoints the WAL on a second connection beside the writer, so the
/// writer never stops for it (nor for its fsync).
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
        /// A drain runs on the writer; entries queued now join its next batch.
        case draining
        /// Closed: writes fail at once.
        case closed
    }

    private struct Queue {
        var entries: [Entry] = []
        var phase = Phase.idle
        /// Callers queueing a batch: while any is, an idle writer is not started.
        var holds = 0
        /// A hold ended while a commit ran: the drain takes what waits next, whatever
        /// other holds remain.
        var released = false
    }

    private let database: any DatabaseWriter
    private let checkpointer: DatabaseQueue?
    private let checkpointing = Atomic<Bool>(false)
    /// The WAL's length in frames at the last checkpoint. A WAL written while checkpoints
    /// run beside it may never start over; past `walLimit` the writer checkpoints itself
    /// between transactions, when nothing can append, so the file stays bounded.
    private let walFrames = Atomic<Int>(0)
    /// Commits between background checkpoints: a page rewritten by many commits (the
    /// table's last pages) is copied once per checkpoint, and each checkpoint ends in an fsync.
    private static let checkpointEvery = 128
    private static let walLimit = 16_000
    /// The most a hold keeps from an idle writer: a batch that reaches it starts its commit
    /// before the hold ends. About 0.3 ms of the event loop's work: the hold never costs a
    /// push more latency than that, while a read's requests still share one commit.
    static let heldBatch = 32
    private let queue = Mutex(Queue())
    private let statements = StoreStatements()
    private let commits = Atomic<Int>(0)
    /// Readers waiting for the next transaction to end.
    let commitWatch = CommitWatch()
    /// Whether the last commit succeeded (see `PushStore+Health.swift`).
    let writable = Atomic<Bool>(true)
    let writabilityObserver = Mutex<(@Sendable (_ writable: Bool, _ error: (any Error)?) -> Void)?>(nil)

    init(database: any DatabaseWriter, checkpointer: DatabaseQueue?) {
        self.database = database
        self.checkpointer = checkpointer
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
                queue.phase = .draining
                return .startsDrain
            }
        }
    }

    /// Does what `add(_:completion:)` left: starts the drain, or fails a refused write.
    func start(_ queued: PushStore.Queued) {
        switch queued {
        case .startsDrain: database.asyncWriteWithoutTransaction { db in self.drain(db) }
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
                queue.phase = .draining
                return true
            case .draining:
                queue.released = true
                return false
            case .closed:
                return false
            }
        }
        if drain { database.asyncWriteWithoutTransaction { db in self.drain(db) } }
    }

    /// Stops taking writes, lets a commit under way finish, and closes both connections.
    func close() throws {
        queue.withLock { $0.phase = .closed }
        // The writer runs one block at a time: this one runs after the last drain. Its
        // prepared statements go first: SQLite will not close a connection that has any.
        database.writeWithoutTransaction { _ in statements.finalize() }
        try checkpointer?.close()
        try database.close()
    }

    /// Commits batches until the queue is empty, or until what is left is a batch still
    /// being queued under a hold, whose release (or size) starts the next drain.
    private func drain(_ db: Database) {
        var started = false
        while true {
            let batch = queue.withLock { queue -> [Entry] in
                if started, queue.holds > 0, !queue.released, queue.entries.count < Self.heldBatch, case .draining = queue.phase {
                    queue.phase = .idle
                    return []
                }
                started = true
                queue.released = false
                if queue.entries.isEmpty, case .draining = queue.phase { queue.phase = .idle }
                defer { queue.entries = [] }
                return queue.entries
            }
            if batch.isEmpty { return }
            if batch.allSatisfy({ $0.changes.isEmpty }) {
                // Only flushes: what they wait for is committed already.
                for entry in batch { entry.completion(.success(())) }
                continue
            }
            let result: Result<Void, any Error>
            do {
                try statements.inTransaction(db) { try statements.apply(batch, db) }
                let count = commits.add(1, ordering: .relaxed).newValue
                result = .success(())
                if count % Self.checkpointEvery == 0 { checkpointInBackground() }
                if walFrames.load(ordering: .relaxed) > Self.walLimit { checkpointNow(db) }
            } catch {
                result = .failure(error)
            }
            noteCommit(result)
            for entry in batch { entry.completion(result) }
            commitWatch.transactionEnded()
        }
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

    /// Copies the WAL into the database beside the writer, then cuts the file back to nothing
    /// between two commits on the writer itself (a TRUNCATE checkpoint on another connection
    /// would hold the write lock and fail the commits meanwhile): after a pruning pass whose
    /// large WAL no further commit may come to reset.
    func checkpointAndTruncate() async {
        guard let checkpointer, !checkpointing.exchange(true, ordering: .acquiring) else { return }
        _ = try? await checkpointer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        checkpointing.store(false, ordering: .releasing)
        _ = try? await database.writeWithoutTransaction { db in
            if (try? db.checkpoint(.truncate)) != nil { self.walFrames.store(0, ordering: .relaxed) }
        }
    }

    private func checkpointInBackground() {
        guard let checkpointer, !checkpointing.exchange(true, ordering: .acquiring) else { return }
        checkpointer.asyncWriteWithoutTransaction { db in
            if let frames = try? db.checkpoint(.passive) {
                self.walFrames.store(frames.walFrameCount, ordering: .relaxed)
            }
            self.checkpointing.store(false, ordering: .releasing)
        }
    }

    /// Between transactions: every frame is copied, and the next transaction starts the WAL over.
    private func checkpointNow(_ db: Database) {
        guard checkpointer != nil else { return }
        if (try? db.checkpoint(.passive)) != nil { walFrames.store(0, ordering: .relaxed) }
    }
}
