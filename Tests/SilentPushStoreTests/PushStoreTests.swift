import Foundation
import GRDB
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import Synchronization
import Testing

/// The store on a real SQLite file.
@Suite(.postgres) struct PushStoreTests {
    static func temporaryPath() -> String {
        Scratch.directory.appendingPathComponent("silentpush-store-\(UUID().uuidString)/pushes.sqlite").path
    }

    /// Makes the closed store at `location` read as version `version`: `sql` undoes what the
    /// next version changed, and the store's version (SQLite: that migration's mark) goes back,
    /// so the next open runs the migration again.
    static func rewind(_ location: PushStore.Location, to version: Int, running sql: String) async throws {
        switch location {
        case .file(let path):
            let database = try DatabaseQueue(path: path)
            try await database.write { db in
                try db.execute(sql: sql)
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v\(version + 1)'")
            }
            try database.close()
        case .postgres(let url):
            let server = try #require(PostgresServer.current)
            let rewound = try await server.psql("\(sql); UPDATE schema_version SET version = \(version)", database: url.database)
            try #require(rewound.status == 0, "\(rewound.errorOutput)")
        default:
            Issue.record("a store test's location is a file or a PostgreSQL database")
        }
    }

    static func push(
        _ id: UInt64, token: String = "aa", topic: String = "com.example.app", fate: PushFate = .pending, generation: UInt32? = 0,
        replaced: UInt64? = nil
    ) -> PushRecord {
        PushRecord(
            id: id, apnsID: "00000000-0000-4000-8000-\(String(format: "%012d", id))", deviceToken: token, topic: topic,
            pushType: "background", priority: 5, receivedAt: 1_000 + Int64(id), expiresAt: nil, collapseID: nil,
            payload: Array(#"{"aps":{"content-available":1}}"#.utf8), warnings: id % 2 == 0 ? ["a warning"] : [], fate: fate, generation: generation,
            replaced: replaced)
    }

    /// A reason the policy gives for a waiting push, as tests write it.
    static let held = WaitReason<DeviceInstant>.minimumInterval(
        lastWake: DeviceInstant(millisecondsSinceEpoch: 1_000), interval: .seconds(900), until: DeviceInstant(millisecondsSinceEpoch: 901_000))

    /// Giving up on a SQLite store cuts nothing short (it runs on this process's own
    /// threads), but the store says it was given up, as a PostgreSQL one does.
    @Test func aSQLiteStoreGivenUpStillWritesAndSaysSo() async throws {
        let store = try await PushStore.open(.memory)
        #expect(!store.wasAbandoned)
        store.abandon()
        #expect(store.wasAbandoned)
        try await store.write([.insertPush(Self.push(1))])
        #expect(try await store.pushes().map(\.id) == [1])
        try await store.close()
    }

    @Test(arguments: StoreEngineKind.allCases) func whatIsWrittenIsThereAfterReopening(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        do {
            let store = try await PushStore.open(location)
            try await store.write([
                .insertPush(Self.push(1)), .insertPush(Self.push(2)),
                .insertWake(
                    WakeRecord(
                        id: 7, deviceToken: "aa", topic: "com.example.app", pushID: 2, generation: 0, startedAt: .init(millisecondsSinceEpoch: 5_000),
                        deadline: .init(millisecondsSinceEpoch: 35_000))),
                .setFate(push: 2, fate: .delivered(by: 7), generation: nil),
                .closeGeneration(head: 2, fate: .delivered(by: 7)),
                .setDevice(
                    token: "aa",
                    state: DeviceState(
                        lowPowerMode: true, dailyBudget: 3, batteryLevel: 15, charging: true, thermalState: .serious, debuggerAttached: true,
                        network: .offline)),
            ])
            try await store.write([.setFate(push: 1, fate: .coalesced, generation: 0)])
            try await store.close()
        }
        let store = try await PushStore.open(location)
        let delivered = try #require(try await store.push(apnsID: Self.push(2).apnsID))
        #expect(delivered.fate == .delivered)
        #expect(delivered.fate.wakeID == 7)
        #expect(delivered.warnings == ["a warning"])
        #expect(delivered.payload == Self.push(2).payload)
        #expect(try await store.pushes(deviceToken: "aa").map(\.id) == [2, 1])
        #expect(try await store.wakes(deviceToken: "aa").first?.pushID == 2)
        #expect(
            try await store.devices()["aa"]
                == DeviceState(
                    lowPowerMode: true, dailyBudget: 3, batteryLevel: 15, charging: true, thermalState: .serious, debuggerAttached: true,
                    network: .offline))
        #expect(try await store.lastIDs() == (push: 2, wake: 7))
    }

    /// The broadcasts a channel activity missed (a cluster's shard had no owner when they
    /// arrived): on its channel and environment, received after it started, with no decision
    /// recorded for it; in the order they arrived.
    @Test(arguments: StoreEngineKind.allCases) func anActivityMissedItsChannelsBroadcastsSinceItStartedThatHaveNoDecisionForIt(
        _ engine: StoreEngineKind
    ) async throws {
        let store = try await engine.newStore(memory: true)
        let channel = try #require(ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
        let other = try #require(ChannelID(header: "b3RoZXItY2hhbm5lbA=="))
        func broadcast(_ id: UInt64, at milliseconds: Int64, on channel: ChannelID, _ environment: APNsEnvironment = .sandbox) -> StoreChange {
            .insertBroadcast(
                BroadcastRecord(
                    id: id, requestID: "r\(id)", uniqueID: nil, bundleID: "com.example.app", environment: environment, channelID: channel,
                    priority: .high, expiration: 0, receivedAt: DeviceInstant(millisecondsSinceEpoch: milliseconds), payload: Array("{}".utf8)))
        }
        let activities = ["A1", "A2"].map { id in
            LiveActivity(
                id: id, app: LiveActivityApp(device: "aa", bundleID: "com.example.app"), attributesType: "GameAttributes", attributes: "{}",
                subscription: .channel(channel), contentState: "{}", startedAt: DeviceInstant(millisecondsSinceEpoch: 2_000))
        }
        try await store.write(
            [
                broadcast(1, at: 1_000, on: channel), broadcast(3, at: 4_000, on: channel), broadcast(2, at: 3_000, on: channel),
                broadcast(4, at: 3_500, on: other), broadcast(5, at: 3_600, on: channel, .production),
                // In the millisecond the activities began: before them, as far as anyone can tell.
                broadcast(6, at: 2_000, on: channel),
                .insertActivityUpdate(
                    LiveActivityUpdate(
                        source: "r3", activityID: "A1", outcome: .applied, why: "fanned out", at: DeviceInstant(millisecondsSinceEpoch: 4_000))),
            ] + activities.map(StoreChange.recordActivity))
        let missed = try await store.missedBroadcasts(of: activities, environment: .sandbox)
        #expect(missed.map { "\($0.activityID):\($0.broadcast.id)" } == ["A1:2", "A2:2", "A2:3"])
        try await store.close()
    }

