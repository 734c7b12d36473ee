import Logging
import ServiceLifecycle
import SilentPushStore
import Synchronization

/// The end of the device side's store, as a service: first in the receiver's service tree,
/// so it stops last. On graceful shutdown, once every other service has stopped (the server
/// drained, the device side recorded what was left, the admin API closed), it closes the
/// store. Cancelled instead (a sibling failed), it first ends the device side itself (no
/// grace: what still runs is recorded `shutdown`), so nothing accepted is lost to the close.
/// While it runs, it probes a store that takes no writes once a second, and says so once
/// when another receiver took a PostgreSQL store over (every write then fails: the receiver
/// answers 503 until it is restarted).
final class DeviceStoreService: Service, Sendable {
    private let runtime: DeviceRuntime
    private let logger: Logger
    private let closed = Atomic<Bool>(false)
    init(runtime: DeviceRuntime, logger: Logger) {
        self.runtime = runtime
        self.logger = logger
    }

    func run() async throws {
        let store = runtime.store
        // Ends on graceful shutdown or on cancellation (each task below says whether it ends it).
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await gracefulShutdown()
                return true
            }
            // While the store takes no writes, a probe a second finds out when it does, with no
            // push to start one (and a PostgreSQL store taken over meanwhile, when it is).
            group.addTask {
                while (try? await Task.sleep(for: .seconds(1))) != nil {
                    if !store.isWritable { store.probeSoon() }
                }
                return true
            }
            if let takeover = store.takeover {
                group.addTask {
                    await takeover.latch.wait()
                    guard takeover.latch.isOpen else { return true }  // cancelled
                    self.logger.error(
                        "another receiver owns the store now: pushes are answered 503 ServiceUnavailable, and nothing is written; restart this receiver once the other has stopped",
                        metadata: ["error": "\(takeover.error)"])
                    return false  // the service goes on until shutdown
                }
            }
            while let ends = await group.next(), !ends {}
            group.cancelAll()
        }
        await close()
    }

    /// Ends the device side if it still runs and closes the store; once, however often
    /// called. The receiver calls it when it fails before its service tree runs.
    func close() async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await runtime.shutdown(grace: .zero)
        do {
            try await runtime.store.close()
        } catch {
            logger.error("cannot close the store", metadata: ["error": "\(PushStore.describe(error))"])
        }
    }
}
