import Foundation
import GRDB
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import Testing

/// Pruning by count and by age, in batches, with the wakes of the pushes pruned, and the
/// space given back by incremental vacuum.
@Suite(.postgres) struct PushStoreRetentionTests {
    /// Pushes 1...count, each delivered by its own finished wake (1000 + id), but for the
    /// `pending` ones, and wake `running`'s, which has not finished.
    static func store(
        _ engine: StoreEngineKind, count: UInt64, pending: Set<UInt64>, running: UInt64? = nil, payload: Int = 40
    ) async throws -> PushStore {
        let store = try await engine.newStore(memory: true)
        try await fill(store, count: count, pending: pending, running: running, payload: payload)
        return store
    }

    static func fill(_ store: PushStore, count: UInt64, pending: Set<UInt64>, running: UInt64? = nil, payload: Int = 40) async throws {
        var changes: [StoreChange] = []
        for id in 1...count {
            var push = PushStoreTests.push(id, fate: pending.contains(id) ? .pending : .delivered(by: 1000 + id))
            push.payload = Array(repeating: UInt8(ascii: "x"), count: payload)
            changes.append(.insertPush(push))
            guard !pending.contains(id) else { continue }
            changes.append(
                .insertWake(
                    WakeRecord(
                        id: 1000 + id, deviceToken: "aa", topic: "com.example.app", pushID: id, generation: 0,
                        startedAt: .init(millisecondsSinceEpoch: 1_000 + Int64(id)), deadline: .init(millisecondsSinceEpoch: 31_000 + Int64(id)))))
            if id != running { changes.append(.finishWake(id: 1000 + id, finishedAt: 2_000 + Int64(id), result: .newData)) }
        }
        try await store.write(changes)
    }

    @Test(arguments: StoreEngineKind.allCases) func theNewestPushesAreKeptAndPendingOnesWhateverTheirAge(_ engine: StoreEngineKind) async throws {
        let store = try await Self.store(engine, count: 100, pending: [50, 51, 52], running: 20)
        var removed = 0
        var batches = 0
        var after: Int64 = 0
        while true {
            let pruned = try await store.prune(olderThan: nil, maximumCount: 10, held: [50, 52], after: after, batch: 16)
            removed += pruned.pushes
            after = pruned.lastExamined
            batches += 1
            if pruned.examined < 16 { break }
        }
        #expect(removed == 88 && batches == 6, "90 pushes are past the newest 10; 2 of them the device holds (51 was replaced)")
        let kept = try await store.pushes(deviceToken: "aa", limit: 1000).map(\.id)
        #expect(kept == Array((91...100).reversed()) + [52, 50])
        let wakes = try await store.wakes(deviceToken: "aa", limit: 1000).map(\.id).sorted()
        #expect(wakes == [1020] + Array(1091...1100), "a wake still running stays")
        #expect(try await store.prune(olderThan: nil, maximumCount: 10, held: [50, 52], batch: 16).total == 0)
    }

    /// Ids number on past the rows pruning or a reset deleted, even when those were the
    /// newest: a restart reads them from `id_floors` and gives no push or wake id twice.
    @Test(arguments: StoreEngineKind.allCases) func idsNumberOnPastTheNewestRowsDeleted(_ engine: StoreEngineKind) async throws {
        let store = try await Self.store(engine, count: 10, pending: [])
        #expect(try await store.lastIDs() == (push: 10, wake: 1010))
        let pruned = try await store.prune(olderThan: 1_000_000, maximumCount: nil, batch: 100)
        #expect(pruned.pushes == 10 && pruned.wakes == 10)
        #expect(try await store.pushes(deviceToken: "aa", limit: 100).isEmpty)
        #expect(try await store.lastIDs() == (push: 10, wake: 1010), "every row is gone; the ids given out stay given")
        try await Self.fill(store, count: 3, pending: [])  // lower ids again: the floor is not lowered
        try await store.write([.forgetEverything])
        #expect(try await store.lastIDs() == (push: 10, wake: 1010))
        try await store.write([.insertPush(PushStoreTests.push(12, fate: .pending)), .forgetDevice(token: "aa")])
        #expect(try await store.lastIDs() == (push: 12, wake: 1010), "a forgotten device's newest push is counted")
        try await store.close()
    }

