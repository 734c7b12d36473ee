import NIOCore
import PostgresNIO

extension PostgresEngine {
    /// How long a lone writer's batch may go unanswered before the server is asked, on a
    /// session of its own and within as long again, whether the writer's process is still
    /// running it (*assumed*: a commit takes milliseconds, and a push's sender waits on it).
    static let batchWatch = Duration.seconds(2)

    /// `sent`'s answer, or a failure (`PushStoreError.unanswered`) once the server has left
    /// the batch unanswered for `batchWatch` and then not said, within `batchWatch`, that
    /// the writer's process is running it: a server stopped, or cut off by a network gone
    /// silent, would otherwise hold every push waiting on the store for as long as TCP takes
    /// to give up (for ever, through a proxy that still answers). The writer's session is
    /// then closed, so the server rolls the batch back (unless its `COMMIT` had arrived and
    /// only the answer was lost); the next batch opens another. A batch the server is still
    /// running is waited on, a look every `batchWatch`, up to `longestBusyWait`. A batch
    /// still waiting for its session is given up at the first look: the attempt to open one
    /// goes on, for the batches after it.
    func watched(_ sent: EventLoopFuture<Void>, by watch: PostgresBatchWatch) -> EventLoopFuture<Void> {
        let loop = sent.eventLoop
        let outcome = loop.makePromise(of: Void.self)
        let started = NIODeadline.now()
        sent.whenComplete { result in
            if watch.answer() { outcome.completeWith(result) }
        }
        @Sendable func giveUp(closing connection: PostgresConnection?) {
            guard watch.answer() else { return }
            if let connection { self.endLoneSession(connection) }
            outcome.fail(PushStoreError.unanswered(after: Self.waited(since: started)))
        }
        @Sendable func look() {
            watch.arm(
                loop.scheduleTask(in: TimeAmount(Self.batchWatch)) {
                    switch watch.found {
                    case .answered:
                        return
                    case .waiting:
                        giveUp(closing: nil)
                    case .sent(let connection):
                        let backend = self.writerSession.withLock { $0?.connection === connection ? $0?.backend : nil }
                        guard let backend, NIODeadline.now() - started < TimeAmount(Self.longestBusyWait) else {
                            return giveUp(closing: connection)
                        }
                        self.writerIsBusy(backend, within: Self.batchWatch).whenSuccess { busy in
                            if busy { look() } else { giveUp(closing: connection) }
                        }
                    }
                })
        }
        look()
        return outcome.futureResult
    }

    /// How long opening a reader's session (the connect and the server's start-up, then the
    /// first query) may take before the read is given up (*assumed*: postgres-nio's
    /// `connectTimeout`, 5 s, bounds the first two; a server that answers takes milliseconds
    /// for the query).
    static let readerOpenWatch = Duration.seconds(6)

    /// A new reader's session and its server's name for it, or a failure: `readUnanswered`
    /// once `readerOpenWatch` passes first. postgres-nio's `connectTimeout` bounds the
    /// connect and the start-up, but not the first query: a server, or a network, gone silent
    /// just after the start-up would hold the read until TCP gives up. The give-up closes the
    /// session (the query on it then fails), as a read's watch does; one that opens later is
    /// closed at once, so no give-up leaves a session open beside the readers' places.
    func openReader() -> EventLoopFuture<ReaderSession> {
        let watch = PostgresBatchWatch()
        let opening = connectSession().flatMap { connection -> EventLoopFuture<ReaderSession> in
            guard watch.sending(on: connection) else {
                return connection.close().flatMapThrowing { throw PushStoreError.readUnanswered(after: Self.readerOpenWatch) }
            }
            return Self.backend(of: connection, logger: self.logger)
                .map { ReaderSession(connection: connection, backend: $0) }
                .flatMapError { error in
                    connection.close().flatMapThrowing {
                        throw PushStoreError.cannotOpen(path: self.url.description, reason: Self.reason(error, url: self.url))
                    }
                }
        }
        let loop = opening.eventLoop
        let outcome = loop.makePromise(of: ReaderSession.self)
        let started = NIODeadline.now()
        opening.whenComplete { result in
            if watch.answer() {
                outcome.completeWith(result)
            } else if case .success(let late) = result {
                late.connection.close().whenComplete { _ in _ = late }
            }
        }
        watch.arm(
            loop.scheduleTask(in: TimeAmount(Self.readerOpenWatch)) {
                let (first, connection) = watch.giveUp()
                guard first else { return }
                connection?.close().whenComplete { _ in _ = connection }
                outcome.fail(PushStoreError.readUnanswered(after: Self.waited(since: started)))
            })
        return outcome.futureResult
    }

    /// How long a watched request waited since `started`, to a tenth of a second, as a
    /// message says it.
    static func waited(since started: NIODeadline) -> Duration {
        .milliseconds((NIODeadline.now() - started).nanoseconds / 100_000_000 * 100)
    }

    /// Closes a lone writer's session that no longer answers; the next batch opens another.
    private func endLoneSession(_ connection: PostgresConnection) {
        writerSession.withLock { session in
            if session?.connection === connection { session = nil }
        }
        connection.close().whenComplete { _ in _ = connection }
    }
}
