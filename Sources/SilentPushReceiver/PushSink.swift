import Synchronization
import SilentPushCore

/// Where accepted pushes go: the device side. `submit` answers once the push is recorded,
/// so a 200 means the push is kept; or with the reason it cannot be (503 Shutdown, …).
public protocol PushSink: Sendable {
    /// Takes `push`; `completion` runs once, from any thread.
    func submit(_ push: ValidatedPush, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void)
}

/// Keeps the most recent accepted pushes in memory (until the device side records them).
public final class InMemoryPushLog: PushSink {
    private let state: Mutex<(pushes: [ValidatedPush], total: Int)>
    /// How many pushes are kept; older ones are dropped.
    public let capacity: Int

    /// A log of the last `capacity` pushes.
    public init(capacity: Int = 10_000) {
        self.capacity = capacity
        state = Mutex(([], 0))
    }

    public func submit(_ push: ValidatedPush, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
        state.withLock { state in
            if state.pushes.count == capacity { state.pushes.removeFirst(capacity / 4) }
            state.pushes.append(push)
            state.total += 1
        }
        completion(.success(()))
    }

    /// The pushes kept, oldest first.
    public var pushes: [ValidatedPush] { state.withLock { $0.pushes } }
    /// Pushes accepted since start.
    public var total: Int { state.withLock { $0.total } }
}
