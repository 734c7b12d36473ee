import Logging
import SilentPushCore
import SilentPushStore
import Synchronization

/// How a cluster's members order each other about, through the store's LISTEN/NOTIFY: a
/// member sends an order (`call`) and waits until every member listening when it sent it
/// has carried it out and answered, or has left the cluster; each member carries out the
/// orders it hears one at a time, in the order sent (`run()`), and answers each.
///
/// A member listens on its writer's session and, once LISTEN is in effect, takes a listen
/// lock there: a caller waits for the holders of that lock, each of which hears its order.
/// A member that starts listening (at start, or after its session ended) first catches up
/// from the store (the clock, the fault rules), then carries out what it hears; it claims
/// no shard before it listens.
package final class ClusterBus: Sendable {
    /// Carries out an order; returns why it could not, or nil.
    package typealias Perform = @Sendable (ClusterNotice.Order) async -> String?

    private let store: PushStore
    /// How often a waiting call checks which members are still live.
    private let interval: Duration
    /// How long a check of the locks may go unanswered before the session is taken for gone:
    /// the claim's lease, as the claim tick has it (a check cut shorter would end a session
    /// that is only slow, and with it every claim).
    private let lease: Duration
    /// How long a call waits for answers before it gives up on the members still silent.
    private let answerLimit: Duration
    private let logger: Logger
    private let state = Mutex(State())
    /// Orders heard, in order; nil: this member started listening, and catches up first.
    private let orders: AsyncStream<Heard?>
    private let heard: AsyncStream<Heard?>.Continuation
    private let performer = Mutex<Perform?>(nil)
    private let catchingUp = Mutex<(@Sendable () async -> Bool)?>(nil)
    /// Calls sent from code that cannot wait (`send`), made by `run()`'s own task.
    private let outgoing: AsyncStream<UInt64>
    private let sending: AsyncStream<UInt64>.Continuation
    /// The sent calls not yet answered, by number: each answered once, failed if the bus stops.
    private let sent = Mutex<(next: UInt64, calls: [UInt64: Sent])>((0, [:]))

    /// A call `send` took: its order and what runs with its answer.
    typealias Sent = (order: ClusterNotice.Order, completion: @Sendable (Result<[ClusterCalls.Failure], any Error>) -> Void)

    private typealias Heard = (from: Int32, call: UInt64, order: ClusterNotice.Order)

    private struct State {
        var calls = ClusterCalls()
        /// This member's writer session (its name in notices).
        var session: Int32 = 0
        /// The session on which this member last caught up from the store, once it has.
        var caughtUp: Int32?
        var waiting: [UInt64: AsyncLatch] = [:]
        var answers: [UInt64: [ClusterCalls.Failure]] = [:]
    }

    /// A bus on `store`, hearing its notices from now on.
    package init(store: PushStore, interval: Duration, lease: Duration, answerLimit: Duration = .seconds(120), logger: Logger) {
        self.store = store
        self.interval = interval
        self.lease = lease
        self.answerLimit = answerLimit
        self.logger = logger
        (orders, heard) = AsyncStream.makeStream()
        (outgoing, sending) = AsyncStream.makeStream()
    }

    /// Sets what carries out the orders heard, and what catches up from the store when this
    /// member starts listening (before `run()`).
    package func perform(_ perform: @escaping Perform, catchUp: @escaping @Sendable () async -> Bool) {
        performer.withLock { $0 = perform }
        catchingUp.withLock { $0 = catchUp }
    }

    /// Whether this member has caught up from the store on `session`: until it has, it claims
    /// no shard (its clock, fault rules and channels may be behind the cluster's).
    package func hasCaughtUp(on session: Int32) -> Bool {
        state.withLock { $0.caughtUp == session }
    }

    /// This member joined (again) on `session`.
    package func joined(session: Int32) {
        state.withLock { $0.session = session }
    }

    /// Listens on each writer session the store has, and carries out each order heard, in
    /// order, answering each, until cancelled.
    package func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listen() }
            group.addTask { await self.carryOutOrders() }
            group.addTask { await self.makeSentCalls() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Listens while the store's writer session lasts; again on the next one.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await store.listenCluster(started: { [heard] in heard.yield(nil) }, handler: { [weak self] in self?.hear($0) })
            } catch {
                // The session ended (or there is none yet): listen on the next one.
            }
            try? await Task.sleep(for: interval)
        }
    }

    private func carryOutOrders() async {
        for await next in orders {
            guard !Task.isCancelled else { return }
            guard let (from, call, order) = next else {
                let session = state.withLock { $0.session }
                if await catchingUp.withLock({ $0 })?() ?? true {
                    state.withLock { $0.caughtUp = session }
                } else {
                    // Tried again after a claim interval; orders heard meanwhile wait their turn.
                    try? await Task.sleep(for: interval)
                    heard.yield(nil)
                }
                continue
            }
            let failure: String? =
                if let perform = performer.withLock({ $0 }) { await perform(order) } else { "this receiver cannot carry out orders yet" }
            let me = state.withLock { $0.session }
            do {
                try await store.notifyCluster(ClusterNotice.answer(from: me, to: from, call: call, failure: failure).payload)
            } catch {
                logger.warning("cannot answer another receiver's order", metadata: ["error": "\(PushStore.describe(error))"])
            }
        }
    }

    /// Makes `call(order)` for code that cannot wait (a transport's callback): `completion`
    /// runs once with its answer, from `run()`'s task; with an error if the bus has stopped.
    package func send(_ order: ClusterNotice.Order, completion: @escaping @Sendable (Result<[ClusterCalls.Failure], any Error>) -> Void) {
        let number = sent.withLock { sent in
            defer { sent.next += 1 }
            sent.calls[sent.next] = (order, completion)
            return sent.next
        }
        if case .terminated = sending.yield(number), let taken = take(number) { taken.completion(.failure(CancellationError())) }
    }

    /// The sent call `number`, once: nil when it was taken already.
    private func take(_ number: UInt64) -> Sent? {
        sent.withLock { $0.calls.removeValue(forKey: number) }
    }

    /// Makes each sent call, concurrently, until cancelled; then fails those left.
    private func makeSentCalls() async {
        await withDiscardingTaskGroup { group in
            for await number in outgoing {
                guard let taken = take(number) else { continue }
                group.addTask {
                    do {
                        taken.completion(.success(try await self.call(taken.order)))
                    } catch {
                        taken.completion(.failure(error))
                    }
                }
            }
        }
        sending.finish()
        let left = sent.withLock { sent in
            defer { sent.calls.removeAll() }
            return Array(sent.calls.values)
        }
        for call in left { call.completion(.failure(CancellationError())) }
    }

    /// Sends `order` to every other live member and returns once each has carried it out
    /// (or left the cluster): those that could not, or did not answer within the limit.
    package func call(_ order: ClusterNotice.Order) async throws -> [ClusterCalls.Failure] {
        let locks = try await store.clusterLocks(timeout: lease)
        let latch = AsyncLatch()
        let (call, me, answered) = state.withLock { state in
            state.session = locks.session
            let (call, answer) = state.calls.send(to: locks.listeners.subtracting([locks.session]))
            if answer == nil { state.waiting[call] = latch }
            return (call, locks.session, answer)
        }
        if let answered { return answered.failures }
        do {
            try await store.notifyCluster(ClusterNotice.order(from: me, call: call, order).payload)
        } catch {
            state.withLock { state in
                _ = state.calls.giveUp(call, reason: "")
                state.waiting[call] = nil
            }
            throw error
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await latch.wait() }
            group.addTask {
                // Members that left are not waited for; after the limit, no one is.
                let clock = ContinuousClock()
                let start = clock.now
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.interval)
                    guard !Task.isCancelled else { return }
                    if clock.now - start >= self.answerLimit {
                        let answer = self.state.withLock { $0.calls.giveUp(call, reason: "did not answer within \(self.answerLimit)") }
                        self.deliver(answer.map { [$0] } ?? [])
                        return
                    }
                    if let live = try? await self.store.clusterLocks(timeout: self.lease) {
                        let answers = self.state.withLock { $0.calls.live(live.listeners) }
                        self.deliver(answers)
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
        return state.withLock { $0.answers.removeValue(forKey: call) ?? [] }
    }

    /// A notice heard: an order for this member's queue, or an answer to one of its calls.
    private func hear(_ payload: String) {
        guard let notice = ClusterNotice(payload: payload) else {
            logger.warning("a cluster notice this receiver does not understand was ignored", metadata: ["notice": "\(payload.prefix(200))"])
            return
        }
        switch notice {
        case .order(let from, let call, let order):
            guard from != state.withLock({ $0.session }) else { return }
            heard.yield((from, call, order))
        case .answer(let from, let to, let call, let failure):
            let answer = state.withLock { state -> ClusterCalls.Answer? in
                guard to == state.session else { return nil }
                return state.calls.answered(call, by: from, failure: failure)
            }
            deliver(answer.map { [$0] } ?? [])
        }
    }

    /// Hands each answer to the call waiting on it.
    private func deliver(_ answers: [ClusterCalls.Answer]) {
        let latches = state.withLock { state in
            answers.compactMap { answer -> AsyncLatch? in
                state.answers[answer.call] = answer.failures
                return state.waiting.removeValue(forKey: answer.call)
            }
        }
        for latch in latches { latch.open() }
    }
}
