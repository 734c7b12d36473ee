import Foundation
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import Testing

/// Devices are listed from the store's `apps`: a row for each app the device side knew, kept
/// when retention prunes every push of it, gone with its device; a store of an earlier
/// version fills it from the records it kept. On both engines.
@Suite(.postgres) struct PushStoreKnownAppsTests {
    static func push(_ id: UInt64, token: String, type: APNsPushType = .background, suffixed: Bool = false, fate: PushFate) -> PushRecord {
        var push = PushStoreTests.push(id, token: token, topic: "com.example.app" + (suffixed ? type.topicSuffix ?? "" : ""), fate: fate)
        push.pushType = type.rawValue
        return push
    }

    /// Every device the store knows, with its apps.
    static func known(_ store: PushStore) async throws -> [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: try await store.knownDevices(after: nil, limit: .max).map { ($0.token, $0.topics) })
    }

    @Test(arguments: StoreEngineKind.allCases) func anAppKnownOutlivesRetentionAndGoesWithItsDevice(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([
            .insertPush(Self.push(1, token: "aa", fate: .dropped(.noContentAvailable))),
            .knowApp(deviceToken: "aa", topic: "com.example.app"),
            .insertPush(Self.push(2, token: "bb", fate: .dropped(.noContentAvailable))),
            .knowApp(deviceToken: "bb", topic: "com.example.app"),
            .knowApp(deviceToken: "bb", topic: "com.example.other"),
        ])
        // A second time changes nothing (a restarted receiver records an app pushed to again).
        try await store.write([.knowApp(deviceToken: "aa", topic: "com.example.app")])
        let known = ["aa": Set(["com.example.app"]), "bb": ["com.example.app", "com.example.other"]]
        #expect(try await Self.known(store) == known)
        let pruned = try await store.prune(olderThan: nil, maximumCount: 1, batch: 100)
        #expect(pruned.pushes == 1)
        #expect(try await store.pushes().map(\.id) == [2], "aa's only push went")
        #expect(try await Self.known(store) == known, "retention prunes no app")
        try await store.write([.forgetDevice(token: "aa")])
        #expect(try await Self.known(store) == ["bb": ["com.example.app", "com.example.other"]])
        try await store.write([.forgetEverything])
        #expect(try await Self.known(store).isEmpty)
        try await store.close()
    }

    /// A cluster's reset deletes every row, then orders the others to forget: a push another
    /// member recorded meanwhile (its app cached as known, so no `knowApp`) is known again
    /// once that member carries the order out.
    @Test(arguments: StoreEngineKind.allCases) func aResetCarriedOutLateKnowsTheAppsRecordedSince(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([.insertPush(Self.push(1, token: "aa", fate: .pending)), .knowApp(deviceToken: "aa", topic: "com.example.app")])
        try await store.write([.forgetEverything])
        try await store.write([.insertPush(Self.push(2, token: "bb", type: .voip, suffixed: true, fate: .dropped(.pushTypeNeverWakes(.voip))))])
        #expect(try await Self.known(store).isEmpty)
        try await store.write([.knowAppsFromRecords])
        #expect(try await Self.known(store) == ["bb": ["com.example.app"]])
        try await store.close()
    }

    /// The devices known, a page at a time in token order: those with apps (each with its
    /// apps) and those whose state was set, from after a cursor.
    @Test(arguments: StoreEngineKind.allCases) func theDevicesKnownArePagedInTokenOrder(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([
            .knowApp(deviceToken: "dd", topic: "com.example.app"),
            .knowApp(deviceToken: "bb", topic: "com.example.other"), .knowApp(deviceToken: "bb", topic: "com.example.app"),
            .setDevice(token: "cc", state: DeviceState(lowPowerMode: true)), .setDevice(token: "bb", state: DeviceState(charging: true)),
            .knowApp(deviceToken: "aa", topic: "com.example.app"),
        ])
        func page(after cursor: String?, limit: Int) async throws -> [String] {
            try await store.knownDevices(after: cursor, limit: limit).map { "\($0.token) \($0.topics.sorted().joined(separator: ","))" }
        }
        #expect(try await page(after: nil, limit: 2) == ["aa com.example.app", "bb com.example.app,com.example.other"])
        #expect(try await page(after: "bb", limit: 2) == ["cc ", "dd com.example.app"])
        #expect(try await page(after: "dd", limit: 2).isEmpty)
        #expect(try await page(after: "a", limit: 10).count == 4)
        try await store.close()
    }

    /// The records of a store of version 24 name the apps: each push accepted (by its bundle
    /// id, a push type's suffix dropped), not a refused or faulted one, nor a Live Activity
    /// push (its token is not a device's).
    @Test(arguments: StoreEngineKind.allCases) func aStoreOfVersion24KnowsTheAppsItsRecordsName(_ engine: StoreEngineKind) async throws {
        let location = try await engine.newLocation()
        var store = try await PushStore.open(location)
        try await store.write([
            .insertPush(Self.push(1, token: "aa", fate: .pending)),
            .insertPush(Self.push(2, token: "aa", fate: .dropped(.noContentAvailable))),
            .insertPush(Self.push(3, token: "bb", type: .voip, suffixed: true, fate: .dropped(.pushTypeNeverWakes(.voip)))),
            .insertPush(Self.push(4, token: "cc", type: .widgets, suffixed: true, fate: .delivered(by: 9))),
            .insertPush(Self.push(5, token: "dd", fate: .rejected(.deviceTokenNotForTopic))),
            .insertPush(Self.push(6, token: "ee", fate: .injectedForUnknownAction(rule: 1))),
            .insertPush(Self.push(7, token: "ff", type: .liveactivity, suffixed: true, fate: .dropped(.liveActivity(.activityEnded)))),
            // Sent with a voip push type to a topic without its suffix: the topic as it is.
            .insertPush(Self.push(8, token: "gg", type: .voip, fate: .expired)),
        ])
        try await store.close()
        try await PushStoreTests.rewind(location, to: 24, running: "DELETE FROM apps")
        store = try await PushStore.open(location)
        #expect(
            try await Self.known(store) == [
                "aa": ["com.example.app"], "bb": ["com.example.app"], "cc": ["com.example.app"], "gg": ["com.example.app"],
            ])
        try await store.close()
    }
}
