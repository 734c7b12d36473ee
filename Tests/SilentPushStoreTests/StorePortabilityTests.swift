import Foundation
import GRDB
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import Synchronization
import Testing

/// The store's SQL in PostgreSQL: every statement the store runs for each kind of change and
/// each read, as SQLite ran it, is prepared by a real PostgreSQL server on the store's
/// PostgreSQL schema. A statement only SQLite understands fails here, with PostgreSQL's words.
@Suite struct StorePortabilityTests {
    static let at = DeviceInstant(millisecondsSinceEpoch: 1_000)

    /// One of each change, in an order the store accepts.
    static func everyChange() throws -> [StoreChange] {
        let push = PushStoreTests.push(1)
        let wake = WakeRecord(id: 1, deviceToken: "aa", topic: "com.example.app", pushID: 1, generation: 0, startedAt: at, deadline: at)
        let request = TaskRequest<DeviceInstant>(id: 1, identifier: "com.example.app.refresh", kind: .refresh)
        let channel = ChannelID(bytes: Array("channel".utf8))
        let activity = LiveActivity(
            id: "a1", app: LiveActivityApp(device: "aa", bundleID: "com.example.app"), attributesType: "A", attributes: "{}",
            subscription: .none, state: .active, contentState: "{}", startedAt: at)
        let transfer = TransferRecord(
            id: 1, deviceToken: "aa", topic: "com.example.app", request: try TransferRequest(session: "S", url: "https://example.com/f"),
            wakeID: 1, handedOverAt: at)
        return [
            .insertPush(push), .insertPush(PushStoreTests.push(2, replaced: 1)), .setFate(push: 2, fate: .delivered(by: 1), generation: 0),
            .closeGeneration(head: 2, fate: .delivered(by: 1)), .setCoalescedByAPNs(push: 1),
            .setLastOpened(deviceToken: "aa", topic: "com.example.app", at: 5), .knowApp(deviceToken: "aa", topic: "com.example.app"),
            .knowApp(deviceToken: "aa", topic: "com.example.other"), .knowAppsFromRecords, .insertWake(wake),
            .finishWake(id: 1, finishedAt: 2_000, result: .newData), .setWakeErrorOutput(id: 1, text: "stderr"),
            .setDevice(token: "aa", state: DeviceState(lowPowerMode: true)),
            .setContent(
                ContentRecord(
                    deviceToken: "aa", topic: "com.example.app", url: "https://example.com", etag: "e", lastModified: nil, contentType: nil,
                    sha256: "00", size: 1, fetchedAt: 1, changedAt: 1)),
            .setManualClock(at: 9_000), .setUnregistered(token: "bb", at: 3), .probe(at: 4),
            .insertTaskRequest(TaskRequestRecord(deviceToken: "aa", topic: "com.example.app", request: request, submittedAt: at)),
            .setTaskRequest(id: 1, state: .launched, why: nil, at: 5),
            .insertTaskRun(
                TaskRunRecord(
                    id: 1, requestID: 1, deviceToken: "aa", topic: "com.example.app", identifier: request.identifier, kind: .refresh,
                    startedAt: at, deadline: at, simulated: false)),
            .setTaskProgress(id: 1, completed: 1, total: 2), .expireTaskRun(id: 1, at: 6), .finishTaskRun(id: 1, at: 7, outcome: .completed),
            .insertTaskRun(
                TaskRunRecord(
                    id: 2, requestID: 1, deviceToken: "aa", topic: "com.example.app", identifier: request.identifier, kind: .refresh,
                    startedAt: at, deadline: at, simulated: false)),
            .killTaskRun(id: 2, at: 7, cause: .forceQuit),
            .insertChannel(
                BroadcastChannel(
                    id: channel, bundleID: "com.example.app", environment: .sandbox,
                    configuration: ChannelConfiguration(storagePolicy: .noMessageStored), createdAt: 1)),
            .insertBroadcast(
                BroadcastRecord(
                    id: 1, requestID: "r", uniqueID: nil, bundleID: "com.example.app", environment: .sandbox, channelID: channel,
                    priority: .high, expiration: 0, receivedAt: at, payload: Array("{}".utf8))),
            .deleteChannel(channel, bundleID: "com.example.app", environment: .sandbox),
            .recordActivity(activity),
            .insertActivityUpdate(LiveActivityUpdate(source: "s", activityID: "a1", outcome: .applied, why: "w", at: at)),
            .insertTransfer(transfer), .setTransferPhase(id: 1, state: .running, why: nil, attempts: 1),
            .setTransferCutOff(id: 1, error: "cut", bytes: 10),
            .finishTransfer(id: 1, state: .done, at: 8, bytes: 20, reason: nil, status: 200, etag: "e", lastModified: nil),
            .setTransferRelaunch(ids: [1], request: 2), .setTransferFile(id: 1, fate: .moved),
            .forgetDevice(token: "bb"),
        ]
    }

