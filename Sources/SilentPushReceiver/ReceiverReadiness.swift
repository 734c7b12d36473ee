import Synchronization
import SilentPushTransport

/// Whether a receiver's listeners are bound: pending, ready with their ports, or failed
/// with the error that stopped it. Settled once; callers of `wait()` get the outcome.
final class ReceiverReadiness: Sendable {
    /// The bound ports: each HTTP/2 listener's that is on, and the admin API's.
    struct Ports: Sendable {
        var listeners: [H2ListenerName: Int] = [:]
        var admin: Int?
    }

    private enum State {
        case pending(waiters: [CheckedContinuation<Ports, any Error>])
        case settled(Result<Ports, any Error>)
    }

    private let state = Mutex(State.pending(waiters: []))

    /// The outcome, once settled.
    var result: Result<Ports, any Error>? {
        state.withLock { state in
            switch state {
            case .pending: nil
            case .settled(let result): result
            }
        }
    }

    /// Settles the outcome (the first call wins) and resumes every waiter.
    func settle(_ result: Result<Ports, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Ports, any Error>] in
            switch state {
            case .settled: return []
            case .pending(let waiters):
                state = .settled(result)
                return waiters
            }
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Waits for the outcome.
    func wait() async throws -> Ports {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLock { state -> Result<Ports, any Error>? in
                switch state {
                case .settled(let result): return result
                case .pending(var waiters):
                    waiters.append(continuation)
                    state = .pending(waiters: waiters)
                    return nil
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
