import Synchronization
import SilentPushTransport

/// Where a receiver's one run stands: not started, starting, ready with its listeners'
/// ports, failed with the error that stopped it, or stopped. Ready or failed is settled
/// once; callers of `wait()` get that outcome, and once the run has returned, that it did.
final class ReceiverReadiness: Sendable {
    /// The bound ports: each HTTP/2 listener's that is on, and the admin API's.
    struct Ports: Sendable {
        var listeners: [H2ListenerName: Int] = [:]
        var admin: Int?
    }

    private enum State {
        /// `run()` has not been called.
        case idle(waiters: [CheckedContinuation<Ports, any Error>])
        /// `run()` is binding the listeners.
        case starting(waiters: [CheckedContinuation<Ports, any Error>])
        /// Every listener is bound, or the run failed before they were.
        case settled(Result<Ports, any Error>)
        /// `run()` has returned (a receiver runs once), with the error that stopped it before
        /// it was ready, if one did.
        case stopped(failure: (any Error)?)
    }

    private let state = Mutex(State.idle(waiters: []))

    /// The outcome, while the run is settled and has not returned.
    var result: Result<Ports, any Error>? {
        state.withLock { state in
            switch state {
            case .idle, .starting, .stopped: nil
            case .settled(let result): result
            }
        }
    }

    /// `run()` begins; false when it was called before.
    func begin() -> Bool {
        state.withLock { state in
            guard case .idle(let waiters) = state else { return false }
            state = .starting(waiters: waiters)
            return true
        }
    }

    /// Settles the outcome (the first call wins) and resumes every waiter.
    func settle(_ result: Result<Ports, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Ports, any Error>] in
            switch state {
            case .settled, .stopped: return []
            case .idle(let waiters), .starting(let waiters):
                state = .settled(result)
                return waiters
            }
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// `run()` has returned: waiters still waiting hear it stopped before it was ready, and
    /// later ones why it failed, or that it has run.
    func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Ports, any Error>] in
            switch state {
            case .idle(let waiters), .starting(let waiters):
                state = .stopped(failure: ReceiverStartError.stoppedBeforeReady)
                return waiters
            case .settled(.failure(let error)):
                state = .stopped(failure: error)
                return []
            case .settled(.success):
                state = .stopped(failure: nil)
                return []
            case .stopped:
                return []
            }
        }
        for waiter in waiters { waiter.resume(throwing: ReceiverStartError.stoppedBeforeReady) }
    }

    /// Waits for the outcome.
    func wait() async throws -> Ports {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLock { state -> Result<Ports, any Error>? in
                switch state {
                case .settled(let result): return result
                case .stopped(let failure): return .failure(failure ?? ReceiverStartError.alreadyRan)
                case .idle(var waiters):
                    waiters.append(continuation)
                    state = .idle(waiters: waiters)
                    return nil
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters: waiters)
                    return nil
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
