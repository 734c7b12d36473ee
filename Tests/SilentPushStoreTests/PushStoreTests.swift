import Foundation
import SilentPushCore
import SilentPushStore
import Testing

/// The store on a real SQLite file.
@Suite struct PushStoreTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("silentpush-store-\(UUID().uuidString)/pushes.sqlite").path
    }

    static func push(_ id: UInt64, token: String = "aa", topic: String = "com.example.app", fate: PushFate = .pending, generation: UInt32? = 0) -> PushRecord {
        PushRecord(
            id: id, apnsID: "00000000-0000-4000-8000-\(String(format: "%012d", id))", deviceToken: token, topic: topic,
            pushType: "background", priority: 5, receivedAt: 1_000 + Int64(id), expiresAt: nil, collapseID: nil,
            payload: Array(#"{"aps":{"content-available":1}}"#.utf8), warnings: id % 2 == 0 ? ["a warning"] : [], fate: fate, generation: generation)
    }

    @Test func whatIsWrittenIsThereAfterReopening() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        do {
            let store = try PushStore.open(.file(path))
            try await store.write([
                .insertPush(Self.push(1)), .insertPush(Self.push(2)),
                .insertWake(WakeRecord(id: 7, deviceToken: "aa", topic: "com.example.app", pushID: 2, generation: 0, startedAt: 5_000, deadline: 35_000)),
                .setFate(push: 2, fate: .delivered(wakeID: 7), generation: nil),
                .closeGeneration(deviceToken: "aa", topic: "com.example.app", generation: 0, fate: .delivered(wakeID: 7)),
                .setDevice(token: "aa", state: DeviceState(lowPowerMode: true, hourlyBudget: 3)),
            ])
            try await store.write([.setFate(push: 1, fate: .coalesced(wakeID: nil), generation: 0)])
        }
        let store = try PushStore.open(.file(path))
        let delivered = try #require(try store.push(apnsID: Self.push(2).apnsID))
        #expect(delivered.fate == .delivered(wakeID: 7))
        #expect(delivered.warnings == ["a warning"])
        #expect(delivered.payload == Self.push(2).payload)
        #expect(try store.pushes(deviceToken: "aa").map(\.id) == [2, 1])
        #expect(try store.wakes(deviceToken: "aa").first?.pushID == 2)
        #expect(try store.devices()["aa"] == DeviceState(lowPowerMode: true, hourlyBudget: 3))
        #expect(try store.lastIDs() == (push: 2, wake: 7))
    }

    @Test func aClosedGenerationGivesItsCoalescedPushesItsFate() async throws {
        let store = try PushStore.open(.memory)
        try await store.write([
            .insertPush(Self.push(1, fate: .coalesced(wakeID: nil), generation: 3)),
            .insertPush(Self.push(2, fate: .coalesced(wakeID: nil), generation: 3)),
            .insertPush(Self.push(3, fate: .coalesced(wakeID: nil), generation: 4)),
            .insertPush(Self.push(4, topic: "com.example.other", fate: .coalesced(wakeID: nil), generation: 3)),
            .insertPush(Self.push(5, fate: .pending, generation: 3)),
        ])
        try await store.write([
            .setFate(push: 5, fate: .delivered(wakeID: 9), generation: nil),
            .closeGeneration(deviceToken: "aa", topic: "com.example.app", generation: 3, fate: .delivered(wakeID: 9)),
            .closeGeneration(deviceToken: "aa", topic: "com.example.app", generation: 4, fate: .expired),
        ])
        let fates = Dictionary(uniqueKeysWithValues: try store.pushes().map { ($0.id, $0.fate) })
        #expect(fates[1] == .coalesced(wakeID: 9))
        #expect(fates[2] == .coalesced(wakeID: 9))
        #expect(fates[3] == .expired)
        #expect(fates[4] == .coalesced(wakeID: nil))  // another app's slot
        #expect(fates[5] == .delivered(wakeID: 9))
    }

    @Test func pendingPushesComeBackForTheSlots() async throws {
        let store = try PushStore.open(.memory)
        try await store.write([.insertPush(Self.push(1)), .insertPush(Self.push(2, fate: .expired)), .insertPush(Self.push(3, token: "bb"))])
        #expect(try store.pendingPushes().map(\.id) == [1, 3])
    }

    @Test func concurrentWritesAreGroupCommitted() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let store = try PushStore.open(.file(path))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 1...2_000 as ClosedRange<UInt64> {
                group.addTask { try await store.write([.insertPush(Self.push(id, token: "t\(id % 50)"))]) }
            }
            try await group.waitForAll()
        }
        #expect(try store.pushes(limit: 5_000).count == 2_000)
        // Many writes share a commit.
        #expect(store.commitCount < 2_000)
        #expect(store.commitCount >= 1)
    }

    @Test func aFailedWriteFailsItsWholeBatchAndKeepsTheStoreUsable() async throws {
        let store = try PushStore.open(.memory)
        try await store.write([.insertPush(Self.push(1))])
        await #expect(throws: (any Error).self) { try await store.write([.insertPush(Self.push(1))]) }  // duplicate id
        try await store.write([.insertPush(Self.push(2))])
        #expect(try store.pushes().map(\.id) == [2, 1])
    }

    @Test func anUnopenableFileIsNamed() {
        #expect { _ = try PushStore.open(.file("/proc/not-a-dir/pushes.sqlite")) } throws: { "\($0)".contains("/proc/not-a-dir/pushes.sqlite") }
    }

    @Test func whatARestartNeedsComesBack() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        do {
            let store = try PushStore.open(.file(path))
            try await store.write([
                .insertPush(Self.push(1, fate: .coalesced(wakeID: nil), generation: 0)),
                .insertPush(Self.push(2)),
                .insertWake(WakeRecord(id: 1, deviceToken: "aa", topic: "com.example.app", pushID: 2, generation: 0, startedAt: 5_000, deadline: 35_000)),
                .setFate(push: 2, fate: .delivered(wakeID: 1), generation: nil),
                .closeGeneration(deviceToken: "aa", topic: "com.example.app", generation: 0, fate: .delivered(wakeID: 1)),
                .finishWake(id: 1, finishedAt: 6_000, result: "newData", reason: nil),
                .insertWake(WakeRecord(id: 2, deviceToken: "aa", topic: "com.example.app", pushID: 3, generation: 1, startedAt: 905_000, deadline: 935_000)),
                .insertPush(Self.push(4, fate: .rejected(reason: "BadDeviceToken"), generation: nil)),
                .setUnregistered(token: "bb", at: 7_000),
                .setManualClock(at: 2_000_000),
                .setManualClock(at: 1_000_000),  // never back
            ])
        }
        let store = try PushStore.open(.file(path))
        #expect(try store.coalescedAPNsIDs(wakeID: 1) == [Self.push(1).apnsID])
        #expect(try store.wake(id: 1)?.apnsID == Self.push(2).apnsID)
        #expect(try store.wake(id: 1)?.result == "newData")
        #expect(try store.unfinishedWakes().map(\.id) == [2])
        let last = try #require(try store.lastWakes().first)
        #expect(last.deviceToken == "aa" && last.startedAt == 905_000 && last.generation == 1)
        #expect(try store.push(apnsID: Self.push(4).apnsID)?.fate == .rejected(reason: "BadDeviceToken"))
        #expect(try store.deviceRecords()["bb"]?.unregisteredAt == 7_000)
        #expect(try store.latestDeviceTime() == 2_000_000)
    }
}
