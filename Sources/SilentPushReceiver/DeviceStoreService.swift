import Logging
import NIOCore
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
/// answers 503 until it is restarted). A store that has not answered by the end of the
/// shutdown grace and `storeGrace` more (a PostgreSQL server stopped or cut off) is given up
/// (`PushStore.abandon()`), so the receiver still stops; `run()` then throws.
final class DeviceStoreService: Service, Sendable {
    private let runtime: DeviceRuntime
    private let logger: Logger
    private let closed = Atomic<Bool>(false)
    private let abandonment = Mutex(Abandonment.unarmed)
    /// Runs the timer: an event loop's, which a cancelled task cannot cut short (the close
    /// after a cancellation needs it most).
    private let timerLoop: any EventLoop

    /// How long the store may still take after the shutdown grace (the last commits, the
    /// sessions' close) before the receiver gives up on it. *Assumed*: a commit that has
    /// waited this long on a live server is rare, and a server that does not answer at all
    /// would otherwise hold the stop for ever.
    static let storeGrace = Duration.seconds(5)

    /// The timer that gives up on the store, from the stop on.
    private enum Abandonment {
        case unarmed
        case armed(Scheduled<Void>)
        /// The store was given up this long after the stop.
        case fired(after: Duration)
        case disarmed
    }

    init(runtime: DeviceRuntime, timerLoop: any EventLoop, logger: Logger) {
        self.runtime = runtime
        self.timerLoop = timerLoop
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
        if let given = await close() { throw ReceiverStartError.store(PushStoreError.abandoned(after: given)) }
    }

    /// Starts the timer that gives up on the store once the shutdown grace and `storeGrace`
    /// have passed. The receiver calls it as the stop begins.
    func shutdownBegan() {
        arm(after: runtime.remainingShutdownGrace() + Self.storeGrace, said: runtime.shutdownGrace + Self.storeGrace)
    }

    /// Starts the timer unless it was started (or stopped) already; `said` is the time since
    /// the stop that an error names (`delay` is what is left of it).
    private func arm(after delay: Duration, said: Duration) {
        abandonment.withLock { state in
            guard case .unarmed = state else { return }
            // Scheduled under the lock, which the timer takes too: it cannot fire unarmed.
            state = .armed(
                timerLoop.scheduleTask(in: TimeAmount(delay)) { [self] in
                    let fired = abandonment.withLock { state -> Bool in
                        guard case .armed = state else { return false }
                        state = .fired(after: said)
                        return true
                    }
                    guard fired else { return }
                    logger.error(
                        "the store did not answer within the shutdown grace and \(Self.storeGrace) more: its sessions are ended, and what was recorded while stopping is not written"
                    )
                    runtime.store.abandon()
                })
        }
    }

    /// Stops the timer; returns how long after the stop the store was given up, if it was.
    private func disarm() -> Duration? {
        abandonment.withLock { state -> Duration? in
            switch state {
            case .fired(let after):
                return after
            case .armed(let timer):
                timer.cancel()
                state = .disarmed
                return nil
            case .unarmed, .disarmed:
                state = .disarmed
                return nil
            }
        }
    }

    /// Ends the device side if it still runs and closes the store; once, however often
    /// called. The receiver calls it when it fails before its service tree runs. Returns how
    /// long after the stop the store was given up, if it was.
    @discardableResult
    func close() async -> Duration? {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        arm(after: Self.storeGrace, said: Self.storeGrace)  // cancelled rather than stopped: no grace went before
        await runtime.shutdown(grace: .zero)
        do {
            try await runtime.store.close()
        } catch {
            logger.error("cannot close the store", metadata: ["error": "\(PushStore.describe(error))"])
        }
        return disarm()
    }
}
