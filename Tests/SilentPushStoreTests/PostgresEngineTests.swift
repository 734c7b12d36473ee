import Foundation
import SilentPushCore
@testable import SilentPushStore
import SilentPushTestSupport
import Synchronization
import Testing

/// What only the PostgreSQL engine does: its migration and version check, its owner lock,
/// its words when the server cannot be reached (never the password), its content bodies, and
/// writes across a server restart.
@Suite(.postgres) struct PostgresEngineTests {
    static func url(database: String) throws -> PostgresURL {
        try PostgresURL(try #require(PostgresServer.current).url(database: database))
    }

    /// A new database made the store, holding push 1, closed again.
    static func storeWithOnePush() async throws -> (server: PostgresServer, database: String, url: PostgresURL) {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let url = try Self.url(database: database)
        let store = try await PushStore.open(.postgres(url))
        try await store.write([.insertPush(PushStoreTests.push(1))])
        try await store.close()
        return (server, database, url)
    }

    /// A statement the server refuses, in a read or a write, fails in the server's own
    /// words: PostgresNIO's description of its error hides them.
    @Test func aStatementTheServerRefusesFailsInItsOwnWords() async throws {
        let (server, database, url) = try await Self.storeWithOnePush()
        let store = try await PushStore.open(.postgres(url))
        let dropped = try await server.psql(
            "DROP VIEW push_fates; ALTER TABLE wakes ADD CONSTRAINT no_more_wakes CHECK (id < 0) NOT VALID", database: database)
        #expect(dropped.status == 0, "\(dropped.errorOutput)")
        let read = await #expect(throws: PushStoreError.self) { try await store.pushes() }
        #expect(read.map { "\($0)" } == #"PostgreSQL refused it: relation "push_fates" does not exist"#)
        let wake = WakeRecord(
            id: 1, deviceToken: "aa", topic: "com.example.app", pushID: 1, generation: 0, startedAt: DeviceInstant(millisecondsSinceEpoch: 1),
            deadline: DeviceInstant(millisecondsSinceEpoch: 2))
        let write = await #expect(throws: PushStoreError.self) { try await store.write([.insertWake(wake)]) }
        #expect("\(write.map { "\($0)" } ?? "")".contains(#"violates check constraint "no_more_wakes""#), "\(String(describing: write))")
        try await store.close()
    }

    @Test func anEmptyDatabaseIsMigratedAndANewerSchemaIsRefusedInOneLine() async throws {
        let (server, database, url) = try await Self.storeWithOnePush()
        // Opened again, the same schema is kept as it is, with its rows.
        let again = try await PushStore.open(.postgres(url))
        #expect(try await again.pushes().map(\.id) == [1])
        try await again.close()

        let bumped = try await PeerProcess.run(
            "psql",
            ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", PostgresServer.user, "-d", database, "-c", "UPDATE schema_version SET version = 99"],
            environment: ["PGPASSWORD": PostgresServer.password])
        try #require(bumped.status == 0, "\(bumped.errorOutput)")
        let error = await #expect(throws: PushStoreError.self) { try await PushStore.open(.postgres(url)) }
        #expect(error == .newerSchema(path: url.description, found: 99, supported: PostgresSchema.version))
        let line = "\(try #require(error))"
        #expect(!line.contains("\n") && line.contains(url.description) && !line.contains(PostgresServer.password), "\(line)")
    }

    /// A database of an earlier version (18: no transfer's `from_file`) is taken to this one
    /// in place, its rows kept; one older than any upgrade is refused in one line.
    @Test func anOlderSchemaIsUpgradedInPlace() async throws {
        let (server, database, url) = try await Self.storeWithOnePush()
        // A wake a version before 20 ended at its deadline: `failed`, in the deadline's words.
        let downgraded = try await server.psql(
            """
            ALTER TABLE transfers DROP COLUMN from_file; DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES (18);
            INSERT INTO wakes (id, device_token, topic, push_id, generation, started_at, deadline, finished_at, result, reason, kind)
                VALUES (7, 'aa', 'com.example.app', 1, 0, 0, 30000, 30000, 'failed', 'deadlineExceeded', 'fetch')
            """,
            database: database)
        try #require(downgraded.status == 0, "\(downgraded.errorOutput)")
        let upgraded = try await PushStore.open(.postgres(url))
        #expect(try await upgraded.pushes().map(\.id) == [1])
        let request = try TransferRequest(session: "U", url: "http://127.0.0.1:9/up", method: .PUT, fromFile: "/tmp/body")
        try await upgraded.write([
            .insertTransfer(
                TransferRecord(id: 5, deviceToken: "aa", topic: "t", request: request, handedOverAt: DeviceInstant(millisecondsSinceEpoch: 0)))
        ])
        #expect(try await upgraded.transfer(id: 5)?.fromFile == "/tmp/body")
        #expect(try await upgraded.wakes(limit: 5).first { $0.id == 7 }?.result == .deadlineExceeded)
        try await upgraded.close()
        let version = try await server.psql("SELECT MAX(version) FROM schema_version", database: database)
        #expect(version.output.split(separator: "\n").contains("\(PostgresSchema.version)"), "\(version.output)")

        let ancient = try await server.psql("DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES (3)", database: database)
        try #require(ancient.status == 0, "\(ancient.errorOutput)")
        let error = await #expect(throws: PushStoreError.self) { try await PushStore.open(.postgres(url)) }
        #expect("\(try #require(error))".contains("its schema is version 3, which this version cannot migrate"))
    }

    /// A block of ids past the ceiling (the cluster's sequence set by hand) is refused, where
    /// its first id, shifted, lost its high bits and numbered from 0.
    @Test func anIDBlockPastTheCeilingIsRefused() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let store = try await PushStore.open(.postgres(try Self.url(database: database)), clustered: true)
        _ = try await store.joinCluster(shards: 4, name: "r1", now: 1)
        let first = try await store.takeIDBlock(timeout: .seconds(5))
        #expect(first > 0 && first % (1 << 28) == 0)
        let set = try await server.psql("SELECT setval('cluster_id_blocks', \(1 << 36 - 1))", database: database)
        try #require(set.status == 0, "\(set.errorOutput)")
        await #expect(throws: PushStoreError.idOutOfRange(table: "cluster_id_blocks", id: 1 << 36)) {
            try await store.takeIDBlock(timeout: .seconds(5))
        }
        try await store.close()
    }

    /// A claim check queued behind a commit that waits on a lock (or the disk) past the
    /// lease keeps the session: the server says the session is running a statement, so its
    /// claims are held. Before, the receiver ended its own session and let every shard go.
    @Test func aClaimCheckBehindACommitThatWaitsOnALockKeepsTheSession() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let store = try await PushStore.open(.postgres(try Self.url(database: database)), clustered: true)
        let ended = Atomic<Bool>(false)
        store.onSessionEnded { ended.store(true, ordering: .relaxed) }
        let pid = try await store.joinCluster(shards: 4, name: "r1", now: 1)
        #expect(try await store.claimShards([0, 1], timeout: .seconds(5)) == [0, 1])
        // Another session holds the wakes table for 4 s; the next commit waits on it.
        let holder = Task {
            try await server.psql("BEGIN; LOCK TABLE wakes IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT", database: database)
        }
        func waiting(_ query: String) async throws -> Bool {
            for _ in 0..<100 {
                if try await server.psql(query, database: database).output.hasPrefix("1") { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        #expect(try await waiting("SELECT 1 FROM pg_locks WHERE relation = 'wakes'::regclass AND mode = 'AccessExclusiveLock' AND granted"))
        let wake = WakeRecord(
            id: 1, deviceToken: "aa", topic: "com.example.app", pushID: 1, generation: 0, startedAt: DeviceInstant(millisecondsSinceEpoch: 1),
            deadline: DeviceInstant(millisecondsSinceEpoch: 2))
        let writing = Task { try await store.write([.insertWake(wake)]) }
        #expect(try await waiting("SELECT 1 FROM pg_stat_activity WHERE pid = \(pid) AND wait_event_type = 'Lock'"))
        let locks = try await store.clusterLocks(timeout: .seconds(1))
        #expect(locks.owned == [0, 1] && !ended.load(ordering: .relaxed))
        try await writing.value
        #expect(try await holder.value.status == 0)
        #expect(try await store.wake(id: 1) != nil)
        try await store.close()
    }

    @Test func aServerThatIsNotThereIsNamedWithoutItsPassword() async throws {
        let port = try LoopbackPort.free()
        let url = try PostgresURL("postgres://silentpush:\(PostgresServer.password)@127.0.0.1:\(port)/nothing")
        let error = await #expect(throws: PushStoreError.self) { try await PushStore.open(.postgres(url)) }
        let line = "\(try #require(error))"
        #expect(line.contains("postgres://silentpush@127.0.0.1:\(port)/nothing"), "\(line)")
        #expect(!line.contains(PostgresServer.password), "\(line)")
    }

    @Test func aSecondStoreOnTheSameDatabaseIsRefusedUntilTheFirstCloses() async throws {
        let server = try #require(PostgresServer.current)
        let url = try Self.url(database: try await server.newDatabase())
        let first = try await PushStore.open(.postgres(url))
        await #expect(throws: PushStoreError.inUse(path: url.description, pid: nil)) { try await PushStore.open(.postgres(url)) }
        try await first.close()
        let second = try await PushStore.open(.postgres(url))
        try await second.close()
    }

    /// A receiver started again the moment it stopped (systemd's restart, a test's next case)
    /// finds the store free: the owner lock is given back before the session closes, not when
    /// the server's backend gets round to exiting. Here that backend is held stopped across
    /// the close, as a busy server may leave it, and let go 300 ms later.
    @Test func aStoreOpenedAgainTheMomentItClosesIsNotInUse() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let url = try Self.url(database: database)
        let store = try await PushStore.open(.postgres(url))
        let holder = try await server.psql(
            """
            SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, database: database)
        let pid = try #require(pid_t(holder.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(holder.output)\(holder.errorOutput)")
        try #require(kill(pid, SIGSTOP) == 0)
        let resumed = Task {
            try? await Task.sleep(for: .milliseconds(300))
            kill(pid, SIGCONT)
        }
        try await store.close()
        let again = try await PushStore.open(.postgres(url))
        await resumed.value
        try await again.close()
    }

    /// `--fresh` empties the tables, and transfer ids start again from 1: the files the old
    /// transfers left go too, so a new transfer 1 cannot take an old `1.part` for its own.
    @Test func aFreshStoreLeavesNoTransferFileOfTheOldOne() async throws {
        let (_, _, url) = try await Self.storeWithOnePush()
        let store = try await PushStore.open(.postgres(url))
        try FileManager.default.createDirectory(atPath: store.transfersDirectory, withIntermediateDirectories: true)
        try Data("old bytes".utf8).write(to: URL(fileURLWithPath: store.transfersDirectory + "/1.part"))
        try await store.close()
        let kept = try await PushStore.open(.postgres(url))
        #expect(FileManager.default.fileExists(atPath: kept.transfersDirectory + "/1.part"), "a store opened as it is keeps them")
        try await kept.close()
        let fresh = try await PushStore.open(.postgres(url), fresh: true)
        #expect(try await fresh.pushes().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fresh.transfersDirectory + "/1.part"))
        try await fresh.close()
    }

    /// A server that takes only TLS: `sslmode=verify-full` with its certificate as
    /// `sslrootcert` opens the store; without TLS, or trusting only the system's authorities,
    /// it is refused in a line that names the URL and no password.
    @Test func aStoreOverTLSAsLibpqsSSLModeSays() async throws {
        try await PostgresServer.with { server in
            let root = try await server.requireTLS()
            let base = server.url()
            await #expect(throws: PushStoreError.self) { try await PushStore.open(.postgres(try PostgresURL(base))) }
            for mode in ["require", "verify-ca", "verify-full"] {
                let url = try PostgresURL(base + "?sslmode=\(mode)&sslrootcert=\(root)")
                let store = try await PushStore.open(.postgres(url))
                try await store.write([.insertPush(PushStoreTests.push(1))])
                #expect(try await store.pushes().map(\.id) == [1], "\(mode)")
                try await store.close()
                _ = try await server.psql("TRUNCATE pushes")
            }
            // `require` with a root certificate checks the authority, as libpq's does.
            let other = try Scratch.newDirectory("other-ca")
            defer { try? FileManager.default.removeItem(atPath: other) }
            let made = try await PeerProcess.run(
                "openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", other + "/ca.key",
                    "-out", other + "/ca.pem", "-subj", "/CN=another authority", "-days", "2",
                ])
            try #require(made.status == 0, "\(made.errorOutput)")
            let wrongAuthority = await #expect(throws: PushStoreError.self) {
                try await PushStore.open(.postgres(try PostgresURL(base + "?sslmode=require&sslrootcert=\(other)/ca.pem")))
            }
            #expect("\(try #require(wrongAuthority))".hasSuffix("did not verify against sslrootcert '\(other)/ca.pem'"))
            let untrusted = await #expect(throws: PushStoreError.self) {
                try await PushStore.open(.postgres(try PostgresURL(base + "?sslmode=verify-full")))
            }
            let line = "\(try #require(untrusted))"
            #expect(!line.contains(PostgresServer.password) && line.contains("sslmode=verify-full"), "\(line)")
            #expect(line.hasSuffix("the server's certificate did not verify: give its authority as sslrootcert=PEM"), "\(line)")
        }
    }

    /// A TLS mode the server does not take is named as given, and a root certificate file
    /// that is not there is said to be missing, not in NIOSSL's words.
    @Test func aTLSModeTheServerDoesNotTakeAndAMissingRootFileAreSaidAsSuch() async throws {
        let server = try #require(PostgresServer.current)
        let base = server.url(database: try await server.newDatabase())
        let plain = await #expect(throws: PushStoreError.self) {
            try await PushStore.open(.postgres(try PostgresURL(base + "?sslmode=verify-full")))
        }
        #expect("\(try #require(plain))".contains("does not take TLS connections (drop sslmode=verify-full,"), "\(String(describing: plain))")
        let missing = await #expect(throws: PushStoreError.self) {
            try await PushStore.open(.postgres(try PostgresURL(base + "?sslmode=require&sslrootcert=/nonexistent/ca.pem")))
        }
        #expect("\(try #require(missing))".hasSuffix("cannot read sslrootcert '/nonexistent/ca.pem': no such file"), "\(String(describing: missing))")
    }

    /// A database of version 20 takes version 21's change in place: the content bodies'
    /// `saved_at` and the indexes retention and a restart look things up by.
    @Test func aVersion20DatabaseIsUpgradedInPlace() async throws {
        let (server, database, url) = try await Self.storeWithOnePush()
        let downgraded = try await server.psql(
            """
            DROP INDEX contents_by_sha; DROP INDEX task_runs_running; DROP INDEX activity_updates_waiting;
            ALTER TABLE content_bodies DROP COLUMN saved_at; UPDATE schema_version SET version = 20
            """, database: database)
        try #require(downgraded.status == 0, "\(downgraded.errorOutput)")
        let store = try await PushStore.open(.postgres(url))
        #expect(try await store.pushes().map(\.id) == [1])
        try await store.saveContent(Array("body".utf8), sha256: "ab12")
        try await store.close()
        let indexes = try await server.psql(
            "SELECT indexname FROM pg_indexes WHERE indexname IN ('contents_by_sha', 'task_runs_running', 'activity_updates_waiting') ORDER BY 1",
            database: database)
        #expect(indexes.output.split(separator: "\n") == ["activity_updates_waiting", "contents_by_sha", "task_runs_running"])
        let version = try await server.psql("SELECT max(version) FROM schema_version", database: database)
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(PostgresSchema.version)")
    }

    @Test func contentBodiesAreRowsEveryReceiverReads() async throws {
        let store = try await StoreEngineKind.postgres.newStore()
        let body = Array("fresh content".utf8)
        try await store.saveContent(body, sha256: "ab12")
        try await store.saveContent(body, sha256: "ab12")  // content-addressed: kept once
        #expect(try await store.contentBody(sha256: "ab12") == body)
        #expect(try await store.contentBody(sha256: "cd34") == nil)
        try await store.close()
    }

    /// The server stops under the store: writes fail (nothing half-written), the store says
    /// it cannot write; once the server is back, the next write connects again, takes the
    /// owner lock again, and succeeds, without reopening the store.
    /// A store whose session ended while another receiver opened it writes nothing more,
    /// even once the other has closed (what it holds of its devices is no longer the store's):
    /// its writes fail `takenOver` and its takeover latch opens. One whose session ended with
    /// no other owner meanwhile takes the store back.
    @Test func aStoreTakenOverWhileItsSessionWasGoneWritesNothingMore() async throws {
        try await PostgresServer.with { server in
            let url = try PostgresURL(server.url(database: try await server.newDatabase()))
            let first = try await PushStore.open(.postgres(url))
            try await first.write([.insertPush(PushStoreTests.push(1))])
            try await server.restart(downFor: .zero)
            let second = try await PushStore.open(.postgres(url))  // the lock was free
            try await second.write([.insertPush(PushStoreTests.push(2))])
            for id in 3...4 as ClosedRange<UInt64> {
                await #expect(throws: PushStoreError.self) { try await first.write([.insertPush(PushStoreTests.push(id))]) }
            }
            #expect(first.takeover?.latch.isOpen == true)
            try await second.close()
            await #expect(throws: PushStoreError.takenOver(path: url.description)) {
                try await first.write([.insertPush(PushStoreTests.push(5))])
            }
            #expect(!first.isWritable)
            // Nor is anything changed on its other sessions (a body saved, rows pruned).
            await #expect(throws: PushStoreError.takenOver(path: url.description)) {
                try await first.saveContent(Array("body".utf8), sha256: String(repeating: "a", count: 64))
            }
            try await first.close()

            // A cluster's member that only tried to join (refused, as the store was held) took
            // nothing; one that joined while the store was free, and stopped, took it over.
            let lone = try await PushStore.open(.postgres(url))
            let refused = try await PushStore.open(.postgres(url), clustered: true)
            await #expect(throws: PushStoreError.self) { _ = try await refused.joinCluster(shards: 4, name: "refused", now: 0) }
            try await refused.close()
            try await server.restart(downFor: .zero)
            for id in 9...10 as ClosedRange<UInt64> { try? await lone.write([.insertPush(PushStoreTests.push(id))]) }
            #expect(lone.takeover?.latch.isOpen == false)
            try await server.restart(downFor: .zero)
            let member = try await PushStore.open(.postgres(url), clustered: true)
            _ = try await member.joinCluster(shards: 4, name: "member", now: 0)
            try await member.close()
            for id in 11...12 as ClosedRange<UInt64> { try? await lone.write([.insertPush(PushStoreTests.push(id))]) }
            #expect(lone.takeover?.latch.isOpen == true)
            try await lone.close()

            // Alone: the session ends, and the next writes take the store back.
            let alone = try await PushStore.open(.postgres(url))
            try await server.restart(downFor: .zero)
            for id in 6...7 as ClosedRange<UInt64> { try? await alone.write([.insertPush(PushStoreTests.push(id))]) }
            try await alone.write([.insertPush(PushStoreTests.push(8))])
            #expect(alone.takeover?.latch.isOpen == false)
            let ids = try await alone.pushes().map(\.id)
            #expect(ids.contains(1) && ids.contains(2) && ids.contains(8) && !ids.contains(3) && !ids.contains(5), "\(ids)")
            try await alone.close()
        }
    }

    /// A statement whose session ends under it (its backend killed: no word from the server,
    /// the socket just closes) fails, and so does the call that asked it, at once. Before, the
    /// `ROLLBACK` that followed was written to the closed connection, PostgresNIO dropped it,
    /// and the call (here the fetched bodies' sweep, in a receiver its pruner) waited for
    /// ever: the receiver's shutdown with it.
    @Test func aStatementWhoseSessionEndsUnderItFailsAndTheCallReturns() async throws {
        // A server of its own: the kill restarts every session on it.
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let store = try await PushStore.open(.postgres(try PostgresURL(server.url(database: database))))
            // Another session holds the bodies' table while the sweep's statement waits on it.
            let holder = Task {
                try await server.psql("BEGIN; LOCK TABLE content_bodies IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(5); COMMIT", database: database)
            }
            func backend(_ query: String) async throws -> Int32? {
                for _ in 0..<100 {
                    if let pid = Int32(try await server.psql(query, database: database).output.split(separator: "\n").first ?? "") { return pid }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return nil
            }
            _ = try #require(
                try await backend("SELECT pid FROM pg_locks WHERE relation = 'content_bodies'::regclass AND mode = 'AccessExclusiveLock' AND granted")
            )
            // Polled, not awaited: a call that never returns would hold the test for ever.
            let outcome = Mutex<Result<Int, any Error>?>(nil)
            Task {
                do {
                    let dropped = try await store.dropUnnamedContents()
                    outcome.withLock { $0 = .success(dropped) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            let waiting = try #require(
                try await backend("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM content_bodies%'"))
            #expect(kill(waiting, SIGKILL) == 0)  // the server restarts every session, as after a crash
            _ = try? await holder.value
            let end = ContinuousClock.now + .seconds(20)
            while outcome.withLock({ $0 == nil }), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(50)) }
            let result = try #require(outcome.withLock { $0 }, "the sweep did not return once its session ended")
            #expect(throws: PushStoreError.self) { try result.get() }
            // The store sweeps again on new sessions once the server has recovered.
            var swept: Int?
            for _ in 0..<100 where swept == nil {
                swept = try? await store.dropUnnamedContents()
                if swept == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(swept == 0)
            try await store.close()
        }
    }

    /// A store given up (`abandon()`, as a receiver does when its server has not answered by
    /// the end of its shutdown grace) behind a network gone silent: a write waiting on its
    /// commit and a read waiting on its rows fail at once, every later call fails without
    /// opening a session, and the store closes.
    @Test func aStoreGivenUpFailsWhatWaitsOnItAndEveryLaterCall() async throws {
        let server = try #require(PostgresServer.current)
        let relay = try await TCPRelay.start(to: server.port)
        let url = try PostgresURL(server.url(database: try await server.newDatabase(), through: relay.port))
        let store = try await PushStore.open(.postgres(url))
        try await store.write([.insertPush(PushStoreTests.push(1))])
        #expect(try await store.pushes().map(\.id) == [1])  // a reader's session, left idle
        try await relay.freeze()
        // Polled, not awaited: a call that never returns would hold the test for ever.
        final class Ended: Sendable {
            let outcomes = Mutex<[String: Result<Void, any Error>]>([:])
            func start(_ name: String, _ call: @escaping @Sendable () async throws -> Void) {
                Task {
                    do {
                        try await call()
                        outcomes.withLock { $0[name] = .success(()) }
                    } catch {
                        outcomes.withLock { $0[name] = .failure(error) }
                    }
                }
            }
            func withLock<R>(_ body: (inout [String: Result<Void, any Error>]) -> R) -> R { outcomes.withLock { body(&$0) } }
        }
        let ended = Ended()
        ended.start("write") { try await store.write([.insertPush(PushStoreTests.push(2))]) }
        ended.start("read") { _ = try await store.pushes() }
        try await Task.sleep(for: .milliseconds(500))
        #expect(ended.withLock { $0.isEmpty }, "nothing answers through the frozen relay")

        #expect(!store.wasAbandoned)
        store.abandon()
        #expect(store.wasAbandoned, "what fails from now on failed because of it")
        let end = ContinuousClock.now + .seconds(5)
        while ended.withLock({ $0.count < 2 }), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        let outcomes = ended.withLock { $0 }
        // Required: a call that did not return holds the writer, and every later one behind it.
        try #require(outcomes.count == 2, "still waiting: \(Set(["write", "read"]).subtracting(outcomes.keys))")
        for (name, outcome) in outcomes { #expect(throws: (any Error).self, "\(name)") { try outcome.get() } }
        // No session is opened again (the relay, frozen, would hold a new one's start).
        let later = ContinuousClock.now
        await #expect(throws: PushStoreError.closed) { try await store.write([.insertPush(PushStoreTests.push(3))]) }
        await #expect(throws: PushStoreError.closed) { try await store.pushes() }
        try await store.close()
        #expect(ContinuousClock.now - later < .seconds(3), "the close waited on the server")
        try await relay.thaw()
        await relay.close()
    }

    /// A lone writer's server gone silent (a network that stops carrying anything): a batch it
    /// leaves unanswered, and does not say it is running when asked on a session of its own, is
    /// given up (`unanswered`) within two looks (`PushStore.postgresBatchWatch`, 2 s each), its
    /// session closed; a batch after it waits on the one attempt to open a session again and is
    /// given up at the first look. Once the network is back the store writes again, and neither
    /// batch given up was written.
    @Test func aBatchASilentServerLeavesUnansweredIsGivenUpAndTheStoreWritesAgainOnceItAnswers() async throws {
        let server = try #require(PostgresServer.current)
        let relay = try await TCPRelay.start(to: server.port)
        let url = try PostgresURL(server.url(database: try await server.newDatabase(), through: relay.port))
        let store = try await PushStore.open(.postgres(url))
        try await store.write([.insertPush(PushStoreTests.push(1))])
        try await relay.freeze()
        // A batch never given up would wait for ever: the network comes back after 20 s, so
        // that the batch commits and the test fails rather than hangs.
        let backstop = relay.thaw(after: .seconds(20))
        defer { backstop.cancel() }

        func givenUp(_ id: UInt64) async -> Duration? {
            let start = ContinuousClock.now
            do {
                try await store.write([.insertPush(PushStoreTests.push(id))])
            } catch PushStoreError.unanswered {
                return ContinuousClock.now - start
            } catch {
                Issue.record("push \(id): \(error)")
            }
            return nil
        }
        let first = try #require(await givenUp(2))
        #expect(first >= PushStore.postgresBatchWatch && first < .seconds(6), "given up after \(first)")
        let next = try #require(await givenUp(3))
        #expect(next >= PushStore.postgresBatchWatch && next < .seconds(4), "given up after \(next)")

        try await relay.thaw()
        let thawed = ContinuousClock.now
        var written = false
        while !written, ContinuousClock.now - thawed < .seconds(15) {
            written = (try? await store.write([.insertPush(PushStoreTests.push(4))])) != nil
            if !written { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(written, "the store writes again once the network is back")
        #expect(try await store.pushes().map(\.id).sorted() == [1, 4])
        try await store.close()
        await relay.close()
    }

    /// A read the server leaves unanswered (a network gone silent) is given up once the
    /// server does not say it runs it, as a commit is: an admin read answers 503 then, where
    /// it waited for as long as TCP takes to give up. A long read the server runs is waited
    /// on; once the network is back, reads answer again.
    @Test func aReadASilentServerLeavesUnansweredIsGivenUpAndALongOneItRunsIsNot() async throws {
        let (store, relay) = try await Self.storeThroughRelay()
        #expect(try await store.pushes().map(\.id) == [1])  // a reader's session, left idle
        let slow = try await store.reader.rows("SELECT 1 AS slept FROM pg_sleep(3)", [], cached: false)
        #expect(slow.count == 1, "a read the server runs for longer than the watch's look is waited on")
        try await relay.freeze()
        let backstop = relay.thaw(after: .seconds(20))
        defer { backstop.cancel() }
        guard let (error, waited) = await Self.unansweredRead(of: store) else { return }
        #expect(waited >= PushStore.postgresBatchWatch && waited < .seconds(8), "given up after \(waited)")
        #expect("\(error)".hasPrefix("PostgreSQL left a read (or a retention pass) unanswered for "), "\(error)")
        try await Self.expectReadsAgainOnceThawed(store, relay)
    }

    /// A read that opens a reader's session whose start-up passes but whose first query (the
    /// session's backend, for the read's watch) meets a silent network is given up once
    /// opening it takes `readerOpenWatch`, where it waited for as long as TCP takes to give
    /// up, and its session closed (not left open beside the readers' places); once the
    /// network is back, reads work.
    @Test func aReaderSessionASilentServerDoesNotOpenIsGivenUp() async throws {
        let (store, relay) = try await Self.storeThroughRelay()
        // No read yet: no reader's session is open, so the read below opens one.
        let sessions = store.openPostgresSessions
        relay.freezeAtTheFirstQueryOfANewConnection()
        let backstop = relay.thaw(after: .seconds(20))
        defer { backstop.cancel() }
        guard let (_, waited) = await Self.unansweredRead(of: store) else { return }
        #expect(waited >= PushStore.postgresReaderOpenWatch && waited < .seconds(10), "given up after \(waited)")
        let givenUp = ContinuousClock.now
        while store.openPostgresSessions > sessions, ContinuousClock.now - givenUp < .seconds(2) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(store.openPostgresSessions == sessions, "the session given up is closed")
        try await Self.expectReadsAgainOnceThawed(store, relay)
    }

    /// A store on a fresh database reached through a relay, holding push 1.
    static func storeThroughRelay() async throws -> (PushStore, TCPRelay) {
        let server = try #require(PostgresServer.current)
        let relay = try await TCPRelay.start(to: server.port)
        let url = try PostgresURL(server.url(database: try await server.newDatabase(), through: relay.port))
        let store = try await PushStore.open(.postgres(url))
        try await store.write([.insertPush(PushStoreTests.push(1))])
        return (store, relay)
    }

    /// A read of `store`'s pushes that fails `readUnanswered`: the error and how long it took;
    /// nil (an issue recorded) for any other outcome.
    static func unansweredRead(of store: PushStore) async -> (PushStoreError, Duration)? {
        let start = ContinuousClock.now
        let error = await #expect(throws: PushStoreError.self) { try await store.pushes() }
        let waited = ContinuousClock.now - start
        guard let error, case .readUnanswered = error else {
            Issue.record("\(String(describing: error))")
            return nil
        }
        return (error, waited)
    }

    /// Thaws `relay` and expects `store` to read push 1 again within 15 s; closes both.
    static func expectReadsAgainOnceThawed(_ store: PushStore, _ relay: TCPRelay) async throws {
        try await relay.thaw()
        let thawed = ContinuousClock.now
        var read: [UInt64]?
        while read == nil, ContinuousClock.now - thawed < .seconds(15) {
            read = try? await store.pushes().map(\.id)
            if read == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(read == [1], "the store reads again once the network is back")
        try await store.close()
        await relay.close()
    }

    @Test func writesFailWhileTheServerIsDownAndSucceedOnceItIsBack() async throws {
        try await PostgresServer.with { server in
            let url = try PostgresURL(server.url(database: try await server.newDatabase()))
            let store = try await PushStore.open(.postgres(url))
            try await store.write([.insertPush(PushStoreTests.push(1))])
            try await server.restart(downFor: .zero)
            // The writer's session ended with the restart: this write finds it closed or fails on it.
            var failed = 0
            for id in 2...3 as ClosedRange<UInt64> {
                do { try await store.write([.insertPush(PushStoreTests.push(id))]) } catch { failed += 1 }
            }
            try await store.write([.insertPush(PushStoreTests.push(4))])
            #expect(store.isWritable)
            let ids = try await store.pushes().map(\.id)
            #expect(ids.contains(1) && ids.contains(4), "\(ids)")
            #expect(ids.count == 4 - failed, "a failed write is not written: \(ids), \(failed) failed")
            try await store.close()
        }
    }
}