    /// The messages the channels keep stay whatever their age (a restart reads them back);
    /// the batches still move past them.
    @Test(arguments: StoreEngineKind.allCases) func theMessagesChannelsKeepStay(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let channel = try #require(ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
        try await store.write(
            (1...10).map { id in
                .insertBroadcast(
                    BroadcastRecord(
                        id: UInt64(id), requestID: "r\(id)", uniqueID: nil, bundleID: "com.example.app", environment: .sandbox, channelID: channel,
                        priority: .high, expiration: 0, receivedAt: DeviceInstant(millisecondsSinceEpoch: 1_000 + Int64(id)),
                        payload: Array("{}".utf8)))
            })
        var batches: [Int] = []
        for _ in 0..<4 {
            batches.append(try await store.prune(olderThan: 1_000_000, maximumCount: nil, keptBroadcasts: [1, 4, 9], batch: 3).broadcasts)
        }
        #expect(batches == [3, 3, 1, 0], "a full batch deletes `batch`, so the pruner goes on")
        let kept = try await store.broadcasts(bundleID: nil, environment: .sandbox, limit: 100).map(\.id)
        #expect(kept == [9, 4, 1])
        #expect(try await store.prune(olderThan: 1_000_000, maximumCount: nil, batch: 3).broadcasts == 3, "no longer kept, they go")
        try await store.close()
    }

    /// A delivered push whose wake still runs is kept when held, and pushes from `before` on
    /// (arrived after the held set was read) are not examined.
    @Test(arguments: StoreEngineKind.allCases) func aHeldDeliveredPushAndThoseArrivedSinceTheHeldSetStay(_ engine: StoreEngineKind) async throws {
        let store = try await Self.store(engine, count: 100, pending: [], running: 20)
        let pruned = try await store.prune(olderThan: nil, maximumCount: 0, held: [20], before: 95, batch: 1000)
        #expect(pruned.pushes == 93)
        let kept = try await store.pushes(deviceToken: "aa", limit: 1000).map(\.id)
        #expect(kept == Array((95...100).reversed()) + [20])
    }

    /// A push older than the age limit that waited (held, or offline) and was delivered since
    /// stays with its wake, which is new; the pushes coalesced into that wake stay too.
    @Test(arguments: StoreEngineKind.allCases) func anOldPushDeliveredByARecentWakeStaysWithIt(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([
            .insertPush(PushStoreTests.push(1, fate: .delivered(by: 7))), .insertPush(PushStoreTests.push(2, fate: .delivered(by: 8))),
            .insertPush(PushStoreTests.push(3, fate: .coalesced(into: 8))),
            .insertWake(
                WakeRecord(
                    id: 7, deviceToken: "aa", topic: "com.example.app", pushID: 1, generation: 0, startedAt: .init(millisecondsSinceEpoch: 1_500),
                    deadline: .init(millisecondsSinceEpoch: 31_500))),
            .finishWake(id: 7, finishedAt: 1_600, result: .newData),
            .insertWake(
                WakeRecord(
                    id: 8, deviceToken: "bb", topic: "com.example.app", pushID: 2, generation: 0, startedAt: .init(millisecondsSinceEpoch: 50_000),
                    deadline: .init(millisecondsSinceEpoch: 80_000))),
            .finishWake(id: 8, finishedAt: 50_100, result: .newData),
        ])
        // Every push arrived by 1,003 ms; the cutoff is 10,000.
        let pruned = try await store.prune(olderThan: 10_000, maximumCount: nil, batch: 100)
        #expect(pruned.pushes == 1 && pruned.wakes == 1)
        #expect(try await store.pushes(limit: 10).map(\.id) == [3, 2])
        #expect(try await store.wake(id: 8) != nil)
        #expect(try await store.wake(id: 7) == nil)
    }

