import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import SilentPushCore
import SilentPushNetworking
import Synchronization

/// The records in PostgreSQL through postgres-nio. Batches commit on one session of their own
/// (the writer), which also holds the store's owner lock; reads, snapshots and retention use
/// a few sessions beside it (`maximumReaders`), as SQLite's readers do beside its writer.
/// Nothing runs in a task of its own: the writer's drain is a chain of the connection's
/// futures, started by whoever queues a write, and a read connects in its caller's task.
///
/// A batch is sent as `BEGIN`, its statements (`PostgresEngine+Batch.swift`: few, as each is a
/// round trip) and `COMMIT`, queued on the writer's connection at once (no task switch between
/// them; postgres-nio sends each when the one before has answered). A statement that fails
/// aborts the transaction, and the server answers the `COMMIT` with a rollback: a batch is all
/// or nothing, and its completions run only once `COMMIT` is acknowledged (`synchronous_commit`
/// on: in the WAL, on disk). A writer whose connection ended fails its batch (the receiver
/// answers 503 and probes); the next batch connects again and takes the owner lock again. A
/// clustered store's writer holds its shards' claims instead (`PostgresEngine+Cluster.swift`):
/// when that session ends, so do the claims, and nothing is written until the receiver has let
/// its shards go and joined again.
final class PostgresEngine: StoreEngine {
    /// Where the database is (its password kept, never printed: `description` leaves it out).
    let url: PostgresURL
    /// Whether the store is one of a cluster's receivers (which share the database, each
    /// holding its shards' claims on its writer's session) rather than its one owner (which
    /// holds the owner lock there).
    let clustered: Bool
    let writerSession = Mutex<WriterSession?>(nil)
    private let readers = Mutex(Readers())
    let logger: Logger
    /// Called when a clustered writer's session ended (its claims with it).
    let sessionEnded = Mutex<(@Sendable () -> Void)?>(nil)
    /// What a lone owner wrote in `store_owner` as it took the owner lock: a session taken
    /// again finds it there, or learns that another receiver owned the store meanwhile.
    let ownerMark: Int64
    /// Opened once another receiver owned the store while this one's session was gone: no
    /// batch is written from then on (`PushStoreError.takenOver`).
    let takenOver = AsyncLatch()
    /// Every session this engine opened that may still be open, and whether it was abandoned
    /// (`abandon()`): then no session is opened again.
    private let sessions = Mutex(Sessions())
    /// A lone writer's attempt under way to open its session again, which every batch waits on.
    private let reconnecting = Mutex<EventLoopFuture<PostgresConnection>?>(nil)
    private static let connectionIDs = Atomic<Int>(0)

    /// The advisory lock a receiver that owns the whole database holds on its writer's session.
    static let ownerLock: Int64 = 0x5350_5354_4F52_4500  // "SPSTORE"
    /// The advisory lock that serialises migrations of receivers starting together.
    static let migrationLock: Int64 = 0x5350_4D49_4752_4100  // "SPMIGRA"
    /// Rows one insert takes: a run of pushes (or of wakes) is one statement, not one per row.
    static let rowsPerInsert = 64
    /// The most sessions reads hold open at once; more readers wait for one.
    static let maximumReaders = 4

    /// The readers' sessions: idle ones, how many are open or opening, and who waits.
    private struct Readers {
        var idle: [ReaderSession] = []
        var open = 0
        /// Resumed with a session handed over, or nil: the caller may open one itself.
        var waiting: [CheckedContinuation<ReaderSession?, Never>] = []
        var closed = false
    }

    /// A reader's session, and the server's name for it, which a read's watch asks about.
    struct ReaderSession: Sendable {
        let connection: PostgresConnection
        let backend: Backend
    }

    /// The sessions `abandon()` ends: those open or closed since (pruned as new ones open).
    private struct Sessions {
        var opened: [PostgresConnection] = []
        var abandoned = false
    }

    /// The writer's session: its connection and the server's name for it, which
    /// `writerIsBusy` asks the server about (a cluster's member has it once it joined).
    struct WriterSession {
        let connection: PostgresConnection
        var backend: Backend?
    }