    /// The broadcasts of a channel before one, newest first by device time and then id (a
    /// cluster's members number in blocks, so ids alone are not arrival order), since a time.
    @Test(arguments: StoreEngineKind.allCases) func broadcastsBeforeOneAreNewestFirstByTimeThenID(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let channel = try #require(ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
        func record(_ id: UInt64, at milliseconds: Int64) -> BroadcastRecord {
            BroadcastRecord(
                id: id, requestID: "r\(id)", uniqueID: nil, bundleID: "com.example.app", environment: .sandbox, channelID: channel,
                priority: .high, expiration: 0, receivedAt: DeviceInstant(millisecondsSinceEpoch: milliseconds), payload: Array("{}".utf8))
        }
        try await store.write(
            [record(1, at: 1_000), record(5, at: 2_000), record(3, at: 2_000), record(2, at: 3_000)].map(StoreChange.insertBroadcast))
        let before = try await store.broadcasts(before: record(5, at: 2_000), since: DeviceInstant(millisecondsSinceEpoch: 0), limit: 10)
        #expect(before.map(\.id) == [3, 1])
        #expect(
            try await store.broadcasts(before: record(5, at: 2_000), since: DeviceInstant(millisecondsSinceEpoch: 1_500), limit: 10).map(\.id) == [3])
        #expect(
            try await store.broadcasts(before: record(2, at: 3_000), since: DeviceInstant(millisecondsSinceEpoch: 0), limit: 2).map(\.id) == [5, 3])
        try await store.close()
    }

    /// The launches a restart puts back: fetch wakes and task runs the budget counts (not a
    /// simulated or continued run), oldest first, since the time given; and each app's last
    /// refresh run, from which its interval runs.
    @Test(arguments: StoreEngineKind.allCases) func launchesAreTheWakesAndCountedTaskRunsSinceATime(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        func at(_ milliseconds: Int64) -> DeviceInstant { DeviceInstant(millisecondsSinceEpoch: milliseconds) }
        func wake(_ id: UInt64, at milliseconds: Int64) -> StoreChange {
            .insertWake(
                WakeRecord(
                    id: id, deviceToken: "aa", topic: "com.example.app", pushID: id, generation: 0, startedAt: at(milliseconds),
                    deadline: at(milliseconds + 30_000), finishedAt: nil, result: nil))
        }
        func run(_ id: UInt64, _ kind: BackgroundTaskKind, at milliseconds: Int64, simulated: Bool = false) -> StoreChange {
            .insertTaskRun(
                TaskRunRecord(
                    id: id, requestID: id, deviceToken: "aa", topic: "com.example.app", identifier: "t\(id)", kind: kind,
                    startedAt: at(milliseconds), deadline: nil, simulated: simulated))
        }
        try await store.write([
            wake(1, at: 500), wake(2, at: 3_000), run(1, .refresh, at: 2_000), run(2, .processing, at: 4_000),
            run(3, .continued, at: 5_000), run(4, .refresh, at: 6_000, simulated: true),
        ])
        let launches = try await store.launches(since: 1_000)
        #expect(launches.map(\.startedAt) == [2_000, 3_000, 4_000], "\(launches)")
        let refreshes = try await store.lastRefreshRuns()
        #expect(refreshes.count == 1 && refreshes.first?.startedAt == 2_000, "\(refreshes)")
        try await store.close()
    }

    /// A stored id outside the ids a receiver gives out (a row edited by hand) is refused with
    /// the table named, where numbering on from it would overflow.
    @Test(arguments: StoreEngineKind.allCases) func anIdPastTheCeilingIsRefusedByName(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let request = try TransferRequest(session: "S", url: "https://example.com/f")
        try await store.write([
            .insertTransfer(
                TransferRecord(
                    id: UInt64.max, deviceToken: "aa", topic: "com.example.app", request: request, wakeID: 1,
                    handedOverAt: DeviceInstant(millisecondsSinceEpoch: 1)))
        ])
        #expect(try await store.lastIDs() == (push: 0, wake: 0))
        await #expect(throws: PushStoreError.idOutOfRange(table: "transfers", id: -1)) { try await store.lastTransferID() }
        var push = Self.push(1)
        push.id = UInt64(PushStore.idCeiling)
        try await store.write([.insertPush(push)])
        await #expect(throws: PushStoreError.idOutOfRange(table: "pushes", id: PushStore.idCeiling)) { try await store.lastIDs() }
    }

    /// A store dropped, not closed, closes its connections as its last reference goes, on
    /// whichever thread that is; the last one checkpoints and removes the WAL under an
    /// exclusive lock. Opened again at that moment, the store waits for the lock: before, it
    /// failed with "database is locked" about once in 150 reopenings.
    @Test func aStoreOpenedAgainAsTheLastOneIsDroppedOpens() async throws {
        for _ in 0..<150 {
            let path = Self.temporaryPath()
            defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
            do {
                let store = try await PushStore.open(.file(path))
                try await store.write([.insertPush(Self.push(1))])
                try await store.write([.insertPush(Self.push(2))])
            }
            let store = try await PushStore.open(.file(path))
            #expect(try await store.lastIDs().push == 2)
        }
    }

    /// Two file stores in one directory keep their content bodies and transfers' files apart:
    /// each has `STORE-contents/`. Earlier versions shared `contents/` beside them, where one
    /// store's transfer 2 overwrote the other's.
    @Test func twoStoresInOneDirectoryKeepTheirFilesApart() async throws {
        let first = Self.temporaryPath()
        let directory = URL(fileURLWithPath: first).deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let second = directory + "/other.sqlite"
        let a = try await PushStore.open(.file(first)), b = try await PushStore.open(.file(second))
        #expect(a.transfersDirectory != b.transfersDirectory)
        #expect(a.transfersDirectory == first + "-contents/transfers")
        try await a.saveContent(Array("a".utf8), sha256: "ab12")
        #expect(try await b.contentBody(sha256: "ab12") == nil)
        #expect(try await a.contentBody(sha256: "ab12") == Array("a".utf8))
        try await b.saveContent(Array("b".utf8), sha256: "cd34")
        try await a.close()
        try await b.close()
        // `--fresh` sets the store's own directory aside with it, and leaves the other's.
        let fresh = try await PushStore.open(.file(first), fresh: true)
        let aside = try #require(fresh.setAside)
        #expect(FileManager.default.fileExists(atPath: aside + "-contents/ab12"))
        #expect(try await fresh.contentBody(sha256: "ab12") == nil)
        try await fresh.close()
        let reopened = try await PushStore.open(.file(second))
        #expect(try await reopened.contentBody(sha256: "cd34") == Array("b".utf8))
        try await reopened.close()
    }

    /// A store of an earlier version takes the shared `contents/` beside it as its own when
    /// opened; a new store in the same directory takes nothing.
    @Test func aStoreFromBeforeTakesTheSharedContentsDirectory() async throws {
        let path = Self.temporaryPath()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.makeStoreFromBefore(path)
        try FileManager.default.createDirectory(atPath: directory + "/contents", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/contents/cd34", contents: Data("old".utf8))
        // A lock file of no store (another tool's) is no other store.
        _ = FileManager.default.createFile(atPath: directory + "/yarn.lock", contents: Data())
        let store = try await PushStore.open(.file(path))
        #expect(try await store.contentBody(sha256: "cd34") == Array("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory + "/contents"))
        try await store.close()
        let new = try await PushStore.open(.file(directory + "/new.sqlite"))
        #expect(try await new.contentBody(sha256: "cd34") == nil)
        try await new.close()
    }

    /// Two stores of an earlier version in one directory each take the shared files as
    /// links, so neither loses a body the other's opening would have moved away.
    @Test func twoStoresFromBeforeEachKeepTheSharedFiles() async throws {
        let first = Self.temporaryPath()
        let directory = URL(fileURLWithPath: first).deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let second = directory + "/other.sqlite"
        try await Self.makeStoreFromBefore(first)
        try await Self.makeStoreFromBefore(second)
        try FileManager.default.createDirectory(atPath: directory + "/contents/transfers", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/contents/aa", contents: Data("a".utf8))
        _ = FileManager.default.createFile(atPath: directory + "/contents/transfers/1", contents: Data("t".utf8))
        var transfers: [String] = []
        for path in [first, second] {
            let store = try await PushStore.open(.file(path))
            #expect(try await store.contentBody(sha256: "aa") == Array("a".utf8))
            #expect(FileManager.default.contents(atPath: store.transfersDirectory + "/1") == Data("t".utf8))
            transfers.append(store.transfersDirectory)
            try await store.close()
        }
        // A transfer's file grows in place: each store's is its own.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: transfers[0] + "/1"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()
        #expect(FileManager.default.contents(atPath: transfers[1] + "/1") == Data("t".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory + "/pushes.sqlite-contents.partial"))
    }

    /// A store as an earlier version left it: written, closed, with no directory of its own.
    static func makeStoreFromBefore(_ path: String) async throws {
        let store = try await PushStore.open(.file(path))
        try await store.write([.insertPush(Self.push(1))])
        try await store.close()
        try FileManager.default.removeItem(atPath: path + "-contents")
    }

    /// A memory store keeps its transfers' files in a directory of its own under the system's
    /// temporary directory; dropped without being closed (an in-process receiver a test let
    /// go of), it still takes that directory with it.
    @Test func aMemoryStoreDroppedUnclosedRemovesItsTransferFiles() async throws {
        var store: PushStore? = try await PushStore.open(.memory)
        let directory = try #require(store?.transfersDirectory)
        try FileManager.default.createDirectory(atPath: directory + "/cache", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/cache/body", contents: Data("x".utf8))
        try await store?.write([.insertPush(Self.push(1))])
        store = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test(arguments: StoreEngineKind.allCases) func aClosedGenerationGivesItsCoalescedPushesItsFate(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([
            .insertPush(Self.push(1, fate: .coalesced, generation: 3)),
            .insertPush(Self.push(2, fate: .coalesced, generation: 3, replaced: 1)),
            .insertPush(Self.push(3, fate: .coalesced, generation: 4)),
            .insertPush(Self.push(4, topic: "com.example.other", fate: .coalesced, generation: 3)),
            .insertPush(Self.push(5, fate: .pending, generation: 3, replaced: 2)),
            .insertPush(Self.push(6, fate: .pending, generation: 4, replaced: 3)),
            // A chain stops at a push whose generation closed before.
            .insertPush(Self.push(7, fate: .coalesced(into: 1), generation: 2)),
            .insertPush(Self.push(8, fate: .coalesced, generation: 5, replaced: 7)),
            .insertPush(Self.push(9, fate: .pending, generation: 5, replaced: 8)),
        ])
        try await store.write([
            .setFate(push: 5, fate: .delivered(by: 9), generation: nil),
            .closeGeneration(head: 5, fate: .delivered(by: 9)),
            .setFate(push: 6, fate: .expired, generation: nil),
            .closeGeneration(head: 6, fate: .expired),
            .setFate(push: 9, fate: .dropped(.forceQuit), generation: nil),
            .closeGeneration(head: 9, fate: .dropped(.forceQuit)),
        ])
        let fates = Dictionary(uniqueKeysWithValues: try await store.pushes().map { ($0.id, $0.fate) })
        #expect(fates[1] == .coalesced)
        #expect(fates[1]?.wakeID == 9)
        #expect(fates[2] == .coalesced)
        #expect(fates[2]?.wakeID == 9)
        #expect(fates[3] == .expired)
        #expect(fates[4] == .coalesced)  // another app's slot
        #expect(fates[4]?.wakeID == nil)
        #expect(fates[5] == .delivered)
        #expect(fates[5]?.wakeID == 9)
        #expect(fates[7] == .coalesced)
        #expect(fates[7]?.wakeID == 1)
        #expect(fates[8] == .dropped(.forceQuit))
        #expect(try await store.coalescedAPNsIDs(wakeID: 9) == [Self.push(1).apnsID, Self.push(2).apnsID])
    }

    @Test(arguments: StoreEngineKind.allCases) func aPendingRowThatALaterPushReplacedReadsAsCoalesced(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        // One slot's chain as the runtime writes it: the rows stay pending, each push names
        // the one it replaced.
        try await store.write([
            .insertPush(Self.push(1)),
            .insertPush(Self.push(2, token: "bb")),  // another app, alone in its slot
            .insertPush(Self.push(3, replaced: 1)),
            .insertPush(Self.push(4, fate: .pending(Self.held), replaced: 3)),
        ])
        let waiting = PushFate.coalesced
        var fates: [PushFate?] = []
        for n: UInt64 in 1...4 { fates.append(try await store.push(apnsID: Self.push(n).apnsID)?.fate) }
        #expect(fates == [waiting, .pending, waiting, .pending])
        #expect(try await store.pushes().map(\.fate) == [.pending, waiting, .pending, waiting])
        #expect(try await store.pushes(deviceToken: "aa", limit: 2).map(\.fate) == [.pending, waiting])
        #expect(try await store.counts().pushes == ["pending": 2, "coalescedWaiting": 2])
        // The pending push keeps the reason the policy gave; the one written without has none.
        #expect(try await store.push(apnsID: Self.push(4).apnsID)?.fate.waitReason == Self.held)
        #expect(try await store.push(apnsID: Self.push(2).apnsID)?.fate.waitReason == nil)
        try await store.write([
            .setFate(push: 4, fate: .delivered(by: 5), generation: nil), .closeGeneration(head: 4, fate: .delivered(by: 5)),
        ])
        #expect(try await store.coalescedAPNsIDs(wakeID: 5) == [Self.push(1).apnsID, Self.push(3).apnsID])
        #expect(try await store.push(apnsID: Self.push(1).apnsID)?.fate == .coalesced)
        #expect(try await store.push(apnsID: Self.push(1).apnsID)?.fate.wakeID == 5)
        #expect(try await store.counts().pushes == ["pending": 1, "delivered": 1, "coalesced": 2])
    }

    @Test(arguments: StoreEngineKind.allCases) func aReplacedPushIsCoalescedByItsAPNsIDAndByItsUniqueID(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1)), .insertPush(Self.push(2, replaced: 1))])
        let replaced = Self.push(1)
        let uniqueID = APNsIDGenerator.uniqueID(apnsID: replaced.apnsID, pushID: replaced.id)
        #expect(try await store.push(apnsID: replaced.apnsID)?.fate == .coalesced)
        #expect(try await store.push(uniqueID: uniqueID)?.fate == .coalesced)
        #expect(try await store.push(uniqueID: uniqueID)?.fate.wakeID == nil)
        #expect(try await store.pendingPushes().map(\.id) == [2])
    }

    @Test func aStoreFromBeforeTheChainsClosesItsOpenSlots() async throws {
        // A version-3 store (slots found by device, topic and generation) migrated to chains.
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(sql: PushStoreTests.version3Schema)
            for (id, token, fate, wake, generation) in [
                (1, "aa", "coalesced", nil, 0), (2, "aa", "delivered", 1, 0),  // a closed slot
                (3, "aa", "coalesced", nil, 1), (4, "bb", "coalesced", nil, 1), (5, "aa", "coalesced", nil, 1),
                (6, "aa", "pending", nil, 1), (7, "bb", "pending", nil, 1),
            ] as [(Int, String, String, Int?, Int)] {
                try db.execute(
                    sql: """
                        INSERT INTO pushes (id, apns_id, device_token, topic, push_type, priority, received_at, payload, fate, wake_id, generation)
                        VALUES (?, ?, ?, 'com.example.app', 'background', 5, 0, x'', ?, ?, ?)
                        """, arguments: [id, "id-\(id)", token, fate, wake, generation])
            }
            try db.execute(sql: "INSERT INTO devices VALUES ('aa', 0, 1, 1, 2, NULL)")  // an hourly budget of 2
        }
        try old.close()
        let store = try await PushStore.open(.file(path))
        let replaced = Dictionary(uniqueKeysWithValues: try await store.pushes().map { ($0.id, $0.replaced) })
        #expect(replaced == [1: nil, 2: nil, 3: nil, 4: nil, 5: 3, 6: 5, 7: 4])
        try await store.write([
            .setFate(push: 6, fate: .delivered(by: 2), generation: nil), .closeGeneration(head: 6, fate: .delivered(by: 2)),
        ])
        #expect(try await store.coalescedAPNsIDs(wakeID: 2) == ["id-3", "id-5"])
        #expect(try await store.push(apnsID: "id-5")?.id == 5)  // keyed by migration v6
        // Migration v8: the hourly budget becomes a daily one of the same rate.
        #expect(try await store.devices()["aa"] == DeviceState(lowPowerMode: true, dailyBudget: 48))
    }

    @Test func aReplacedPushKeepsItsPendingRowAndEveryReadSaysCoalescedThroughTheView() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let store = try await PushStore.open(.file(path))
        // Push 1 waited with a reason; push 2 replaced it in its slot.
        let replaced = Self.push(1, fate: .pending(Self.held))
        try await store.write([.insertPush(replaced), .insertPush(Self.push(2, replaced: 1)), .insertPush(Self.push(3, token: "bb"))])
        // The writer wrote no update: push 1's row still says pending.
        let rows = try DatabaseQueue(path: path)
        #expect(
            try await rows.read { db in try String.fetchAll(db, sql: "SELECT fate FROM pushes ORDER BY id") } == ["pending", "pending", "pending"])
        try rows.close()
        #expect(try await store.pushes().map(\.fate) == [.pending, .pending, .coalesced])
        #expect(try await store.push(apnsID: replaced.apnsID)?.fate == .coalesced)
        #expect(try await store.pendingPushes().map(\.id) == [2, 3])
        #expect(try await store.counts().pushes["coalescedWaiting"] == 1)
        // Its successor's wake closes the chain: the row itself is written then.
        try await store.write([
            .setFate(push: 2, fate: .delivered(by: 7), generation: nil), .closeGeneration(head: 2, fate: .delivered(by: 7)),
        ])
        #expect(try await store.push(apnsID: replaced.apnsID)?.fate == .coalesced(into: 7))
        #expect(try await store.coalescedAPNsIDs(wakeID: 7) == [replaced.apnsID])
        try await store.close()
    }

    /// A store a newer version migrated further is refused with both versions named, as a
    /// PostgreSQL one is, not served by code that does not know its tables.
    @Test func aStoreANewerVersionMigratedIsRefused() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        try await PushStore.open(.file(path)).close()
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        await #expect(throws: PushStoreError.newerSchema(path: path, found: PostgresSchema.version + 1, supported: PostgresSchema.version)) {
            try await PushStore.open(.file(path))
        }
    }

    @Test func pushesAreFoundByAPNsIDWithAnIndexEntryOnlyWhenTheIDDoesNotCarryThem() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let store = try await PushStore.open(.file(path))
        let ids = APNsIDGenerator(key: 9)
        let provider = "0F0E0D0C-0B0A-4908-8706-050403020100"
        let apnsIDs: [UInt64: String] = [
            1: ids.apnsID(pushID: 1),  // made by the receiver from the push's id
            2: provider,  // the provider's own
            3: "not-a-uuid",
            4: provider.lowercased(),  // the same UUID: its case is not part of it (RFC 9562)
            5: provider,  // reused: the latest is the one found
            6: ids.apnsID(pushID: 1),  // a receiver-made id sent again by the provider
            7: ids.apnsID(pushID: 7),
        ]
        try await store.write(
            apnsIDs.sorted { $0.key < $1.key }.map { id, apnsID in
                var push = Self.push(id)
                push.apnsID = apnsID
                return .insertPush(push)
            })
        #expect(try await store.push(apnsID: ids.apnsID(pushID: 7))?.id == 7)
        #expect(try await store.push(apnsID: ids.apnsID(pushID: 1))?.id == 6)
        #expect(try await store.push(apnsID: provider)?.id == 5)
        #expect(try await store.push(apnsID: provider.lowercased())?.id == 5)
        #expect(try await store.push(apnsID: "not-a-uuid")?.id == 3)
        // Push 2's id in another receiver's id, and an id no push has.
        #expect(try await store.push(apnsID: APNsIDGenerator(key: 10).apnsID(pushID: 2)) == nil)
        #expect(try await store.push(apnsID: ids.apnsID(pushID: 8)) == nil)
        // Only the pushes whose apns-id does not carry their id are in the index.
        let keyed = try await DatabaseQueue(path: path).read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM pushes WHERE apns_key IS NOT NULL ORDER BY id")
        }
        #expect(keyed == [2, 3, 4, 5, 6])
    }

    /// The schema as migrations v1 to v3 left it (GRDB's migration table included).
    static let version3Schema = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1'), ('v2'), ('v3');
        CREATE TABLE pushes (id INTEGER PRIMARY KEY, apns_id TEXT NOT NULL, device_token TEXT NOT NULL, topic TEXT NOT NULL,
            push_type TEXT NOT NULL, priority INTEGER NOT NULL, received_at INTEGER NOT NULL, expires_at INTEGER, collapse_id TEXT,
            payload BLOB NOT NULL, warnings TEXT, fate TEXT NOT NULL, wake_id INTEGER, reason TEXT, generation INTEGER);
        CREATE INDEX pushes_by_apns_id ON pushes (apns_id);
        CREATE INDEX pushes_by_app ON pushes (device_token, topic, generation);
        CREATE INDEX pushes_pending ON pushes (fate) WHERE fate = 'pending';
        CREATE TABLE wakes (id INTEGER PRIMARY KEY, device_token TEXT NOT NULL, topic TEXT NOT NULL, push_id INTEGER NOT NULL,
            generation INTEGER NOT NULL, started_at INTEGER NOT NULL, deadline INTEGER NOT NULL, finished_at INTEGER, result TEXT, reason TEXT);
        CREATE INDEX wakes_by_app ON wakes (device_token, topic);
        CREATE TABLE devices (device_token TEXT PRIMARY KEY, force_quit INTEGER NOT NULL, background_refresh INTEGER NOT NULL,
            low_power_mode INTEGER NOT NULL, hourly_budget INTEGER, unregistered_at INTEGER);
        CREATE TABLE clock (id INTEGER PRIMARY KEY CHECK (id = 1), manual_now INTEGER NOT NULL);
        CREATE INDEX pushes_by_wake ON pushes (wake_id) WHERE wake_id IS NOT NULL;
        CREATE TABLE contents (device_token TEXT NOT NULL, topic TEXT NOT NULL, url TEXT NOT NULL, etag TEXT, last_modified TEXT,
            content_type TEXT, sha256 TEXT NOT NULL, size INTEGER NOT NULL, fetched_at INTEGER NOT NULL, changed_at INTEGER NOT NULL,
            PRIMARY KEY (device_token, topic, url));
        """

    @Test(arguments: StoreEngineKind.allCases) func pendingPushesComeBackForTheSlots(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1)), .insertPush(Self.push(2, fate: .expired)), .insertPush(Self.push(3, token: "bb"))])
        #expect(try await store.pendingPushes().map(\.id) == [1, 3])
    }

    @Test(arguments: StoreEngineKind.allCases) func concurrentWritesAreGroupCommitted(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        let store = try await PushStore.open(location)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 1...2_000 as ClosedRange<UInt64> {
                group.addTask { try await store.write([.insertPush(Self.push(id, token: "t\(id % 50)"))]) }
            }
            try await group.waitForAll()
        }
        #expect(try await store.pushes(limit: 5_000).count == 2_000)
        // Many writes share a commit.
        #expect(store.commitCount < 2_000)
        #expect(store.commitCount >= 1)
    }

    /// Counts the writes committed, through their completions.
    final class Committed: Sendable {
        let count = Atomic(0)
        var completion: PushStore.Completion { { if case .success = $0 { self.count.add(1, ordering: .relaxed) } } }
        var value: Int { count.load(ordering: .relaxed) }

        /// Waits (up to 5 s) for `expected` commits.
        func wait(for expected: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while value < expected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        }
    }

    @Test(arguments: StoreEngineKind.allCases) func writesQueuedUnderAHoldShareOneCommitWhenItEnds(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1))])
        let before = store.commitCount
        let committed = Committed()
        store.holdCommits()
        for id in 2...6 as ClosedRange<UInt64> { store.write([.insertPush(Self.push(id))], completion: committed.completion) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(committed.value == 0 && store.commitCount == before, "nothing is committed while the hold lasts")
        store.releaseCommits()
        try await committed.wait(for: 5)
        #expect(committed.value == 5)
        #expect(store.commitCount == before + 1)
        #expect(try await store.pushes(limit: 10).count == 6)
    }

    @Test(arguments: StoreEngineKind.allCases) func aHoldKeepsNoMoreThanItsLimitOfWrites(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1))])
        let committed = Committed()
        store.holdCommits()
        let limit = PushStore.heldCommitLimit
        for id in 2...UInt64(limit + 1) { store.write([.insertPush(Self.push(id))], completion: committed.completion) }
        try await committed.wait(for: limit)
        #expect(committed.value == limit, "a full batch is committed while the hold lasts")
        store.releaseCommits()
    }

    @Test(arguments: StoreEngineKind.allCases) func eachReleaseCommitsWhatWaitsWhateverOtherHoldsRemain(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1))])
        let committed = Committed()
        store.holdCommits()  // another thread's read, still under way
        store.holdCommits()
        store.write([.insertPush(Self.push(2))], completion: committed.completion)
        store.write([.insertPush(Self.push(3))], completion: committed.completion)
        store.releaseCommits()
        try await committed.wait(for: 2)
        #expect(committed.value == 2)
        store.releaseCommits()
        // With no hold left, a write starts its commit at once.
        store.write([.insertPush(Self.push(4))], completion: committed.completion)
        try await committed.wait(for: 3)
        #expect(committed.value == 3)
    }

    @Test(arguments: StoreEngineKind.allCases) func aReleaseDuringACommitHasWhatWaitsCommittedNextWhateverOtherHoldsRemain(
        _ engine: StoreEngineKind
    ) async throws {
        let store = try await engine.newStore(memory: true)
        let committed = Committed()
        // The writer is kept inside a drain (in a completion) while a hold ends.
        let inside = Atomic(false)
        let gate = DispatchSemaphore(value: 0)
        store.write([.insertPush(Self.push(1))]) { _ in
            inside.store(true, ordering: .relaxed)
            gate.wait()
        }
        while !inside.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(1)) }
        store.holdCommits()  // another thread's read, still under way
        store.holdCommits()
        store.write([.insertPush(Self.push(2))], completion: committed.completion)
        store.releaseCommits()
        gate.signal()
        try await committed.wait(for: 1)
        #expect(committed.value == 1, "what the release left is committed before the other hold ends")
        store.releaseCommits()
    }

    @Test(arguments: StoreEngineKind.allCases) func aFailedWriteFailsItsWholeBatchAndKeepsTheStoreUsable(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1))])
        await #expect(throws: (any Error).self) { try await store.write([.insertPush(Self.push(1))]) }  // duplicate id
        try await store.write([.insertPush(Self.push(2))])
        #expect(try await store.pushes().map(\.id) == [2, 1])
    }

    /// The writer inserts a run of pushes in one statement (up to `rowsPerInsert` rows): every
    /// row keeps its own values, whatever the run's length, and a change after a push in the
    /// same batch finds it inserted.
    @Test(arguments: StoreEngineKind.allCases) func pushesInsertedTogetherKeepTheirRowsAndTheirOrder(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        let store = try await PushStore.open(location)
        func varied(_ id: UInt64) -> PushRecord {
            var push = Self.push(id, token: "t\(id % 3)", fate: id % 5 == 0 ? .expired : .pending, generation: id % 4 == 0 ? nil : UInt32(id))
            push.collapseID = id % 2 == 0 ? "c\(id)" : nil
            push.expiresAt = id % 3 == 0 ? 9_000 + Int64(id) : nil
            push.priority = id % 2 == 0 ? 10 : 5
            // Empty, small, and larger than the writer's scratch space (bound by copy).
            push.payload = id == 7 ? [] : id == 30 ? Array(repeating: UInt8(ascii: "x"), count: 70_000) : Array("{\"n\":\(id)}".utf8)
            return push
        }
        // 40 pushes: two full runs and a short one, with changes between them that name pushes
        // inserted earlier in the same batch.
        var changes: [StoreChange] = []
        var expected: [UInt64: PushRecord] = [:]
        for id in 1...40 as ClosedRange<UInt64> {
            changes.append(.insertPush(varied(id)))
            expected[id] = varied(id)
            if id == 20 || id == 37 {
                changes.append(.setFate(push: id - 1, fate: .expired, generation: nil))
                expected[id - 1]?.fate = .expired
            }
        }
        try await store.write(changes)
        let read = try await store.pushes(limit: 100)
        #expect(read.map(\.id) == Array((1...40 as ClosedRange<UInt64>).reversed()))
        for push in read {
            #expect(push == expected[push.id], "push \(push.id)")
        }
    }

    /// Wakes started and ended in one batch, among pushes (a push's first wake, as every new
    /// device has it), read back as one at a time would leave them: PostgreSQL's writer
    /// gathers them into inserts and folds each end into its row.
    @Test(arguments: StoreEngineKind.allCases) func wakesStartedAndEndedTogetherReadBackAsEachWasWritten(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        func wake(_ id: UInt64, result: FetchResult? = nil) -> WakeRecord {
            WakeRecord(
                id: id, deviceToken: "t\(id)", topic: "com.example.app", pushID: id, generation: UInt32(id % 3),
                startedAt: .init(millisecondsSinceEpoch: 10_000 + Int64(id)), deadline: .init(millisecondsSinceEpoch: 40_000 + Int64(id)),
                finishedAt: result == nil ? nil : .init(millisecondsSinceEpoch: 11_000), result: result)
        }
        // Wake 200 started in an earlier batch: its end in the next one is an update.
        try await store.write([.insertPush(Self.push(200)), .insertWake(wake(200))])
        var changes: [StoreChange] = [.finishWake(id: 200, finishedAt: 30_000, result: .failed(reason: "late"))]
        var expected: [UInt64: (finishedAt: Int64?, result: FetchResult?)] = [200: (30_000, .failed(reason: "late"))]
        // 150 pushes, each waking its app (more than one insert's rows); most wakes end at once.
        for id in 1...150 as ClosedRange<UInt64> {
            changes.append(.insertPush(Self.push(id, token: "t\(id)", fate: .delivered(by: id))))
            if id == 9 {
                // Inserted with a result: a later end changes nothing, as its update would not.
                changes += [.insertWake(wake(id, result: .noData)), .finishWake(id: id, finishedAt: 99_000, result: .newData)]
                expected[id] = (11_000, .noData)
            } else if id % 10 == 0 {
                changes.append(.insertWake(wake(id)))  // still running
                expected[id] = (nil, nil)
            } else {
                let result: FetchResult = id % 7 == 0 ? .failed(reason: "r\(id)") : id % 2 == 0 ? .newData : .noData
                changes += [.insertWake(wake(id)), .finishWake(id: id, finishedAt: 20_000 + Int64(id), result: result)]
                expected[id] = (20_000 + Int64(id), result)
            }
            if id == 70 {
                // A change between them keeps its place: the push it names is inserted before it,
                // and wake 70 ends after it.
                changes.append(.setFate(push: 69, fate: .expired, generation: nil))
            }
            if id == 75 {
                changes.append(.finishWake(id: 70, finishedAt: 50_000, result: .newData))
                expected[70] = (50_000, .newData)
            }
        }
        try await store.write(changes)
        let wakes = try await store.wakes(limit: 1_000)
        #expect(wakes.count == 151)
        for read in wakes {
            let want = try #require(expected[read.id], "wake \(read.id)")
            #expect(read.finishedAt?.millisecondsSinceEpoch == want.finishedAt && read.result == want.result, "wake \(read.id)")
            var rest = wake(read.id)
            (rest.finishedAt, rest.result, rest.apnsID) = (read.finishedAt, read.result, Self.push(read.id).apnsID)
            #expect(read == rest, "wake \(read.id)")
        }
        #expect(try await store.push(apnsID: Self.push(69).apnsID)?.fate == .expired)
        #expect(try await store.pushes(limit: 1_000).count == 151)
    }

    /// Writes one wake (with the push it delivered) ended with each of `results`, ids from 1:
    /// half end in an update, half are inserted ended, so both write paths are read back.
    static func writeEndedWakes(_ results: [FetchResult], to store: PushStore) async throws {
        var changes: [StoreChange] = []
        for (index, result) in results.enumerated() {
            let id = UInt64(index + 1)
            var wake = WakeRecord(
                id: id, deviceToken: "t\(id)", topic: "com.example.app", pushID: id, generation: 0,
                startedAt: .init(millisecondsSinceEpoch: 10_000), deadline: .init(millisecondsSinceEpoch: 40_000))
            changes.append(.insertPush(Self.push(id, token: "t\(id)", fate: .delivered(by: id))))
            if index % 2 == 0 {
                changes += [.insertWake(wake), .finishWake(id: id, finishedAt: 20_000, result: result)]
            } else {
                (wake.finishedAt, wake.result) = (.init(millisecondsSinceEpoch: 20_000), result)
                changes.append(.insertWake(wake))
            }
        }
        try await store.write(changes)
    }

    /// The receiver's own endings of a wake read back as themselves, and a handler that fails
    /// in the same words stays the handler's: counted `failed`, not as a deadline overrun.
    @Test(arguments: StoreEngineKind.allCases) func aHandlersWordsNeverReadAsTheReceiversEnding(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let results: [FetchResult] = [
            .deadlineExceeded, .failed(reason: "deadlineExceeded"), .shutdown, .failed(reason: "shutdown"), .interrupted,
            .failed(reason: "interrupted: the receiver stopped during the fetch"), .newData, .noData,
        ]
        try await Self.writeEndedWakes(results, to: store)
        let read = try await store.wakes(limit: 100).sorted { $0.id < $1.id }.map(\.result)
        #expect(read == results.map(Optional.some))
        #expect(try await store.counts().wakes == ["deadlineExceeded": 1, "failed": 5, "newData": 1, "noData": 1])
    }

    /// A wake the device's kill ended reads back killed, with its cause, on either engine and
    /// either write path; a handler failing in the same words stays the handler's; a cause
    /// this version does not know still reads as a failure, not as a running wake.
    @Test(arguments: StoreEngineKind.allCases) func aKilledWakeReadsBackKilledWithItsCause(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let results: [FetchResult] = AppKill.allCases.map(FetchResult.killed) + [.failed(reason: "killed: the app was force-quit")]
        try await Self.writeEndedWakes(results, to: store)
        let read = try await store.wakes(limit: 100).sorted { $0.id < $1.id }.map(\.result)
        #expect(read == results.map(Optional.some))
        #expect(read.compactMap { $0?.endedBy } == [.killed, .killed, .killed, .handler])
        #expect(try await store.counts().wakes == ["failed": 4])
        #expect(StoredResult.read(result: "killed", reason: "eaten") == .failed(reason: "killed: eaten"))
    }

    /// A store written before the receiver's endings had a result of their own: migration v20
    /// reads its `failed` rows in those words as the receiver's.
    @Test func aStoreFromBeforeV20ReadsItsDeadlineFailuresAsTheDeadlines() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let store = try await PushStore.open(.file(path))
        try await store.write([.insertPush(Self.push(1))])
        try await store.close()
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            for (id, reason) in [(1, "deadlineExceeded"), (2, "shutdown"), (3, "interrupted: the receiver stopped during the fetch"), (4, "late")] {
                try db.execute(
                    sql: """
                        INSERT INTO wakes (id, device_token, topic, push_id, generation, started_at, deadline, finished_at, result, reason, kind)
                        VALUES (?, 'aa', 'com.example.app', 1, 0, 0, 30000, 1000, 'failed', ?, 'fetch')
                        """, arguments: [id, reason])
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v20'")
        }
        try old.close()
        let reopened = try await PushStore.open(.file(path))
        let read = try await reopened.wakes(limit: 10).sorted { $0.id < $1.id }.map(\.result)
        #expect(read == [.deadlineExceeded, .shutdown, .interrupted, .failed(reason: "late")])
    }

    @Test(arguments: StoreEngineKind.allCases) func aFailedRunOfPushesLeavesNoneOfThemBehind(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(5))])
        // Push 5 again, in the middle of a run: the batch fails whole, and nothing of it stays
        // queued for the next transaction.
        await #expect(throws: (any Error).self) {
            try await store.write((1...10 as ClosedRange<UInt64>).map { .insertPush(Self.push($0)) })
        }
        try await store.write([.insertPush(Self.push(11))])
        #expect(try await store.pushes().map(\.id) == [11, 5])
    }

    @Test func anUnopenableFileIsNamed() async {
        await #expect { _ = try await PushStore.open(.file("/proc/not-a-dir/pushes.sqlite")) } throws: {
            "\($0)".contains("/proc/not-a-dir/pushes.sqlite")
        }
    }

    @Test(arguments: StoreEngineKind.allCases) func whatARestartNeedsComesBack(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        do {
            let store = try await PushStore.open(location)
            try await store.write([
                .insertPush(Self.push(1, fate: .coalesced, generation: 0)),
                .insertPush(Self.push(2, replaced: 1)),
                .insertWake(
                    WakeRecord(
                        id: 1, deviceToken: "aa", topic: "com.example.app", pushID: 2, generation: 0, startedAt: .init(millisecondsSinceEpoch: 5_000),
                        deadline: .init(millisecondsSinceEpoch: 35_000))),
                .setFate(push: 2, fate: .delivered(by: 1), generation: nil),
                .closeGeneration(head: 2, fate: .delivered(by: 1)),
                .finishWake(id: 1, finishedAt: 6_000, result: .newData),
                .insertWake(
                    WakeRecord(
                        id: 2, deviceToken: "aa", topic: "com.example.app", pushID: 3, generation: 1,
                        startedAt: .init(millisecondsSinceEpoch: 905_000), deadline: .init(millisecondsSinceEpoch: 935_000))),
                .insertPush(Self.push(4, fate: .rejected(.badDeviceToken), generation: nil)),
                .setUnregistered(token: "bb", at: 7_000),
                .setManualClock(at: 2_000_000),
                .setManualClock(at: 1_000_000),  // never back
            ])
            try await store.close()
        }
        let store = try await PushStore.open(location)
        #expect(try await store.coalescedAPNsIDs(wakeID: 1) == [Self.push(1).apnsID])
        #expect(try await store.wake(id: 1)?.apnsID == Self.push(2).apnsID)
        #expect(try await store.wake(id: 1)?.result == .newData)
        #expect(try await store.unfinishedWakes().map(\.id) == [2])
        let last = try #require(try await store.lastWakes().first)
        #expect(last.deviceToken == "aa" && last.startedAt == 905_000 && last.generation == 1)
        #expect(try await store.push(apnsID: Self.push(4).apnsID)?.fate == .rejected(.badDeviceToken))
        #expect(try await store.deviceRecords()["bb"]?.unregisteredAt == 7_000)
        #expect(try await store.latestDeviceTime() == 2_000_000)
    }
}

/// One fate per push: the insert of a push that replaced another in its slot writes that
/// one coalesced (waiting), and every reader reports the row as it is.
@Suite(.postgres) struct PushReadModelTests {
    @Test(arguments: StoreEngineKind.allCases) func everyReaderSeesAReplacedPushAsCoalesced(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([
            .insertPush(PushStoreTests.push(1)),
            .insertPush(PushStoreTests.push(2, token: "bb")),
            .insertPush(PushStoreTests.push(3, fate: .pending(PushStoreTests.held), replaced: 1)),
            .insertPush(PushStoreTests.push(4, token: "bb")),
            .setCoalescedByAPNs(push: 1),
        ])
        let replaced = PushStoreTests.push(1).apnsID
        #expect(try await store.push(apnsID: replaced)?.fate == .coalesced)
        #expect(try await store.push(apnsID: replaced)?.fate.wakeID == nil)
        #expect(try await store.push(apnsID: replaced)?.fate.coalescedByAPNs == true)
        #expect(try await store.push(apnsID: PushStoreTests.push(3).apnsID)?.fate == .pending)
        #expect(try await store.push(apnsID: PushStoreTests.push(3).apnsID)?.fate.waitReason == PushStoreTests.held)
        // A page of the newest push alone, and one that holds both: each with its reason.
        #expect(try await store.pushes(deviceToken: "aa", limit: 1).map(\.fate) == [.pending])
        #expect(try await store.pushes(deviceToken: "aa", limit: 1).map(\.fate.waitReason) == [PushStoreTests.held])
        #expect(try await store.pushes(deviceToken: "aa").map(\.fate) == [.pending, .coalesced])
        #expect(try await store.pushes(deviceToken: "aa").map(\.fate.coalescedByAPNs) == [false, true])
        #expect(try await store.pushes().map(\.id) == [4, 3, 2, 1])
        #expect(try await store.pushes().last?.fate == .coalesced)
        #expect(try await store.pushes().last?.fate.wakeID == nil)
        #expect(try await store.pushes().last?.fate.coalescedByAPNs == true)
        #expect(try await store.counts().pushes == ["pending": 3, "coalescedWaiting": 1])
        // An export reads each row once, a page at a time, and says the same.
        for size in [1, 2, 10] {
            var export = PushExport(store, query: PushQuery())
            var read: [PushRecord] = []
            while let page = try await export.next(pageSize: size) { read += page }
            #expect(read.map(\.id) == [4, 3, 2, 1] && read.map(\.fate) == [.pending, .pending, .pending, .coalesced], "pages of \(size)")
            var coalesced = PushExport(store, query: PushQuery(fate: .coalesced))
            var found: [PushRecord] = []
            while let page = try await coalesced.next(pageSize: size) { found += page }
            #expect(found.map(\.id) == [1])
            var pending = PushExport(store, query: PushQuery(deviceToken: "aa", fate: .pending))
            found = []
            while let page = try await pending.next(pageSize: size) { found += page }
            #expect(found.map(\.id) == [3])
        }
        // Once its generation closes, the row itself says so.
        try await store.write([
            .insertWake(
                WakeRecord(
                    id: 9, deviceToken: "aa", topic: "com.example.app", pushID: 3, generation: 0, startedAt: .init(millisecondsSinceEpoch: 5_000),
                    deadline: .init(millisecondsSinceEpoch: 35_000))),
            .setFate(push: 3, fate: .delivered(by: 9), generation: nil),
            .closeGeneration(head: 3, fate: .delivered(by: 9)),
        ])
        #expect(try await store.push(apnsID: replaced)?.fate == .coalesced)
        #expect(try await store.push(apnsID: replaced)?.fate.wakeID == 9)
        #expect(try await store.push(apnsID: replaced)?.fate.coalescedByAPNs == true)
        #expect(try await store.counts().pushes == ["pending": 2, "delivered": 1, "coalesced": 1])
        #expect(try await store.coalescedAPNsIDs(wakeID: 9) == [replaced])
    }

    /// A push that expired with the newer push that replaced it in its slot names that push;
    /// the newer one, which expired by its own time, names none. So does a store of version
    /// 25 once opened (its view is made again).
    @Test(arguments: StoreEngineKind.allCases) func anExpiredPushNamesThePushItExpiredWith(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        var store = try await PushStore.open(location)
        try await store.write([
            .insertPush(PushStoreTests.push(1)),
            .insertPush(PushStoreTests.push(2, replaced: 1)),
            .insertPush(PushStoreTests.push(3, token: "bb")),
            .setFate(push: 2, fate: .expired, generation: nil),
            .closeGeneration(head: 2, fate: .expired),
            .setFate(push: 3, fate: .expired, generation: nil),
            // Replaced at APNs while the device was offline, then expired with its successor.
            .insertPush(PushStoreTests.push(4, token: "cc")),
            .insertPush(PushStoreTests.push(5, token: "cc", replaced: 4)),
            .setCoalescedByAPNs(push: 4),
            .setFate(push: 5, fate: .expired, generation: nil),
            .closeGeneration(head: 5, fate: .expired),
        ])
        func check(_ store: PushStore, _ comment: Comment) async throws {
            #expect(try await store.pushes().map(\.fate) == Array(repeating: .expired, count: 5), comment)
            #expect(try await store.pushes().map(\.fate.expiredWith) == [nil, 5, nil, nil, 2], comment)
            #expect(try await store.pushes().map(\.fate.coalescedByAPNs) == [false, true, false, false, false], comment)
            #expect(try await store.push(apnsID: PushStoreTests.push(1).apnsID)?.fate.expiredWith == 2, comment)
            var export = PushExport(store, query: PushQuery(fate: .expired))
            var read: [PushRecord] = []
            while let page = try await export.next(pageSize: 2) { read += page }
            #expect(read.map(\.fate.expiredWith) == [nil, 5, nil, nil, 2], comment)
            #expect(try await store.counts().pushes == ["expired": 5], comment)
        }
        try await check(store, "as written")
        try await store.close()
        // Version 25's view had no `replaced_by`: any view of that name stands for it.
        try await PushStoreTests.rewind(location, to: 25, running: "DROP VIEW push_fates; CREATE VIEW push_fates AS SELECT * FROM pushes")
        store = try await PushStore.open(location)
        try await check(store, "after the upgrade from version 25")
        try await store.close()
    }
}

@Suite(.postgres) struct PushStoreCloseTests {
    @Test(arguments: StoreEngineKind.allCases) func aStoreThatWroteClosesAndOpensAgain(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        let store = try await PushStore.open(location)
        try await store.write([.insertPush(PushStoreTests.push(1)), .setFate(push: 1, fate: .expired, generation: nil)])
        _ = try await store.push(apnsID: PushStoreTests.push(1).apnsID)
        try await store.close()
        await #expect(throws: PushStoreError.closed) { try await store.write([.insertPush(PushStoreTests.push(2))]) }
        let again = try await PushStore.open(location)
        #expect(try await again.push(apnsID: PushStoreTests.push(1).apnsID)?.fate == .expired)
    }
}