    /// Each read, once.
    static func everyRead(_ store: PushStore) async throws {
        _ = try await store.push(apnsID: PushStoreTests.push(1).apnsID)
        _ = try await store.push(uniqueID: "00000000-0000-4000-8000-000000000001")
        _ = try await store.pushes(deviceToken: "aa", topic: "com.example.app")
        _ = try await store.pushes(PushQuery(deviceToken: "aa", fate: .pending, from: 1, until: 2, limit: 3))
        _ = try await store.pushes(PushQuery())
        _ = try await store.pendingPushes()
        _ = try await store.wakes(deviceToken: "aa", topic: "com.example.app", kind: .fetch, before: 5, limit: 5)
        _ = try await store.wakes(from: 1, until: 2, limit: 5)
        _ = try await store.wake(id: 1)
        _ = try await store.deviceRecords()
        _ = try await store.channels()
        _ = try await store.coalescedAPNsIDs(wakeID: 1)
        _ = try await store.coalescedPushes(wakeIDs: [1, 2])
        _ = try await store.delivery(push: 2, wakeID: 1)
        _ = try await store.appUsage()
        _ = try await store.lastWakes()
        _ = try await store.unfinishedWakes()
        _ = try await store.reloads(since: 0)
        _ = try await store.latestDeviceTime()
        _ = try await store.content(deviceToken: "aa", topic: "com.example.app", url: "https://example.com")
        _ = try await store.contents(deviceToken: "aa")
        _ = try await store.counts()
        _ = try await store.lastIDs()
        _ = try await store.activities(deviceToken: "aa", bundleID: "com.example.app", limit: 5)
        _ = try await store.activityUpdates(activityID: "a1")
        _ = try await store.activityUpdates(activityIDs: ["a1", "a2"])
        _ = try await store.broadcasts(bundleID: "com.example.app", environment: .sandbox, channelID: nil, limit: 5)
        _ = try await store.latestBroadcasts(environment: .sandbox, since: DeviceInstant(millisecondsSinceEpoch: 0))
        _ = try await store.lastBroadcastID()
        _ = try await store.broadcasts(
            before: BroadcastRecord(
                id: 2, requestID: "r", uniqueID: nil, bundleID: "com.example.app", environment: .sandbox,
                channelID: ChannelID(header: "dHN0LXNyY2gtY2hubA==")!, priority: .high, expiration: 0,
                receivedAt: DeviceInstant(millisecondsSinceEpoch: 5), payload: []),
            since: DeviceInstant(millisecondsSinceEpoch: 0), limit: 5)
        _ = try await store.missedBroadcasts(
            of: [
                LiveActivity(
                    id: "a1", app: LiveActivityApp(device: "aa", bundleID: "com.example.app"), attributesType: "T", attributes: "{}",
                    subscription: .channel(ChannelID(header: "dHN0LXNyY2gtY2hubA==")!), contentState: "{}",
                    startedAt: DeviceInstant(millisecondsSinceEpoch: 1))
            ], environment: .sandbox)
        _ = try await store.taskRequests(deviceToken: "aa", pendingOnly: true)
        _ = try await store.taskRequest(id: 1)
        _ = try await store.endedTaskRequests(topic: "com.example.app", limit: 5)
        _ = try await store.pendingTaskRequests()
        _ = try await store.taskRuns(topic: "com.example.app")
        _ = try await store.taskRun(id: 1)
        _ = try await store.unfinishedTaskRuns()
        _ = try await store.lastTaskIDs()
        _ = try await store.transfers(deviceToken: "aa", session: "S", wakeID: 1, taskRunID: 1, relaunchRequestID: 2, limit: 5)
        _ = try await store.transfer(id: 1)
        _ = try await store.openTransfers()
        _ = try await store.lastValidatedTransfer(deviceToken: "aa", topic: "com.example.app", url: "https://example.com/f")
        _ = try await store.lastTransferID()
    }

