import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import Testing

/// What a restarted receiver reads back of each app's interval: from its last launch, a wake
/// or a refresh task run, doubled when that launch was a wake that overran.
@Suite struct DeviceSnapshotTests {
    static let app = DeviceRecorder.App(device: "aa", topic: "com.example.app")
    static let minute: Int64 = 60_000

    static func at(_ minutes: Int64) -> DeviceInstant { DeviceInstant(millisecondsSinceEpoch: 1_800_000_000_000 + minutes * minute) }

    static func wake(at minutes: Int64, result: FetchResult) -> [StoreChange] {
        [
            .insertWake(
                WakeRecord(
                    id: UInt64(minutes + 1), deviceToken: app.deviceToken, topic: app.topic, pushID: UInt64(minutes + 1), generation: 0,
                    startedAt: at(minutes), deadline: at(minutes).advanced(by: .seconds(30)))),
            .finishWake(id: UInt64(minutes + 1), finishedAt: at(minutes).advanced(by: .seconds(30)).millisecondsSinceEpoch, result: result),
        ]
    }

    static func refresh(at minutes: Int64) -> StoreChange {
        .insertTaskRun(
            TaskRunRecord(
                id: UInt64(minutes + 1), requestID: UInt64(minutes + 1), deviceToken: app.deviceToken, topic: app.topic, identifier: "refresh",
                kind: .refresh, startedAt: at(minutes), deadline: at(minutes).advanced(by: .seconds(30)), simulated: false))
    }

    static func snapshot(_ changes: [StoreChange]) async throws -> (nextAllowed: DeviceInstant?, overran: Bool)? {
        let store = try await PushStore.open(.memory)
        try await store.write(changes)
        let snapshot = try await DeviceSnapshot.read(from: store, settings: WakeSettings(minimumInterval: .seconds(15 * 60)), now: at(60))
        try await store.close()
        return snapshot.apps[app].map { ($0.nextAllowed, $0.overran) }
    }

    @Test func anOverrunWakeDoublesTheIntervalAfterIt() async throws {
        let read = try await Self.snapshot(Self.wake(at: 0, result: .deadlineExceeded))
        #expect(read?.nextAllowed == Self.at(30) && read?.overran == true, "\(String(describing: read))")
    }

    @Test func aRefreshLaunchAfterTheOverrunStartsAPlainInterval() async throws {
        let read = try await Self.snapshot(Self.wake(at: 0, result: .deadlineExceeded) + [Self.refresh(at: 10)])
        #expect(read?.nextAllowed == Self.at(25) && read?.overran == false, "\(String(describing: read))")
    }

    @Test func aWakeAfterTheRefreshLaunchCounts() async throws {
        let read = try await Self.snapshot([Self.refresh(at: 10)] + Self.wake(at: 20, result: .newData))
        #expect(read?.nextAllowed == Self.at(35) && read?.overran == false, "\(String(describing: read))")
    }
}
