import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import Testing

/// The apps a restart reads back as pushed to, though the device dropped every push for what
/// it carried: those drops only, once an app, on both engines.
@Suite(.postgres) struct PushStoreDroppedAppsTests {
    @Test(arguments: StoreEngineKind.allCases) func onlyDropsForWhatAPushCarriedAreRead(_ engine: StoreEngineKind) async throws {
        let store = try await engine.newStore(memory: true)
        try await store.write([
            .insertPush(PushStoreTests.push(1, token: "aa", fate: .dropped(.noContentAvailable))),
            .insertPush(PushStoreTests.push(2, token: "aa", fate: .dropped(.noContentAvailable))),
            .insertPush(PushStoreTests.push(3, token: "bb", topic: "com.example.app.voip", fate: .dropped(.pushTypeNeverWakes(.voip)))),
            .insertPush(PushStoreTests.push(4, token: "cc", fate: .dropped(.forceQuit))),
            .insertPush(PushStoreTests.push(5, token: "dd", fate: .dropped(.liveActivity(.activityEnded)))),
            .insertPush(PushStoreTests.push(6, token: "ee", fate: .pending)),
        ])
        let apps = try await store.appsWithDroppedPushes().map { "\($0.deviceToken) \($0.topic)" }.sorted()
        #expect(apps == ["aa com.example.app", "bb com.example.app.voip"])
    }
}