    /// The server's name for `connection`'s session.
    static func backend(of connection: PostgresConnection, logger: Logger) -> EventLoopFuture<Backend> {
        connection.queryUnlessClosed(
            "SELECT pid::bigint, (extract(epoch FROM backend_start) * 1000000)::bigint FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            logger: logger
        ).flatMapThrowing { result in
            let (pid, start): (Int64, Int64) = try result.rows.first?.decode((Int64, Int64).self) ?? (0, 0)
            return Backend(pid: pid, start: start)
        }
    }

    /// A server process, named as `pg_stat_activity` names it: its pid, and its start time
    /// (microseconds since 1970, whatever a session's time zone), which tells it from a later
    /// process given the same pid.
    struct Backend: Equatable, Sendable {
        let pid: Int64
        let start: Int64
    }

    private init(url: PostgresURL, clustered: Bool, writer: WriterSession, ownerMark: Int64, logger: Logger) {
        self.url = url
        self.clustered = clustered
        self.ownerMark = ownerMark
        self.logger = logger
        writerSession.withLock { $0 = writer }
        sessions.withLock { $0.opened = [writer.connection] }
    }

    /// A store dropped without `close()` (a test's) still ends its sessions, each kept until
    /// its close completes.
    deinit {
        let sessions = (writerSession.withLock { $0?.connection }.map { [$0] } ?? []) + readers.withLock { $0.idle.map(\.connection) }
        for session in sessions { session.close().whenComplete { _ in _ = session } }
    }

    /// Connects, migrates an empty database (or refuses one of a newer schema) and, unless
    /// `clustered`, takes the owner lock. `fresh` empties every table.
    static func open(_ url: PostgresURL, clustered: Bool = false, fresh: Bool = false) async throws -> PostgresEngine {
        var logger = Logger(label: "silentpush.store.postgres")
        logger.logLevel = .critical
        let writer = try await connect(url, logger: logger).get()
        let mark = Int64.random(in: 1...Int64.max)
        var backend: Backend?
        do {
            try await migrate(writer, url: url, logger: logger)
            if clustered {
                // A member leaves its mark once it joins (`join`), holding the store with the others.
                try await prepareClusterSession(writer, logger: logger)
            } else {
                try await takeOwnerLock(writer, url: url, logger: logger).get()
                try await markOwner(writer, mark: mark, logger: logger)
                backend = try await Self.backend(of: writer, logger: logger).get()
            }
            if fresh { try await empty(writer, logger: logger) }
        } catch {
            try? await writer.close()
            throw error
        }
        return PostgresEngine(
            url: url, clustered: clustered, writer: WriterSession(connection: writer, backend: backend), ownerMark: mark, logger: logger)
    }

    /// Where the last receiver to open the store left its mark (`ownerMark`), made with the
    /// migrations under their lock (receivers starting together would race to create it); not
    /// one of the schema's tables, as a fresh start or a reset keeps it.
    static let ownerTable = "CREATE TABLE IF NOT EXISTS store_owner (id BIGINT PRIMARY KEY CHECK (id = 1), mark BIGINT NOT NULL)"

    /// Leaves `mark` in `store_owner`: the store is this receiver's (or its cluster's) now.
    static func markOwner(_ connection: PostgresConnection, mark: Int64, logger: Logger) async throws {
        _ = try await connection.queryUnlessClosed(
            PostgresQuery(unsafeSQL: "INSERT INTO store_owner (id, mark) VALUES (1, \(mark)) ON CONFLICT (id) DO UPDATE SET mark = excluded.mark"),
            logger: logger
        ).get()
    }

    /// Whether `store_owner` still holds this receiver's mark, read on `connection`.
    private func holdsOwnerMark(_ connection: PostgresConnection) -> EventLoopFuture<Bool> {
        connection.queryUnlessClosed("SELECT mark FROM store_owner WHERE id = 1", logger: logger).map { result in
            (try? result.rows.first?.decode(Int64.self)) == self.ownerMark
        }
    }

