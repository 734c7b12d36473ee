import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTesting
import Testing

/// A clustered recorder: it takes pushes only for the devices of the shards it owns, puts a
/// claimed shard's devices back from a snapshot, and lets them all go, recording nothing,
/// when the session that held its claims ends. Event in, actions out.
@Suite struct DeviceRecorderClusterTests {
    typealias App = DeviceRuntime.AppKey
    static let map = ShardMap(count: 4)!
    static let t0 = DeviceRecorderTests.t0

    /// A device token in `shard`.
    static func token(in shard: Int) -> String {
        (0...).lazy.map { String(repeating: String(format: "%02x", $0 % 256), count: 32) + "" }
            .first { map.shard(of: $0) == shard } ?? ""
    }

    static func clustered() -> DeviceRecorder {
        DeviceRecorder(policy: DeviceRecorder.Policy(settings: .ios), shards: DeviceRecorder.Shards(map: map), armsTimers: false)
    }

    static func receive(_ recorder: inout DeviceRecorder, _ id: UInt64, device: String, at now: DeviceInstant) -> DeviceRecorder.Actions {
        var record = DeviceRecorderTests.record(id, receivedAt: now)
        record.deviceToken = device
        return recorder.receive(record, incoming: IncomingPush(id: id, priority: .normal), now: now) { _ in }
    }

    @Test func aPushForAShardNotOwnedIsRefusedWithNothingRecorded() {
        var recorder = Self.clustered()
        let actions = Self.receive(&recorder, 1, device: Self.token(in: 2), at: Self.t0)
        #expect(actions.reply == .notOwner)
        #expect(actions.changes.isEmpty && actions.completion == nil && actions.runs.isEmpty)
        var standalone = DeviceRecorderTests.recorder()
        #expect(Self.receive(&standalone, 1, device: Self.token(in: 2), at: Self.t0).reply == .done, "unclustered, every device is its own")
    }

    @Test func adoptingAShardPutsItsPendingPushBackAndTakesItsPushes() throws {
        var recorder = Self.clustered()
        let device = Self.token(in: 1)
        var pending = DeviceRecorderTests.record(7)
        pending.deviceToken = device
        var snapshot = DeviceSnapshot()
        snapshot.apps[App(device: device, topic: DeviceRecorderTests.topic)] = (
            nextAllowed: Self.t0.advanced(by: .seconds(60)), overran: false, generation: 3, pending: pending, coalesced: 2
        )
        let adopted = recorder.adopt(snapshot, shards: [1], now: Self.t0)
        #expect(recorder.shards?.owned == [1])
        #expect(adopted.runs.isEmpty, "the minimum interval still runs: the push waits")
        #expect(recorder.policy.pendingSlotCount == 1)
        // Past the interval the adopted push wakes the app, as after a restart.
        let due = recorder.advance(to: Self.t0.advanced(by: .seconds(61)))
        #expect(due.runs.map(\.start.push) == [7])
        #expect(due.runs.first?.start.coalescedCount == 2, "the two pushes 7 replaced ride its wake")
        #expect(Self.receive(&recorder, 8, device: device, at: Self.t0.advanced(by: .seconds(62))).reply == .done)
        #expect(Self.receive(&recorder, 9, device: Self.token(in: 0), at: Self.t0.advanced(by: .seconds(62))).reply == .notOwner)
    }

    /// An activity put back past its stale date goes stale as it is adopted, not at the next
    /// event (on a manual clock, the next move).
    @Test func anAdoptedActivityPastItsStaleDateGoesStaleAtOnce() throws {
        var recorder = Self.clustered()
        let app = LiveActivityApp(device: Self.token(in: 1), bundleID: "com.example.app")
        var snapshot = DeviceSnapshot()
        snapshot.activities = [
            LiveActivity(
                id: "A1", app: app, attributesType: "GameAttributes", attributes: "{}", subscription: .token("T1"), contentState: "{}",
                staleDate: Self.t0.advanced(by: .seconds(60)), startedAt: Self.t0)
        ]
        let adopted = recorder.adopt(snapshot, shards: [1], now: Self.t0.advanced(by: .seconds(600)))
        let recorded = adopted.changes.compactMap { if case .recordActivity(let activity) = $0 { activity } else { nil } }
        #expect(recorded.map(\.id) == ["A1"] && recorded.first?.state == .stale, "\(recorded)")
    }

