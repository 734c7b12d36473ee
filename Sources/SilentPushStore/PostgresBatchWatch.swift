import NIOCore
import PostgresNIO
import Synchronization

/// One batch's commit on a lone PostgreSQL writer's session, as its watch
/// (`PostgresEngine.watched`) sees it: waiting for the session, sent on it, or answered (by
/// the server, or by the watch giving it up). Each phase carries the watch's timer while it
/// runs, so that an answer stops it.
final class PostgresBatchWatch: Sendable {
    private enum Phase {
        case waiting(timer: Scheduled<Void>?)
        case sent(on: PostgresConnection, timer: Scheduled<Void>?)
        case answered
    }

    /// Where the batch is, as the watch's timer finds it.
    enum Found {
        case waiting
        case sent(on: PostgresConnection)
        case answered
    }

    private let phase = Mutex(Phase.waiting(timer: nil))

    /// The batch has its session: true if it is to be sent on it, false if it was given up.
    func sending(on connection: PostgresConnection) -> Bool {
        phase.withLock { phase in
            guard case .waiting(let timer) = phase else { return false }
            phase = .sent(on: connection, timer: timer)
            return true
        }
    }

    /// Where the batch is now.
    var found: Found {
        phase.withLock { phase in
            switch phase {
            case .waiting: .waiting
            case .sent(let connection, _): .sent(on: connection)
            case .answered: .answered
            }
        }
    }

    /// Keeps `timer` as the watch's next look, or cancels it when the batch was answered.
    func arm(_ timer: Scheduled<Void>) {
        let late = phase.withLock { phase -> Bool in
            switch phase {
            case .waiting: phase = .waiting(timer: timer)
            case .sent(let connection, _): phase = .sent(on: connection, timer: timer)
            case .answered: return true
            }
            return false
        }
        if late { timer.cancel() }
    }

    /// The watch gives the batch up: true the first time only (as `answer()`), with the
    /// session it was sent on if it was, read in the same step, so that a session recorded
    /// (`sending(on:)`) before the give-up is the one returned and one after it is refused.
    func giveUp() -> (first: Bool, sentOn: PostgresConnection?) {
        let (first, connection, timer) = phase.withLock { phase -> (Bool, PostgresConnection?, Scheduled<Void>?) in
            defer { phase = .answered }
            switch phase {
            case .waiting(let timer): return (true, nil, timer)
            case .sent(let connection, let timer): return (true, connection, timer)
            case .answered: return (false, nil, nil)
            }
        }
        timer?.cancel()
        return (first, connection)
    }

    /// The batch is answered (by the server, or given up by the watch): true the first time
    /// only, which is the answer its caller gets.
    func answer() -> Bool {
        let (first, timer) = phase.withLock { phase -> (Bool, Scheduled<Void>?) in
            defer { phase = .answered }
            switch phase {
            case .waiting(let timer), .sent(_, let timer): return (true, timer)
            case .answered: return (false, nil)
            }
        }
        timer?.cancel()
        return first
    }
}
