import Logging
import ServiceLifecycle
import SilentPushStore
import Synchronization

/// The end of the device side's store, as a service: first in the receiver's service tree,
/// so it stops last. On graceful shutdown, once every other service has stopped (the server
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
        // Returns on graceful shutdown or on cancellation.
        try? await gracefulShutdown()
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