    /// Broadcasts an adopted shard's channel activity missed while no receiver held its device
    /// reach it, each recorded as its decision (with the activity as it now shows); once
    /// the shards are let go, nothing is recorded for them.
    @Test func broadcastsAnAdoptedActivityMissedReachItUntilItsShardIsLetGo() throws {
        var recorder = Self.clustered()
        let app = LiveActivityApp(device: Self.token(in: 1), bundleID: "com.example.app")
        let channel = try #require(ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
        var snapshot = DeviceSnapshot()
        snapshot.activities = [
            LiveActivity(
                id: "A1", app: app, attributesType: "GameAttributes", attributes: "{}", subscription: .channel(channel), contentState: "{}",
                startedAt: Self.t0)
        ]
        _ = recorder.adopt(snapshot, shards: [1], now: Self.t0)
        let payload = try LiveActivityPayload.parse(Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"score":2}}}"#.utf8)).get()
        let missed = DeviceRecorder.MissedBroadcast(
            activityID: "A1",
            broadcast: LiveActivityPolicy.Broadcast(
                source: "R1", channel: LiveActivityPolicy.ChannelKey(bundleID: app.bundleID, channel: channel), priority: .high,
                payload: payload, receivedAt: Self.t0.advanced(by: .seconds(5)), storedUntil: nil))
        // A broadcast that arrives between the adoption and the catch-up reaches A1 by its
        // fan-out: the catch-up skips it, though the read found it missed too.
        let during = BroadcastRecord(
            id: 2, requestID: "R2", uniqueID: nil, bundleID: app.bundleID, environment: .sandbox, channelID: channel, priority: .high,
            expiration: 0, receivedAt: Self.t0.advanced(by: .seconds(6)), payload: [])
        let fannedOut = recorder.broadcast(
            during, from: .member, payload: payload, storedUntil: nil, now: Self.t0.advanced(by: .seconds(6)), completion: { _ in })
        #expect(fannedOut.changes.contains { if case .insertActivityUpdate(let update) = $0 { update.source == "R2" } else { false } })
        #expect(recorder.shardsCatchingUp == [1])
        var missedDuring = missed
        missedDuring.broadcast.source = "R2"
        missedDuring.broadcast.receivedAt = Self.t0.advanced(by: .seconds(6))
        // R1, older than R2 on the channel, gives way to it (the activity shows R2); R3, newer
        // (its own fan-out not here yet), is applied.
        let later = try LiveActivityPayload.parse(Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"score":3}}}"#.utf8)).get()
        var missedAfter = missed
        missedAfter.broadcast.source = "R3"
        missedAfter.broadcast.payload = later
        missedAfter.broadcast.receivedAt = Self.t0.advanced(by: .seconds(7))
        let caught = recorder.catchUp([missed, missedDuring, missedAfter], now: Self.t0.advanced(by: .seconds(10)))
        let decisions = caught.changes.compactMap { if case .insertActivityUpdate(let update) = $0 { update } else { nil } }
        #expect(decisions.map(\.source) == ["R1", "R3"] && decisions.allSatisfy { $0.activityID == "A1" }, "\(decisions)")
        #expect(decisions.map(\.outcome) == [.coalesced(into: "R2"), .applied], "\(decisions)")
        #expect(recorder.broadcastCatchUp == .delivered(reached: ["R1": ["A1"], "R3": ["A1"]]))
        #expect(recorder.shardsCatchingUp.isEmpty)
        // Another member's fan-out of R1, arriving after the catch-up, skips A1: it has R1.
        let relayed = BroadcastRecord(
            id: 1, requestID: "R1", uniqueID: nil, bundleID: app.bundleID, environment: .sandbox, channelID: channel, priority: .high,
            expiration: 0, receivedAt: Self.t0.advanced(by: .seconds(5)), payload: [])
        let again = recorder.broadcast(
            relayed, from: .member, payload: payload, storedUntil: nil, now: Self.t0.advanced(by: .seconds(10)), completion: { _ in })
        #expect(!again.changes.contains { if case .insertActivityUpdate = $0 { true } else { false } }, "\(again.changes)")
        #expect(recorder.broadcastCatchUp == .delivered(reached: ["R3": ["A1"]]))
        #expect(decisions.allSatisfy { $0.why.contains("while no receiver of the cluster held this device") }, "\(decisions)")
        #expect(decisions.first?.why.hasPrefix("the later broadcast R2 on the channel reached it first") == true, "\(decisions)")
        #expect(caught.changes.contains { if case .recordActivity(let activity) = $0 { activity.contentState == #"{"score":3}"# } else { false } })

        _ = recorder.releaseShards(now: Self.t0.advanced(by: .seconds(11)))
        #expect(recorder.catchUp([missed], now: Self.t0.advanced(by: .seconds(12))).changes.isEmpty)
    }

    /// A broadcast that arrived while one shard caught up reached only that shard's
    /// activities: a shard adopted after it still gets it from the catch-up. One that reached
    /// no activity (a start) is not one an older missed broadcast gives way to.
    @Test func anArrivalCountsOnlyForTheShardsItReached() throws {
        var recorder = Self.clustered()
        let channel = try #require(ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
        let key = LiveActivityPolicy.ChannelKey(bundleID: "com.example.app", channel: channel)
        func activity(_ id: String, shard: Int) -> LiveActivity {
            LiveActivity(
                id: id, app: LiveActivityApp(device: Self.token(in: shard), bundleID: key.bundleID), attributesType: "G", attributes: "{}",
                subscription: .channel(channel), contentState: "{}", startedAt: Self.t0)
        }
        func record(_ source: String, at seconds: Int64) -> BroadcastRecord {
            BroadcastRecord(
                id: UInt64(seconds), requestID: source, uniqueID: nil, bundleID: key.bundleID, environment: .sandbox, channelID: channel,
                priority: .high, expiration: 0, receivedAt: Self.t0.advanced(by: .seconds(seconds)), payload: [])
        }
        func payload(_ event: String, _ score: Int) throws -> LiveActivityPayload {
            let start = event == "start" ? #","attributes-type":"G","attributes":{},"alert":"a""# : ""
            return try LiveActivityPayload.parse(
                Array(#"{"aps":{"timestamp":1,"event":"\#(event)","content-state":{"score":\#(score)}\#(start)}}"#.utf8)
            ).get()
        }
        func missed(_ source: String, _ id: String, at seconds: Int64) throws -> DeviceRecorder.MissedBroadcast {
            DeviceRecorder.MissedBroadcast(
                activityID: id,
                broadcast: LiveActivityPolicy.Broadcast(
                    source: source, channel: key, priority: .high, payload: try payload("update", Int(seconds)),
                    receivedAt: Self.t0.advanced(by: .seconds(seconds)), storedUntil: nil))
        }
        var first = DeviceSnapshot()
        first.activities = [activity("A1", shard: 1)]
        _ = recorder.adopt(first, shards: [1], now: Self.t0)
        // X reaches A1 by its fan-out while shard 1 catches up; a start reaches no one.
        _ = recorder.broadcast(
            record("X", at: 6), from: .member, payload: try payload("update", 6), storedUntil: nil, now: Self.t0, completion: { _ in })
        _ = recorder.broadcast(
            record("S", at: 7), from: .member, payload: try payload("start", 7), storedUntil: nil, now: Self.t0, completion: { _ in })
        var second = DeviceSnapshot()
        second.activities = [activity("A2", shard: 2)]
        _ = recorder.adopt(second, shards: [2], now: Self.t0)
        let caught = recorder.catchUp(
            [try missed("U", "A1", at: 5), try missed("X", "A1", at: 6), try missed("X", "A2", at: 6)], now: Self.t0.advanced(by: .seconds(8)))
        let decisions = caught.changes.compactMap { if case .insertActivityUpdate(let update) = $0 { update } else { nil } }
        #expect(decisions.map { "\($0.source)>\($0.activityID ?? "-")" } == ["U>A1", "X>A2"], "\(decisions)")
        #expect(decisions.first?.outcome == .coalesced(into: "X") && decisions.last?.outcome == .applied, "\(decisions)")
    }

    /// A catch-up whose read failed leaves its shards catching up; the next adoption adds its
    /// own, so one read at the next claim catches up both; letting go ends it.
    @Test func shardsAdoptedStayCatchingUpUntilTheirCatchUpOrTheirRelease() {
        var recorder = Self.clustered()
        _ = recorder.adopt(DeviceSnapshot(), shards: [1], now: Self.t0)
        #expect(recorder.shardsCatchingUp == [1])
        _ = recorder.adopt(DeviceSnapshot(), shards: [2], now: Self.t0)
        #expect(recorder.shardsCatchingUp == [1, 2])
        _ = recorder.catchUp([], now: Self.t0)
        #expect(recorder.shardsCatchingUp.isEmpty && recorder.broadcastCatchUp == .idle)
        _ = recorder.adopt(DeviceSnapshot(), shards: [3], now: Self.t0)
        _ = recorder.releaseShards(now: Self.t0)
        #expect(recorder.shardsCatchingUp.isEmpty)
    }

    /// A takeover read under a session that has ended since (every shard let go meanwhile)
    /// puts nothing back; one read after the release does.
    @Test func aTakeoverClaimedBeforeTheLastReleaseIsNotPutBack() {
        var recorder = Self.clustered()
        let seen = recorder.shards?.releases
        _ = recorder.releaseShards(now: Self.t0)
        let stale = recorder.adopt(DeviceSnapshot(), shards: [1], releasesSeen: seen, now: Self.t0)
        #expect(recorder.shards?.owned == [] && stale.changes.isEmpty)
        _ = recorder.adopt(DeviceSnapshot(), shards: [1], releasesSeen: recorder.shards?.releases, now: Self.t0)
        #expect(recorder.shards?.owned == [1])
    }

    @Test func releasingTheShardsCancelsRunningWakesAndRecordsNothing() throws {
        var recorder = Self.clustered()
        let device = Self.token(in: 3)
        _ = recorder.adopt(DeviceSnapshot(), shards: [3], now: Self.t0)
        let woke = Self.receive(&recorder, 1, device: device, at: Self.t0)
        let wake = try #require(woke.runs.first?.start.wakeID)
        _ = Self.receive(&recorder, 2, device: device, at: Self.t0.advanced(by: .seconds(5)))
        let released = recorder.releaseShards(now: Self.t0.advanced(by: .seconds(6)))
        #expect(released.changes.isEmpty, "the next owner repairs the records, as a restart does")
        #expect(released.ended.contains { $0.wakeID == wake && $0.cancel })
        #expect(recorder.running.isEmpty && recorder.policy.pendingSlotCount == 0)
        #expect(recorder.shards?.owned == [])
        #expect(Self.receive(&recorder, 3, device: device, at: Self.t0.advanced(by: .seconds(7))).reply == .notOwner)
        // The handler's late answer changes nothing.
        let late = recorder.fetchCompleted(try #require(woke.runs.first?.start), result: .newData, now: Self.t0.advanced(by: .seconds(8)))
        #expect(late.changes.isEmpty)
    }

    /// Another owner may forget a device while its shard is away, and its `apps` rows with
    /// it: once the shard is back, the device's app is recorded known again.
    @Test func anAppIsRecordedKnownAgainOnceItsShardComesBack() {
        var recorder = Self.clustered()
        let device = Self.token(in: 1)
        _ = recorder.adopt(DeviceSnapshot(), shards: [1], now: Self.t0)
        #expect(DeviceRecorderTests.known(Self.receive(&recorder, 1, device: device, at: Self.t0)).count == 1)
        #expect(DeviceRecorderTests.known(Self.receive(&recorder, 2, device: device, at: Self.t0.advanced(by: .seconds(1)))).isEmpty)
        _ = recorder.releaseShards(now: Self.t0.advanced(by: .seconds(2)))
        _ = recorder.adopt(DeviceSnapshot(), shards: [1], releasesSeen: recorder.shards?.releases, now: Self.t0.advanced(by: .seconds(3)))
        let back = Self.receive(&recorder, 3, device: device, at: Self.t0.advanced(by: .seconds(4)))
        #expect(back.reply == .done)
        #expect(DeviceRecorderTests.known(back).count == 1)
    }

    /// Another member's reset deleted every row before its order: carried out here, the order
    /// deletes nothing more, and the apps of what this member recorded since are known again.
    @Test func aResetAnotherMemberSentKnowsTheAppsRecordedSince() {
        var recorder = Self.clustered()
        _ = recorder.adopt(DeviceSnapshot(), shards: [1], now: Self.t0)
        let forgotten = recorder.forget(nil, records: .deletedByTheSender, now: Self.t0) { _ in }
        #expect(forgotten.changes == [.knowAppsFromRecords])
        var standalone = DeviceRecorderTests.recorder()
        #expect(standalone.forget(nil, now: Self.t0) { _ in }.changes == [.forgetEverything])
    }

    @Test func aNewBlockOfIdsNumbersWakesAndTaskRequestsOn() throws {
        var recorder = DeviceRecorderTests.recorder()
        _ = recorder.continueIDs(from: 1 << 28)
        let woke = DeviceRecorderTests.receive(&recorder, 1, at: Self.t0)
        #expect(try #require(woke.runs.first).start.wakeID == 1 << 28)
        #expect(DeviceRecorderTests.submit(&recorder, at: Self.t0).reply == .taskSubmitted(id: 1 << 28))
        _ = recorder.continueIDs(from: 5)
        #expect(DeviceRecorderTests.submit(&recorder, at: Self.t0).reply == .taskSubmitted(id: (1 << 28) + 1), "never numbered back")
    }
}
