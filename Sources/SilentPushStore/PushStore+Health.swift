import Dispatch
import SilentPushCore

extension PushStore {
    /// Whether the last commit succeeded. While it did not (a read-only or full disk), the
    /// receiver answers pushes 503 and `/readyz` fails; the next commit that succeeds
    /// (a probe, or the next write) sets it again.
    package var isWritable: Bool { writer.writable.load(ordering: .relaxed) }

    /// What to do about a store that cannot be written, in a few words: its engine's remedy.
    package var unwritableRemedy: String {
        engine is PostgresEngine ? "check that PostgreSQL is up and reachable" : "free disk space or make it writable"
    }

    /// Calls `observer` on the writer each time writability changes, with the error that
    /// turned it off.
    package func observeWritability(_ observer: @escaping @Sendable (_ writable: Bool, _ error: (any Error)?) -> Void) {
        writer.writabilityObserver.withLock { $0 = observer }
    }

    /// Opened once another receiver owned the store while this one's PostgreSQL session was
    /// gone (every write then fails `takenOver`); nil for SQLite, whose lock the process
    /// holds until it exits, and for a cluster's member, whose claims end with its session.
    package var takeover: (latch: AsyncLatch, error: PushStoreError)? {
        (engine as? PostgresEngine).flatMap { $0.clustered ? nil : ($0.takenOver, PushStoreError.takenOver(path: $0.url.description)) }
    }

    /// Commits one small real write through the group commit; fails as any write would.
    package func probe() async throws {
        lastProbe.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        try await write(probeChanges)
    }

    /// Starts a probe in the background unless one started within the last second: pushes
    /// refused while the store cannot be written find out when it can again.
    package func probeSoon() {
        let now = DispatchTime.now().uptimeNanoseconds
        let last = lastProbe.load(ordering: .relaxed)
        guard now &- last >= 1_000_000_000,
            lastProbe.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        write(probeChanges) { _ in }
    }

    /// The one-row write a probe commits.
    private var probeChanges: [StoreChange] { [.probe(at: Int64(commitCount))] }
}