    /// A push coalesced behind one still waiting stays by age (it goes with the wake it will
    /// ride, whose coalesced list names it), and goes past the count limit.
    @Test(arguments: StoreEngineKind.allCases) func aPushCoalescedBehindAWaitingOneStaysWithIt(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        // A Live Activity update coalesced is settled (no wake takes it): it goes by age.
        var update = PushStoreTests.push(3, fate: .coalesced(into: nil, byAPNs: false), generation: nil)
        update.pushType = "liveactivity"
        try await store.write([
            .insertPush(PushStoreTests.push(1, fate: .pending)), .insertPush(PushStoreTests.push(2, fate: .pending, replaced: 1)),
            .insertPush(update),
        ])
        #expect(try await store.pushes(limit: 10).last?.fate == .coalesced(into: nil, byAPNs: false))
        let byAge = try await store.prune(olderThan: 10_000, maximumCount: nil, held: [2], batch: 100)
        #expect(byAge.pushes == 1)
        #expect(try await store.pushes(limit: 10).map(\.id) == [2, 1])
        let byCount = try await store.prune(olderThan: 10_000, maximumCount: 1, held: [2], batch: 100)
        #expect(byCount.pushes == 1)
        #expect(try await store.pushes(limit: 10).map(\.id) == [2])
    }

    /// Past the count limit a push goes whatever its wake's age, and its wake with it: the age
    /// limit alone keeps a recent wake's pushes (with both limits set, as by default, the
    /// count was never enforced).
    @Test(arguments: StoreEngineKind.allCases) func pastTheCountLimitAPushGoesHoweverRecentItsWake(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        func wake(_ id: UInt64, push: UInt64) -> [StoreChange] {
            [
                .insertWake(
                    WakeRecord(
                        id: id, deviceToken: "aa", topic: "com.example.app", pushID: push, generation: 0,
                        startedAt: .init(millisecondsSinceEpoch: 50_000), deadline: .init(millisecondsSinceEpoch: 80_000))),
                .finishWake(id: id, finishedAt: 50_100, result: .newData),
            ]
        }
        try await store.write(
            [
                .insertPush(PushStoreTests.push(1, fate: .delivered(by: 7))), .insertPush(PushStoreTests.push(2, fate: .coalesced(into: 8))),
                .insertPush(PushStoreTests.push(3, fate: .delivered(by: 8))),
            ] + wake(7, push: 1) + wake(8, push: 3))
        let pruned = try await store.prune(olderThan: 10_000, maximumCount: 1, batch: 100)
        #expect(pruned.pushes == 2 && pruned.wakes == 1)
        #expect(try await store.pushes(limit: 10).map(\.id) == [3])
        #expect(try await store.wake(id: 7) == nil)
        #expect(try await store.wake(id: 8) != nil)
    }