    /// What PostgreSQL is not asked to prepare: SQLite's own statements and the
    /// transaction's frame, which each engine writes its own way.
    static func isPortable(_ sql: String) -> Bool {
        let head = sql.prefix(20).uppercased()
        return !["PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "VACUUM"].contains { head.hasPrefix($0) }
            && !sql.contains("sqlite_") && !sql.contains("grdb_migrations")
    }

    @Test func everyStatementTheStoreRunsIsPreparedByPostgreSQL() async throws {
        try #require(PostgresServer.isInstalled, "PostgreSQL's server is not installed: run `make test` (it installs it)")
        let store = try await PushStore.open(.memory)
        let statements = Mutex<Set<String>>([])
        try store.traceStatements { sql in statements.withLock { _ = $0.insert(sql) } }
        try await store.write(try Self.everyChange())
        try await Self.everyRead(store)
        _ = try await store.prune(olderThan: 10_000, maximumCount: 1, held: [1], after: 0, batch: 10)
        try await store.write([.forgetEverything])
        let seen = statements.withLock { $0 }.filter(Self.isPortable).sorted()
        #expect(seen.count > 60, "\(seen.count) statements seen: is the trace on?")

        try await PostgresServer.with { server in
            let schema = try await server.psql(PostgresSchema.statements.joined(separator: ";\n"))
            #expect(schema.status == 0, "\(schema.errorOutput)")
            var failures: [String] = []
            for (index, sql) in seen.enumerated() {
                let prepared = try await server.psql("PREPARE s\(index) AS \(PostgresSchema.numbered(sql))")
                if prepared.status != 0 { failures.append("\(sql)\n  → \(prepared.errorOutput.split(separator: "\n").first ?? "")") }
            }
            #expect(failures.isEmpty, "\(failures.count) of \(seen.count) statements PostgreSQL refuses:\n\(failures.joined(separator: "\n"))")
        }
    }

    /// The two schemas have the same tables, views and columns: a migration that changes one
    /// and not the other fails here.
    @Test func thePostgreSQLSchemaHasSQLitesTablesAndColumns() async throws {
        try #require(PostgresServer.isInstalled, "PostgreSQL's server is not installed: run `make test` (it installs it)")
        let path = PushStoreTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        try await PushStore.open(.file(path)).close()
        let (sqlite, migrations) = try await DatabaseQueue(path: path).read { db in
            var columns = Set<String>()
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
            for table in tables {
                for column in try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) {
                    columns.insert("\(table).\(column["name"] as String)")
                }
            }
            return (columns, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") ?? 0)
        }
        // The same version: SQLite's migrations, counted, are what the schema stands for.
        #expect(migrations == PostgresSchema.version)
        try await PostgresServer.with { server in
            #expect(try await server.psql(PostgresSchema.statements.joined(separator: ";\n")).status == 0)
            let listed = try await server.psql(
                "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT IN ('schema_version', 'content_bodies')"
            )
            let postgres = Set(listed.output.split(separator: "\n").map(String.init))
            #expect(
                sqlite.count > 100 && postgres == sqlite,
                "only SQLite: \(sqlite.subtracting(postgres).sorted()); only PostgreSQL: \(postgres.subtracting(sqlite).sorted())")
        }
    }

    /// A run the system killed reads back with what killed its app, on both engines; a run
    /// already ended is not killed over its outcome.
    @Test func aKilledRunKeepsItsCauseOnBothEngines() async throws {
        try #require(PostgresServer.isInstalled, "PostgreSQL's server is not installed: run `make test` (it installs it)")
        let at = DeviceInstant(millisecondsSinceEpoch: 1_000)
        func run(_ id: UInt64) -> StoreChange {
            .insertTaskRun(
                TaskRunRecord(
                    id: id, requestID: id, deviceToken: "aa", topic: "com.example.app", identifier: "refresh", kind: .refresh,
                    startedAt: at, deadline: nil, simulated: false))
        }
        let changes: [StoreChange] = [
            run(1), .killTaskRun(id: 1, at: 2_000, cause: .reboot),
            run(2), .finishTaskRun(id: 2, at: 2_000, outcome: .completed), .killTaskRun(id: 2, at: 3_000, cause: .appDeleted),
        ]
        func check(_ store: PushStore) async throws {
            try await store.write(changes)
            let killed = try #require(try await store.taskRun(id: 1))
            #expect(killed.outcome == .killed && killed.killedBy == .reboot && killed.finishedAt == DeviceInstant(millisecondsSinceEpoch: 2_000))
            let completed = try #require(try await store.taskRun(id: 2))
            #expect(
                completed.outcome == .completed && completed.killedBy == nil && completed.finishedAt == DeviceInstant(millisecondsSinceEpoch: 2_000))
        }
        let sqlite = try await PushStore.open(.memory)
        try await check(sqlite)
        try await sqlite.close()
        try await PostgresServer.with { server in
            let store = try await PushStore.open(.postgres(try PostgresURL(server.url(database: try await server.newDatabase()))))
            try await check(store)
            try await store.close()
        }
    }

    @Test func placeholdersAreNumberedAsSQLiteNumbersThem() {
        #expect(PostgresSchema.numbered("SELECT ? , ?, ?") == "SELECT $1 , $2, $3")
        #expect(PostgresSchema.numbered("WHERE a = ?2 AND b = ?1 AND c = ?") == "WHERE a = $2 AND b = $1 AND c = $3")
        #expect(PostgresSchema.numbered("WHERE a = '?' AND b = ?") == "WHERE a = '?' AND b = $1")
    }
}
