/// When a connection's output goes to the socket, as a state machine for the server and
/// client handlers alike: output made during a read waits for the read's end, output made
/// elsewhere shares one flush per event-loop pass, and a flush asked for while the pump
/// writes becomes another pass of that pump, never a nested one.
///
/// Two enums, not one: a read or a queued flush can be pending whether or not the pump is
/// writing (the pump runs inside reads and beside queued flushes), so their product would
/// only spell the same six states out.
package struct H2OutputSchedule: Equatable {
    /// Whether a flush is already coming.
    package enum Batch: Equatable {
        /// None: new output needs a flush of its own.
        case idle
        /// A read is being handled: what it produces goes out at the read's end.
        case reading
        /// A flush task is queued for the next pass of the event loop.
        case scheduled
    }

    /// The pump's re-entrancy guard.
    package enum Pump: Equatable {
        /// Not writing.
        case idle
        /// Writing.
        case pumping
        /// Writing, and asked for another pass from inside (a write that turned the channel
        /// writable again calls back into the handler).
        case pumpingAgain
    }

    package private(set) var batch = Batch.idle
    package private(set) var pump = Pump.idle

    package init() {}

    // MARK: - Batching

    /// A read from the socket begins.
    package mutating func readBegan() {
        switch batch {
        case .idle: batch = .reading
        case .reading, .scheduled: break  // a queued flush covers the read too
        }
    }

    /// The read ends (the handler flushes at read-complete).
    package mutating func readEnded() {
        switch batch {
        case .reading: batch = .idle
        case .idle, .scheduled: break
        }
    }

    /// Output was queued outside the pump. Returns whether to queue a flush task: only when
    /// no read or queued flush will carry it.
    package mutating func outputQueued() -> Bool {
        switch batch {
        case .idle:
            batch = .scheduled
            return true
        case .reading, .scheduled:
            return false
        }
    }

    /// The queued flush task runs (and flushes).
    package mutating func scheduledFlushRuns() {
        switch batch {
        case .scheduled: batch = .idle
        case .idle, .reading: break
        }
    }

    // MARK: - Pumping

    /// A flush wants the pump. Returns whether to run it: false when it is running already
    /// (it is asked for another pass instead).
    package mutating func pumpWanted() -> Bool {
        switch pump {
        case .idle:
            pump = .pumping
            return true
        case .pumping, .pumpingAgain:
            pump = .pumpingAgain
            return false
        }
    }

    /// A pass of the pump ended. Returns whether to run another: one was asked for meanwhile.
    package mutating func passEnded() -> Bool {
        switch pump {
        case .pumpingAgain:
            pump = .pumping
            return true
        case .pumping, .idle:
            return false
        }
    }

    /// The pump stopped (done, or its writes failed).
    package mutating func pumpStopped() {
        pump = .idle
    }

    /// The pump is writing: output written now would go out of order.
    package var isPumping: Bool {
        switch pump {
        case .idle: false
        case .pumping, .pumpingAgain: true
        }
    }
}