    /// Batches that keep different pushes run the same statement texts: SQLite's writer keeps
    /// each text it ran prepared for its life, so a text naming the kept ids grew it by one
    /// statement a batch, for as long as the receiver ran.
    @Test func batchesKeepingDifferentPushesPrepareNoNewStatements() async throws {
        let store = try await Self.store(.sqlite, count: 100, pending: Set(1...100))
        var after: Int64 = 0
        var prepared: [Int] = []
        for batch in 0..<10 {
            let held: Set<UInt64> = [UInt64(after) + 1 + UInt64(batch % 9), UInt64(after) + 10 - UInt64(batch % 3)]
            let pruned = try await store.prune(olderThan: nil, maximumCount: 0, held: held, after: after, batch: 10)
            #expect(pruned.pushes == 10 - held.count, "\(batch): \(pruned)")
            after = pruned.lastExamined
            prepared.append(try #require(try await store.preparedWriteStatements()))
        }
        #expect(Set(prepared).count == 1, "\(prepared)")
        #expect(try await store.pushes(limit: 1000).count == 20)
    }

    /// Transfers that ended go by age, but those a relaunch will still hand over: its request
    /// pending, or not asked for yet because another transfer of the session runs.
    @Test(arguments: StoreEngineKind.allCases) func endedTransfersGoButThoseARelaunchWillHandOver(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        func transfer(_ id: UInt64, session: String, launchEvents: Bool = true) throws -> TransferRecord {
            TransferRecord(
                id: id, deviceToken: "aa", topic: "com.example.app",
                request: try TransferRequest(session: session, url: "https://example.com/\(id)", sessionSendsLaunchEvents: launchEvents),
                wakeID: 1, handedOverAt: DeviceInstant(millisecondsSinceEpoch: 1_000 + Int64(id)))
        }
        func finish(_ id: UInt64, _ state: TransferRecord.State) -> StoreChange {
            .finishTransfer(id: id, state: state, at: 2_000, bytes: 10, reason: nil, status: 200, etag: nil, lastModified: nil)
        }
        try await store.write([
            // 1: done, its relaunch ran and deleted the file.
            .insertTransfer(try transfer(1, session: "ran")), finish(1, .done),
            .insertTaskRequest(
                TaskRequestRecord(
                    deviceToken: "aa", topic: "com.example.app", request: TaskRequest(id: 50, identifier: "ran", kind: .urlSession),
                    submittedAt: DeviceInstant(millisecondsSinceEpoch: 1_500), state: .launched)),
            .setTransferRelaunch(ids: [1], request: 50), .setTransferFile(id: 1, fate: .deleted),
            // 2: done, its relaunch waits.
            .insertTransfer(try transfer(2, session: "waits")), finish(2, .done),
            .insertTaskRequest(
                TaskRequestRecord(
                    deviceToken: "aa", topic: "com.example.app", request: TaskRequest(id: 51, identifier: "waits", kind: .urlSession),
                    submittedAt: DeviceInstant(millisecondsSinceEpoch: 1_500))),
            .setTransferRelaunch(ids: [2], request: 51),
            // 3 done and 4 running, in one session: 3 waits for the relaunch 4's end asks for.
            .insertTransfer(try transfer(3, session: "open")), finish(3, .done), .insertTransfer(try transfer(4, session: "open")),
            // 5: failed. 6: done, in a session that sends no launch events.
            .insertTransfer(try transfer(5, session: "failed")), finish(5, .failed),
            .insertTransfer(try transfer(6, session: "quiet", launchEvents: false)), finish(6, .done),
            // 7: done, its relaunch running (launched, its run not ended).
            .insertTransfer(try transfer(7, session: "running")), finish(7, .done),
            .insertTaskRequest(
                TaskRequestRecord(
                    deviceToken: "aa", topic: "com.example.app", request: TaskRequest(id: 52, identifier: "running", kind: .urlSession),
                    submittedAt: DeviceInstant(millisecondsSinceEpoch: 1_500), state: .launched)),
            .setTransferRelaunch(ids: [7], request: 52),
            .insertTaskRun(
                TaskRunRecord(
                    id: 60, requestID: 52, deviceToken: "aa", topic: "com.example.app", identifier: "running", kind: .urlSession,
                    startedAt: DeviceInstant(millisecondsSinceEpoch: 1_600), deadline: nil, simulated: false)),
            // 8: done, the session over, its relaunch not asked for (the receiver stopped first).
            .insertTransfer(try transfer(8, session: "stopped")), finish(8, .done),
        ])
        let pruned = try await store.prune(olderThan: 10_000, maximumCount: nil, batch: 100)
        #expect(pruned.transfers.map(\.id) == [1, 5, 6] && pruned.transfers.count == 3, "\(pruned)")
        #expect(try await store.transfers().map(\.id).sorted() == [2, 3, 4, 7, 8])
        #expect(try await store.prune(olderThan: 10_000, maximumCount: nil, batch: 100).transfers.isEmpty)
    }

    /// A fetched body goes once no content row names it and no fetch saved it within the
    /// grace: in files beside a SQLite store, in memory, and in PostgreSQL's table.
    @Test(arguments: [(StoreEngineKind.sqlite, false), (.sqlite, true), (.postgres, false)])
    func aBodyNoRowNamesGoes(_ engine: StoreEngineKind, memory: Bool) async throws {
        let store = try await engine.newStore(memory: memory)
        let (a, b) = (Array("first".utf8), Array("second".utf8))
        func row(_ url: String, _ sha256: String) -> StoreChange {
            .setContent(
                ContentRecord(
                    deviceToken: "aa", topic: "com.example.app", url: url, etag: nil, lastModified: nil, contentType: nil, sha256: sha256,
                    size: 5, fetchedAt: 1, changedAt: 1))
        }
        try await store.saveContent(a, sha256: "aaaa")
        try await store.write([row("https://example.com/1", "aaaa"), row("https://example.com/2", "aaaa")])
        try await store.saveContent(b, sha256: "bbbb")
        try await store.write([row("https://example.com/1", "bbbb")])
        store.contentSuperseded(sha256: "aaaa")
        // The second URL still names it.
        #expect(try await store.dropSupersededContents(grace: .zero) == 0)
        #expect(try await store.contentBody(sha256: "aaaa") == a)
        try await store.write([row("https://example.com/2", "bbbb")])
        store.contentSuperseded(sha256: "aaaa")
        // Saved within the grace: a fetch may be about to name it.
        #expect(try await store.dropSupersededContents() == 0)
        #expect(try await store.contentBody(sha256: "aaaa") == a)
        try await Task.sleep(for: .milliseconds(5))
        #expect(try await store.dropSupersededContents(grace: .zero) == 1)
        #expect(try await store.contentBody(sha256: "aaaa") == nil)
        #expect(try await store.contentBody(sha256: "bbbb") == b)
        #expect(try await store.dropSupersededContents(grace: .zero) == 0, "no candidate is left")
        // A body no row names that this process never saw superseded (a previous run's) goes
        // with the sweep of every body; one a row names stays.
        let orphan = String(repeating: "c", count: 64)  // a SHA-256's length: the sweep reads only such names
        try await store.saveContent(Array("orphan".utf8), sha256: orphan)
        #expect(try await store.dropSupersededContents(grace: .zero) == 0)
        try await Task.sleep(for: .milliseconds(5))
        #expect(try await store.dropUnnamedContents() == 0, "saved within the grace")
        #expect(try await store.dropUnnamedContents(grace: .zero) == 1)
        #expect(try await store.contentBody(sha256: orphan) == nil)
        #expect(try await store.contentBody(sha256: "bbbb") == b)
        try await store.close()
    }

    /// A body file dated past what milliseconds in an Int64 can say (tmpfs keeps any date) is
    /// one saved recently: it stays, and the sweep does not trap.
    @Test func aBodyDatedFarInTheFutureStays() async throws {
        let directory = "/dev/shm/silentpush-store-\(UUID().uuidString)"
        guard FileManager.default.isWritableFile(atPath: "/dev/shm") else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await PushStore.open(.file(directory + "/pushes.sqlite"))
        let orphan = String(repeating: "d", count: 64)
        try await store.saveContent(Array("far".utf8), sha256: orphan)
        let far = Date(timeIntervalSince1970: 1e17)
        try FileManager.default.setAttributes([.modificationDate: far], ofItemAtPath: directory + "/pushes.sqlite-contents/" + orphan)
        let dated = try FileManager.default.attributesOfItem(atPath: directory + "/pushes.sqlite-contents/" + orphan)[.modificationDate] as? Date
        #expect(dated == far, "the file system kept another date: \(String(describing: dated))")
        #expect(try await store.dropUnnamedContents(grace: .zero) == 0)
        #expect(try await store.contentBody(sha256: orphan) == Array("far".utf8))
        try await store.close()
    }

    @Test(arguments: StoreEngineKind.allCases) func pushesOlderThanTheCutoffGo(_ engine: StoreEngineKind) async throws {
        let store = try await Self.store(engine, count: 100, pending: [10])
        // Push n arrived at 1000 + n ms.
        let pruned = try await store.prune(olderThan: 1_060, maximumCount: nil, held: [10], batch: 1000)
        #expect(pruned.pushes == 58 && pruned.wakes == 58)
        #expect(try await store.pushes(deviceToken: "aa", limit: 1000).map(\.id).sorted() == [10] + Array(60...100))
        #expect(try await store.prune(olderThan: 1_000, maximumCount: nil, held: [10], batch: 1000).total == 0)
    }

    /// Ids at both ends of the column (rows edited by hand, or bit patterns past 2^63 read
    /// back negative) do not overflow the search for the cutoff: the old pushes from id 1 up
    /// go (pruning walks up from there; a receiver refuses to start on a negative id).
    @Test(arguments: StoreEngineKind.allCases) func idsAtTheColumnsEndsArePrunedByAge(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let ids: [UInt64] = [1 << 63, 5, UInt64(Int64.max), UInt64.max]
        try await store.write(
            ids.map { id in
                var push = PushStoreTests.push(1)
                push.id = id
                push.apnsID = "00000000-0000-4000-8000-\(String(format: "%012d", id % 1_000_000))"
                return .insertPush(push)
            })
        let pruned = try await store.prune(olderThan: 10_000, maximumCount: nil, batch: 1000)
        #expect(pruned.pushes == 2)
        #expect(try await store.pushes(deviceToken: "aa", limit: 10).map(\.id).sorted() == [1 << 63, UInt64.max])
    }

    @Test(arguments: StoreEngineKind.allCases) func finishedTaskRunsAndRequestsGoToo(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        var changes: [StoreChange] = []
        for id in UInt64(1)...30 {
            let request = TaskRequest<DeviceInstant>(id: id, identifier: "com.example.app.refresh", kind: .refresh)
            changes.append(
                .insertTaskRequest(
                    TaskRequestRecord(
                        deviceToken: "aa", topic: "com.example.app", request: request,
                        submittedAt: .init(millisecondsSinceEpoch: Int64(id)), state: id == 3 ? .pending : .launched)))
            changes.append(
                .insertTaskRun(
                    TaskRunRecord(
                        id: id, requestID: id, deviceToken: "aa", topic: "com.example.app", identifier: "com.example.app.refresh", kind: .refresh,
                        startedAt: .init(millisecondsSinceEpoch: Int64(id)), deadline: nil, simulated: false)))
            if id != 5 { changes.append(.finishTaskRun(id: id, at: Int64(id) + 1, outcome: .completed)) }
        }
        try await store.write(changes)
        let pruned = try await store.prune(olderThan: 21, maximumCount: nil, batch: 100)
        #expect(pruned.taskRuns == 19 && pruned.taskRequests == 19, "1...20 but the run not finished and the request pending")
        #expect(try await store.taskRuns(deviceToken: "aa", topic: "com.example.app", limit: 100).map(\.id).sorted() == [5] + Array(21...30))
    }

    /// By age: update decisions made before the cutoff, and activities dismissed before it;
    /// an activity still shown, or dismissed after the cutoff, stays.
    @Test(arguments: StoreEngineKind.allCases) func liveActivitiesArePrunedByAge(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let app = LiveActivityApp(device: "aa", bundleID: "com.example.app")
        func activity(_ id: String, _ state: LiveActivity.State) -> LiveActivity {
            LiveActivity(
                id: id, app: app, attributesType: "A", attributes: "{}", subscription: .none, state: state, contentState: "{}",
                startedAt: .init(millisecondsSinceEpoch: 1))
        }
        var changes: [StoreChange] = [
            .recordActivity(activity("old", .dismissed(at: .init(millisecondsSinceEpoch: 10), endedAt: .init(millisecondsSinceEpoch: 5)))),
            .recordActivity(activity("late", .dismissed(at: .init(millisecondsSinceEpoch: 100), endedAt: .init(millisecondsSinceEpoch: 50)))),
            .recordActivity(activity("shown", .active)),
        ]
        for at in [5, 15, 60] as [Int64] {
            changes.append(
                .insertActivityUpdate(
                    LiveActivityUpdate(source: "s\(at)", activityID: "shown", outcome: .applied, why: "w", at: .init(millisecondsSinceEpoch: at))))
        }
        try await store.write(changes)
        let pruned = try await store.prune(olderThan: 50, maximumCount: nil, batch: 100)
        #expect(pruned.activities == 1 && pruned.activityUpdates == 2)
        #expect(try await store.activities(deviceToken: "aa").map(\.id).sorted() == ["late", "shown"])
        let late = try await store.activities(deviceToken: "aa").first { $0.id == "late" }
        #expect(late?.endedAt == .init(millisecondsSinceEpoch: 50), "a dismissed activity reads back with when it ended")
        #expect(try await store.activityUpdates(activityID: "shown").map(\.source) == ["s60"])
        #expect(try await store.prune(olderThan: nil, maximumCount: 1, batch: 100).activities == 0, "the count limit is about pushes")
    }

    /// A dismissed activity reads back with the end it was recorded with, and one recorded
    /// without (before ends were kept) with none, not one made up.
    @Test(arguments: StoreEngineKind.allCases) func aDismissedActivityKeepsItsEndOrNone(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        let app = LiveActivityApp(device: "aa", bundleID: "com.example.app")
        for (id, endedAt) in [("kept", DeviceInstant(millisecondsSinceEpoch: 50)), ("legacy", nil)] {
            try await store.write([
                .recordActivity(
                    LiveActivity(
                        id: id, app: app, attributesType: "A", attributes: "{}", subscription: .none,
                        state: .dismissed(at: .init(millisecondsSinceEpoch: 100), endedAt: endedAt), contentState: "{}",
                        startedAt: .init(millisecondsSinceEpoch: 1)))
            ])
        }
        let read = try await store.activities(deviceToken: "aa")
        #expect(read.first { $0.id == "kept" }?.endedAt == .init(millisecondsSinceEpoch: 50))
        #expect(read.first { $0.id == "legacy" }.map { $0.endedAt == nil && $0.state.name == "dismissed" } == true)
    }

    @Test func vacuumGivesTheSpaceBack() async throws {
        let path = PushStoreTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let store = try await PushStore.open(.file(path))
        try await Self.fill(store, count: 3000, pending: [], payload: 2000)
        let full = try await store.databaseSize()
        var after: Int64 = 0
        while true {
            let pruned = try await store.prune(olderThan: nil, maximumCount: 100, after: after, batch: 256)
            after = pruned.lastExamined
            if pruned.examined < 256 { break }
        }
        #expect(try await store.databaseSize() >= full, "pruning alone frees pages inside the file")
        while try await store.vacuumIncrementally(pages: 256) > 0 {}
        let vacuumed = try await store.databaseSize()
        #expect(vacuumed * 5 < full, "\(full) bytes, then \(vacuumed)")
        #expect(try await store.pushes(deviceToken: "aa", limit: 1000).count == 100)
    }

    @Test func aStoreMadeBeforeIsMadeIncrementalOnce() async throws {
        let path = PushStoreTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        do {
            let old = try DatabaseQueue(path: path)
            try await old.write { try $0.execute(sql: "CREATE TABLE earlier (x INTEGER)") }
            let mode = try await old.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") }
            #expect(mode == 0)
        }
        let store = try await PushStore.open(.file(path))
        try await store.close()
        let reopened = try DatabaseQueue(path: path)
        let mode = try await reopened.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") }
        #expect(mode == 2)
    }
}
