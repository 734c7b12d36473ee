import Logging
import ServiceLifecycle
import SilentPushStore
import Synchronization

/// The end of the device side's store, as a service: first in the receiver's service tree,
/// so it stops last. While it runs, it probes a store that takes no writes once a second, and
/// fails (stopping the receiver) when another receiver took a PostgreSQL store over. On graceful shutdown, once every other service has stopped (the server
/// drained, the device side recorded what was left, the admin API closed), it closes the
/// store. Cancelled instead (a sibling failed), it first ends the device side itself (no
/// grace: what still runs is recorded `shutdown`), so nothing accepted is lost to the close.
final class DeviceStoreService: Service, Sendable {
    private let runtime: DeviceRuntime
    private let logger: Logger
    private let closed = Atomic<Bool>(false)

    init(runtime: DeviceRuntime, logger: Logger) {
        self.runtime = runtime
        self.logger = logger
    }

    func run() async throws {
        // Ends on graceful shutdown, on cancellation, or when another receiver took the store
        // over: then the receiver stops, failing, as what it holds is no longer the store's.
        let store = runtime.store
        let takenOver = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await gracefulShutdown()
                return false
            }
            // While the store takes no writes, a probe a second finds out when it does, with no
            // push to start one (and a PostgreSQL store taken over meanwhile, when it is).
            group.addTask {
                while (try? await Task.sleep(for: .seconds(1))) != nil {
                    if !store.isWritable { store.probeSoon() }
                }
                return false
            }
            if let takeover = store.takeover {
                group.addTask {
                    await takeover.latch.wait()
                    return takeover.latch.isOpen
                }
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        // Thrown first, so the tree stops for this reason (the receiver closes the store as
        // it fails); the device side ended here first would be a service that ended early.
        if takenOver, let error = store.takeover?.error { throw error }
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
