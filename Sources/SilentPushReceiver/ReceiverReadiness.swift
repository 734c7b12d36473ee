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

    /// Callers of `wait()` waiting, by a number of their own (a cancelled one leaves).
    fileprivate typealias Waiters = [UInt64: CheckedContinuation<Ports, any Error>]

    fileprivate enum State {
        /// `run()` has not been called.
        case idle(waiters: Waiters)
        /// `run()` is binding the listeners.
        case starting(waiters: Waiters)
        /// Every listener is bound, or the run failed before they were.
        case settled(Result<Ports, any Error>)
        /// `run()` has returned (a receiver runs once), with the error that stopped it before
        /// it was ready, if one did.
        case stopped(failure: (any Error)?)
    }

    private let state = Mutex(State.idle(waiters: [:]))
    private let nextWaiter = Atomic<UInt64>(0)

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
        let waiters = state.withLock { state -> Waiters in
            switch state {
            case .settled, .stopped: return [:]
            case .idle(let waiters), .starting(let waiters):
                state = .settled(result)
                return waiters
            }
        }
        for waiter in waiters.values { waiter.resume(with: result) }
    }

    /// `run()` has returned: waiters still waiting hear it stopped before it was ready, and
    /// later ones why it failed, or that it has run.
    func end() {
        let waiters = state.withLock { state -> Waiters in
            switch state {
            case .idle(let waiters), .starting(let waiters):
                state = .stopped(failure: ReceiverStartError.stoppedBeforeReady)
                return waiters
            case .settled(.failure(let error)):
                state = .stopped(failure: error)
                return [:]
            case .settled(.success):
                state = .stopped(failure: nil)
                return [:]
            case .stopped:
                return [:]
            }
        }
        for waiter in waiters.values { waiter.resume(throwing: ReceiverStartError.stoppedBeforeReady) }
    }

    /// Waits for the outcome; throws `CancellationError` when the caller is cancelled first
    /// (a receiver never run would otherwise keep it waiting for good).
    func wait() async throws -> Ports {
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let settled = state.withLock { state -> Result<Ports, any Error>? in
                    switch state {
                    case .settled(let result): return result
                    case .stopped(let failure): return .failure(failure ?? ReceiverStartError.alreadyRan)
                    case .idle, .starting:
                        // Cancelled before it could wait: the handler found nothing to resume.
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.adding(id, continuation)
                        return nil
                    }
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            state.withLock { $0.removing(id) }?.resume(throwing: CancellationError())
        }
    }
}

extension ReceiverReadiness.State {
    /// Adds a waiter (idle or starting; otherwise nothing).
    fileprivate mutating func adding(_ id: UInt64, _ continuation: CheckedContinuation<ReceiverReadiness.Ports, any Error>) {
        switch self {
        case .idle(var waiters):
            waiters[id] = continuation
            self = .idle(waiters: waiters)
        case .starting(var waiters):
            waiters[id] = continuation
            self = .starting(waiters: waiters)
        case .settled, .stopped: break
        }
    }

    /// Takes waiter `id` out, if it still waits.
    fileprivate mutating func removing(_ id: UInt64) -> CheckedContinuation<ReceiverReadiness.Ports, any Error>? {
        switch self {
        case .idle(var waiters):
            let waiter = waiters.removeValue(forKey: id)
            self = .idle(waiters: waiters)
            return waiter
        case .starting(var waiters):
            let waiter = waiters.removeValue(forKey: id)
            self = .starting(waiters: waiters)
            return waiter
        case .settled, .stopped: return nil
        }
    }
}