    private static func configuration(_ url: PostgresURL) throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: try tls(url))
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// The connection's TLS, as libpq's `sslmode` and `sslrootcert` say.
    static func tls(_ url: PostgresURL) throws -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch url.tls {
        case .disable: return .disable
        // As libpq: `require` with a root certificate file checks the authority (verify-ca).
        case .require: tls.certificateVerification = url.rootCertificate == nil ? .none : .noHostnameVerification
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let root = url.rootCertificate {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(root))
        }
        return .require(try NIOSSLContext(configuration: tls))
    }

    /// A new session of this engine's (which `abandon()` ends), or why there is none: a
    /// session opened once the engine was abandoned is closed and refused.
    func connectSession() -> EventLoopFuture<PostgresConnection> {
        Self.connect(url, logger: logger).flatMap { connection in
            let kept = self.sessions.withLock { sessions -> Bool in
                guard !sessions.abandoned else { return false }
                sessions.opened.removeAll { $0.isClosed }
                sessions.opened.append(connection)
                return true
            }
            if kept { return connection.eventLoop.makeSucceededFuture(connection) }
            return connection.close().flatMapThrowing { throw PushStoreError.closed }
        }
    }

    /// How many of the sessions this engine opened are open now.
    var openSessionCount: Int {
        sessions.withLock { sessions in sessions.opened.count { !$0.isClosed } }
    }

    /// Ends every session at once, without asking the server: a statement waiting on one
    /// fails (and with it the call, or the batch, that sent it), and so does every later one,
    /// as no session is opened again. For a server that no longer answers (stopped, or behind
    /// a network that went silent), whose answer would never come.
    func abandon() {
        let opened = sessions.withLock { sessions in
            sessions.abandoned = true
            defer { sessions.opened = [] }
            return sessions.opened
        }
        let waiting = readers.withLock { readers in
            readers.closed = true
            defer { readers.waiting = [] }
            return readers.waiting
        }
        for waiter in waiting { waiter.resume(returning: nil) }
        for connection in opened { connection.close().whenComplete { _ in _ = connection } }
    }

    var wasAbandoned: Bool { sessions.withLock { $0.abandoned } }

    /// A new session, or why there is none (naming the URL, never its password).
    static func connect(_ url: PostgresURL, logger: Logger) -> EventLoopFuture<PostgresConnection> {
        let loop = PostgresConnection.defaultEventLoopGroup.any()
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try Self.configuration(url)
        } catch {
            let root = url.rootCertificate.map { "sslrootcert '\($0)'" } ?? "the system's trusted certificates"
            return loop.makeFailedFuture(
                PushStoreError.cannotOpen(
                    path: url.description, reason: "cannot read \(root): \(Self.certificateProblem(error, file: url.rootCertificate))"))
        }
        return PostgresConnection.connect(
            on: loop, configuration: configuration, id: connectionIDs.add(1, ordering: .relaxed).newValue, logger: logger
        ).flatMapErrorThrowing { error in throw PushStoreError.cannotOpen(path: url.description, reason: reason(error, url: url)) }
    }

    /// Why the trusted certificates could not be read, in a few words: the file's absence or
    /// access before what NIOSSL calls it.
    private static func certificateProblem(_ error: any Error, file: String?) -> String {
        if let file {
            if !FileManager.default.fileExists(atPath: file) { return "no such file" }
            if !FileManager.default.isReadableFile(atPath: file) { return "permission denied" }
        }
        if case .failedToLoadCertificate? = error as? NIOSSLError { return "it holds no PEM certificate" }
        return "\(error)"
    }

    /// Makes an empty database the store; takes one of an older version to this one, a step at
    /// a time, in the same transaction; leaves one of this version as it is; refuses a newer one.
    private static func migrate(_ connection: PostgresConnection, url: PostgresURL, logger: Logger) async throws {
        do {
            _ = try await connection.queryUnlessClosed("BEGIN", logger: logger).get()
            _ = try await connection.queryUnlessClosed("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger).get()
            let found = try await connection.queryUnlessClosed("SELECT to_regclass('schema_version') IS NOT NULL", logger: logger).get()
            if try found.rows.first?.decode(Bool.self) == true {
                let version = try await connection.queryUnlessClosed("SELECT MAX(version) FROM schema_version", logger: logger).get()
                let number = try version.rows.first?.decode(Int64?.self) ?? 0
                guard number <= PostgresSchema.version else {
                    _ = try await connection.queryUnlessClosed("COMMIT", logger: logger).get()
                    throw PushStoreError.newerSchema(path: url.description, found: Int(clamping: number), supported: PostgresSchema.version)
                }
                var reached = number
                if number < PostgresSchema.version {
                    // An upgrade's ALTER waits for the tables' other users: a cluster's members
                    // still running fail it after this long, instead of queueing behind it.
                    _ = try await connection.queryUnlessClosed("SET LOCAL lock_timeout = '10s'", logger: logger).get()
                }
                while reached < PostgresSchema.version, let upgrade = PostgresSchema.upgrades[reached] {
                    for statement in upgrade {
                        _ = try await connection.queryUnlessClosed(PostgresQuery(unsafeSQL: statement), logger: logger).get()
                    }
                    reached += 1
                    _ = try await connection.queryUnlessClosed("INSERT INTO schema_version (version) VALUES (\(reached))", logger: logger).get()
                }
                guard reached == PostgresSchema.version else {
                    _ = try await connection.queryUnlessClosed("ROLLBACK", logger: logger).get()
                    throw PushStoreError.cannotOpen(
                        path: url.description, reason: "its schema is version \(number), which this version cannot migrate; give it an empty database"
                    )
                }
                // Made only where missing: a role that may not create tables opens a store made before.
                let owner = try await connection.queryUnlessClosed("SELECT to_regclass('store_owner') IS NOT NULL", logger: logger).get()
                if try owner.rows.first?.decode(Bool.self) != true {
                    _ = try await connection.queryUnlessClosed(PostgresQuery(unsafeSQL: ownerTable), logger: logger).get()
                }
                _ = try await connection.queryUnlessClosed("COMMIT", logger: logger).get()
                if reached != number { logger.notice("store migrated", metadata: ["from": "\(number)", "to": "\(reached)"]) }
                return
            }
            for statement in PostgresSchema.statements + [ownerTable] {
                _ = try await connection.queryUnlessClosed(PostgresQuery(unsafeSQL: statement), logger: logger).get()
            }
            _ = try await connection.queryUnlessClosed("COMMIT", logger: logger).get()
        } catch let error as PushStoreError {
            throw error
        } catch {
            _ = try? await connection.queryUnlessClosed("ROLLBACK", logger: logger).get()
            throw PushStoreError.cannotOpen(path: url.description, reason: "cannot migrate it: \(reason(error))")
        }
    }

    /// Takes the owner lock on `connection`'s session; `inUse` while another session holds it.
    private static func takeOwnerLock(_ connection: PostgresConnection, url: PostgresURL, logger: Logger) -> EventLoopFuture<Void> {
        let lock: EventLoopFuture<PostgresQueryResult> = connection.queryUnlessClosed("SELECT pg_try_advisory_lock(\(ownerLock))", logger: logger)
        return lock.flatMapErrorThrowing { error in throw PushStoreError.cannotOpen(path: url.description, reason: reason(error)) }
            .flatMap { result in
                guard (try? result.rows.first?.decode(Bool.self)) != true else { return connection.eventLoop.makeSucceededVoidFuture() }
                // Held: by a running cluster's members (who share it), or by another receiver.
                let members = connection.queryUnlessClosed(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT shards FROM cluster WHERE id = 1 AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
                                AND classid = \(memberClass) AND objsubid = 2 AND granted)
                            """), logger: logger)
                return members.flatMapThrowing { rows in
                    guard let shards = try rows.rows.first?.decode(Int64.self) else { throw PushStoreError.inUse(path: url.description, pid: nil) }
                    throw PushStoreError.usedByCluster(path: url.description, shards: Int(clamping: shards))
                }.flatMapErrorThrowing { error in
                    if error is PushStoreError { throw error }
                    throw PushStoreError.inUse(path: url.description, pid: nil)
                }
            }
    }

    private static func empty(_ connection: PostgresConnection, logger: Logger) async throws {
        let tables = PostgresSchema.tables.filter { $0 != "schema_version" }.joined(separator: ", ")
        _ = try await connection.queryUnlessClosed(PostgresQuery(unsafeSQL: "TRUNCATE \(tables)"), logger: logger).get()
    }

    /// What went wrong, in the server's or the system's words: never the password (neither
    /// is given it), never postgres-nio's generic text.
    static func reason(_ error: any Error, url: PostgresURL? = nil) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            // A wrong password (invalid_password) that the URL does not show: say whose it is.
            guard error.serverInfo?[.sqlState] == "28P01", url?.passwordSource == .environment else { return message }
            return message + ": the password is PGPASSWORD's"
        }
        if case .handshakeFailed(.sslError(let stack))? = error.underlying as? NIOSSLError,
            stack.contains(where: { $0.description.contains("CERTIFICATE_VERIFY_FAILED") })
        {
            return "the server's certificate did not verify"
                + (url?.rootCertificate.map { " against sslrootcert '\($0)'" } ?? ": give its authority as sslrootcert=PEM")
        }
        if let underlying = error.underlying {
            if let connect = ConnectionFailure.reason(underlying) { return "cannot connect to PostgreSQL: \(connect)" }
            // A read or write on a session that broke: the system's words, not NIO's call.
            if let io = underlying as? IOError { return "the connection to PostgreSQL broke: \(String(cString: strerror(io.errnoCode)))" }
            return "\(underlying)"
        }
        switch sessionFailure(error.code) {
        case .ended?: return PostgresSessionClosed.reason
        case .cannotConnect?: return "cannot connect to PostgreSQL"
        case nil:
            if error.code == .authMechanismRequiresPassword {
                return "the PostgreSQL server asks for a password: put it in the URL (after the user and a ':') or in PGPASSWORD"
            }
            if error.code == .sslUnsupported {
                let mode = url.map { "sslmode=\($0.tls.rawValue)" } ?? "sslmode"
                return "the PostgreSQL server does not take TLS connections (drop \(mode), or turn on ssl in the server)"
            }
            return "\(error.code)"
        }
    }

    /// A failure of the session rather than of the statement: the store cannot be reached now.
    enum SessionFailure {
        case ended
        case cannotConnect
    }

    /// A statement the server refused, in its own words (`PSQLError`'s description hides
    /// them); any other error as it is.
    static func refusal(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError, let message = error.serverInfo?[.message] else { return error }
        return PushStoreError.refused(reason: message)
    }

    /// What `code` says of the session; nil for an error of the statement.
    static func sessionFailure(_ code: PSQLError.Code) -> SessionFailure? {
        switch code {
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: .ended
        case .connectionError: .cannotConnect
        default: nil
        }
    }

    // MARK: Reads

    func rows(_ statement: StoreStatement, cached: Bool) async throws -> [StoreRow] {
        try await withReader { connection in try await Self.rows(statement, connection, logger) }
    }

    func snapshot(_ statements: [StoreStatement]) async throws -> [[StoreRow]] {
        try await withReader { connection in
            _ = try await connection.queryUnlessClosed("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger).get()
            do {
                var results: [[StoreRow]] = []
                for statement in statements { results.append(try await Self.rows(statement, connection, logger)) }
                _ = try await connection.queryUnlessClosed("COMMIT", logger: logger).get()
                return results
            } catch {
                _ = try? await connection.queryUnlessClosed("ROLLBACK", logger: logger).get()
                throw error
            }
        }
    }

    /// Runs `body` on a reader's session: an idle one, a new one while fewer than
    /// `maximumReaders` are open, else the next one given back. The read is watched
    /// (`watchRead`): one the server leaves unanswered and does not say it runs fails
    /// `readUnanswered`.
    private func withReader<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let session = try await leaseReader()
        let connection = session.connection
        let watch = PostgresBatchWatch()
        _ = watch.sending(on: connection)
        let started = NIODeadline.now()
        watchRead(session, by: watch)
        do {
            let result = try await body(connection)
            // Answered, even past the watch giving it up: the answer stands. A session the
            // watch gave up is its to close: not given back for another read.
            giveBack(watch.answer() ? session : nil)
            return result
        } catch {
            let givenUp = !watch.answer()
            giveBack(givenUp ? nil : session)
            if givenUp { throw PushStoreError.readUnanswered(after: Self.waited(since: started)) }
            // A connection that ended under the read: the store cannot be reached now.
            if connection.isClosed || (error as? PSQLError).flatMap({ Self.sessionFailure($0.code) }) != nil {
                throw PushStoreError.cannotOpen(path: url.description, reason: Self.reason(error, url: url))
            }
            throw Self.refusal(error)
        }
    }

    /// Looks at a read every `batchWatch` while it runs: one the server is not running, or
    /// does not say within `batchWatch` that it runs (a server stopped, or a network gone
    /// silent), is given up and its session closed, so the read fails at once rather than
    /// when TCP gives up (for ever, through a proxy that still answers). A read the server
    /// runs is waited on, however long it takes.
    private func watchRead(_ session: ReaderSession, by watch: PostgresBatchWatch) {
        watch.arm(
            session.connection.eventLoop.scheduleTask(in: TimeAmount(Self.batchWatch)) {
                guard case .sent = watch.found else { return }
                self.writerIsBusy(session.backend, within: Self.batchWatch).whenSuccess { busy in
                    if busy {
                        self.watchRead(session, by: watch)
                    } else if watch.answer() {
                        session.connection.close().whenComplete { _ in }
                    }
                }
            })
    }

    private func leaseReader() async throws -> ReaderSession {
        enum Lease {
            case idle(ReaderSession)
            case connect
            case wait
            case closed
        }
        while true {
            let lease = readers.withLock { readers -> Lease in
                if readers.closed { return .closed }
                while let session = readers.idle.popLast() {
                    if !session.connection.isClosed { return .idle(session) }
                    readers.open -= 1
                }
                guard readers.open < Self.maximumReaders else { return .wait }
                readers.open += 1
                return .connect
            }
            switch lease {
            case .idle(let session):
                return session
            case .closed:
                throw PushStoreError.closed
            case .connect:
                do {
                    return try await openReader().get()
                } catch {
                    giveBack(nil)
                    throw error
                }
            case .wait:
                let handed = await withCheckedContinuation { (continuation: CheckedContinuation<ReaderSession?, Never>) in
                    readers.withLock { $0.waiting.append(continuation) }
                }
                if let handed { return handed }
            }
        }
    }

    /// Gives a reader's session back (nil: one that could not be opened), to the first who
    /// waits or to the idle ones; a closed one frees its place.
    private func giveBack(_ session: ReaderSession?) {
        let usable = session.flatMap { $0.connection.isClosed ? nil : $0 }
        let waiter = readers.withLock { readers -> CheckedContinuation<ReaderSession?, Never>? in
            if usable == nil { readers.open -= 1 }
            let waiter = readers.waiting.isEmpty ? nil : readers.waiting.removeFirst()
            if waiter == nil, let usable { readers.idle.append(usable) }
            return waiter
        }
        waiter?.resume(returning: usable)
    }

    private static func rows(_ statement: StoreStatement, _ connection: PostgresConnection, _ logger: Logger) async throws -> [StoreRow] {
        try storeRows(try await connection.queryUnlessClosed(statement.postgresQuery, logger: logger).get())
    }

    /// A query's rows as the engine-neutral rows the reads take.
    static func storeRows(_ result: PostgresQueryResult) throws -> [StoreRow] {
        guard let first = result.rows.first else { return [] }
        let columns = StoreColumns(first.map(\.columnName))
        return try result.rows.map { row in StoreRow(columns: columns, values: try row.map(StoreValue.init)) }
    }

    // MARK: Writes

    func startDrain(of writer: StoreWriter) {
        drain(writer, started: false)
    }

    /// Commits the writer's next batch, then drains on from the commit's answer: one batch at
    /// a time, in order, on the connection's event loop.
    private func drain(_ writer: StoreWriter, started: Bool) {
        var started = started
        guard let batch = writer.nextBatch(&started) else { return }
        commit(batch).whenComplete { result in
            writer.finish(batch, result.mapError { $0 })
            self.drain(writer, started: true)
        }
    }

    /// The writer's session: the one it has, or a new one (with the owner lock taken again).
    /// A clustered writer's session that ended is not replaced here: its claims ended with it,
    /// and the receiver joins again once it has let its shards go (`join`).
    private func session() -> EventLoopFuture<PostgresConnection> {
        if sessions.withLock({ $0.abandoned }) { return PostgresConnection.defaultEventLoopGroup.any().makeFailedFuture(PushStoreError.closed) }
        let current = writerSession.withLock { $0?.connection }
        if let current, !current.isClosed { return current.eventLoop.makeSucceededFuture(current) }
        if clustered {
            if let current { endSession(ifStill: current) }
            return PostgresConnection.defaultEventLoopGroup.any().makeFailedFuture(PushStoreError.sessionEnded)
        }
        if takenOver.isOpen {
            return PostgresConnection.defaultEventLoopGroup.any().makeFailedFuture(PushStoreError.takenOver(path: url.description))
        }
        // One attempt at a time: a batch given up while it waited on one (`watched`) leaves it
        // to the next batch, rather than each opening its own on a server that does not answer.
        let (attempt, promise) = reconnecting.withLock { attempt -> (EventLoopFuture<PostgresConnection>, EventLoopPromise<PostgresConnection>?) in
            if let attempt { return (attempt, nil) }
            let made = PostgresConnection.defaultEventLoopGroup.any().makePromise(of: PostgresConnection.self)
            attempt = made.futureResult
            return (made.futureResult, made)
        }
        guard let promise else { return attempt }
        // Cleared before anyone is told: a caller that fails on it starts the next attempt.
        reconnect().whenComplete { result in
            self.reconnecting.withLock { $0 = nil }
            promise.completeWith(result)
        }
        return attempt
    }

    /// A lone writer's new session, with the owner lock taken again.
    private func reconnect() -> EventLoopFuture<PostgresConnection> {
        connectSession().flatMap { connection in
            // The lock taken, the mark must still be this receiver's; the lock held by another
            // session, that is this one's old session (not yet ended on the server: try
            // again later) only while the mark is.
            Self.takeOwnerLock(connection, url: self.url, logger: self.logger)
                .flatMap { self.holdsOwnerMark(connection).flatMapThrowing { mine in try self.ownerMarkChecked(mine) } }
                .flatMapError { error in
                    // A running cluster holds the store: it was taken over.
                    if case PushStoreError.usedByCluster = error {
                        return connection.eventLoop.makeSucceededVoidFuture().flatMapThrowing { try self.ownerMarkChecked(false) }
                    }
                    guard case PushStoreError.inUse = error else { return connection.eventLoop.makeFailedFuture(error) }
                    return self.holdsOwnerMark(connection).flatMapThrowing { mine in
                        try self.ownerMarkChecked(mine)
                        throw error
                    }
                }
                .flatMap { Self.backend(of: connection, logger: self.logger) }
                .map { backend in self.keep(connection, backend: backend) }
                .flatMapError { error in connection.close().flatMapThrowing { throw error } }
        }
    }

    /// Throws `takenOver` (for good) unless `mine`: the mark in `store_owner` is this receiver's.
    private func ownerMarkChecked(_ mine: Bool) throws {
        guard !mine else { return }
        takenOver.open()
        throw PushStoreError.takenOver(path: url.description)
    }

    private func keep(_ connection: PostgresConnection, backend: Backend) -> PostgresConnection {
        writerSession.withLock { $0 = WriterSession(connection: connection, backend: backend) }
        return connection
    }

    /// Commits `batch` in one transaction: every statement queued behind `BEGIN` at once,
    /// then `COMMIT`, whose answer says whether it all happened (a transaction that failed is
    /// answered ROLLBACK, not an error).
    private func commit(_ batch: [StoreWriter.Entry]) -> EventLoopFuture<Void> {
        // A cluster's member gives a silent session up by its claims' checks.
        if clustered { return send(batch, watch: nil) }
        let watch = PostgresBatchWatch()
        return watched(send(batch, watch: watch), by: watch)
    }

    /// Sends `batch` on the writer's session, unless `watch` gave it up before it had one.
    private func send(_ batch: [StoreWriter.Entry], watch: PostgresBatchWatch?) -> EventLoopFuture<Void> {
        let logger = logger
        return session().flatMap { connection in
            if let watch, !watch.sending(on: connection) {
                return connection.eventLoop.makeFailedFuture(PushStoreError.closed)  // given up: its answer was given
            }
            func queued(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> { connection.queryUnlessClosed(query, logger: logger) }
            var results = [queued("BEGIN")]
            for statement in Self.statements(batch) { results.append(queued(statement.postgresQuery)) }
            results.append(queued("COMMIT"))
            // The first failure, if any, once every statement has answered; else COMMIT's answer.
            return EventLoopFuture.whenAllComplete(results, on: connection.eventLoop).flatMapThrowing { answers in
                for answer in answers { if case .failure(let error) = answer { throw error } }
                guard case .success(let committed) = answers.last, committed.metadata.command == "COMMIT" else {
                    throw PushStoreError.notCommitted((try? answers.last?.get())?.metadata.command ?? "nothing")
                }
            }.flatMapErrorThrowing { error in
                // A clustered writer's session that ended took its claims with it.
                if self.clustered, connection.isClosed { self.endSession(ifStill: connection) }
                throw connection.isClosed ? error : Self.refusal(error)
            }
        }
    }

    func execute(_ statements: [StoreStatement]) async throws -> [Int] {
        // Taken over, the store is another's: nothing more is changed in it, on any session.
        if takenOver.isOpen { throw PushStoreError.takenOver(path: url.description) }
        // Changed only while this receiver holds the store: a writer session that ended is
        // taken again first (and a store another receiver took meanwhile found taken over).
        _ = try await session().get()
        return try await withReader { connection in
            _ = try await connection.queryUnlessClosed("BEGIN", logger: logger).get()
            do {
                var changed: [Int] = []
                for statement in statements {
                    changed.append(try await connection.queryUnlessClosed(statement.postgresQuery, logger: logger).get().metadata.rows ?? 0)
                }
                _ = try await connection.queryUnlessClosed("COMMIT", logger: logger).get()
                return changed
            } catch {
                _ = try? await connection.queryUnlessClosed("ROLLBACK", logger: logger).get()
                throw error
            }
        }
    }

    func close() async throws {
        let writer = writerSession.withLock { session -> PostgresConnection? in
            defer { session = nil }
            return session?.connection
        }
        let (idle, waiting) = readers.withLock { readers in
            readers.closed = true
            defer { (readers.idle, readers.waiting) = ([], []) }
            return (readers.idle, readers.waiting)
        }
        for waiter in waiting { waiter.resume(returning: nil) }
        // The server lets a session's advisory locks go only when its backend has exited,
        // some time after the socket closes: a receiver started again at once (or a cluster
        // member taking these shards over) found the store still in use. Given back first.
        if let writer, !writer.isClosed {
            // At most 2 s: a server gone or a half-open connection must not hold a shutdown
            // (closing the connection fails the query).
            let stuck = writer.eventLoop.scheduleTask(in: .seconds(2)) { writer.close().whenComplete { _ in } }
            _ = try? await writer.queryUnlessClosed("SELECT pg_advisory_unlock_all()", logger: logger).get()
            stuck.cancel()
        }
        for session in idle.map(\.connection) + (writer.map { [$0] } ?? []) { try? await session.close() }
    }

    // MARK: Space

    func size() async throws -> Int {
        let rows = try await rows(StoreStatement("SELECT pg_database_size(current_database()) AS size"), cached: false)
        return rows.first?["size"] ?? 0
    }

    /// PostgreSQL's autovacuum gives space back on its own.
    func vacuumIncrementally(pages: Int) async throws -> Int { 0 }

    /// PostgreSQL checkpoints its WAL on its own.
    func checkpoint() async {}
}
