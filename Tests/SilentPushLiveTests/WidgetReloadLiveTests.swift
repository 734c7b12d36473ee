import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// Widget and control pushes sent by curl as Apple's WidgetKit pages show them: each reload
/// is a wake of its own kind, under the extension's daily budget, with its `why`.
@Suite(.serialized) struct WidgetReloadLiveTests {
    static let token = SamplePush.deviceToken
    static let widgets = SamplePush.topic + ".push-type.widgets"
    static let controls = SamplePush.topic + ".push-type.controls"

    /// Apple's widget sample: no `apns-priority`, `{"aps":{"content-changed":true}}`.
    static func widgetPush(_ receiver: Receiver, _ id: String) async throws -> ChannelManagementLiveTests.Answer {
        try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
            headers: ["apns-topic: \(widgets)", "apns-push-type: widgets", "apns-id: \(id)"], body: #"{"aps":{"content-changed":true}}"#)
    }

    /// Apple's control sample: `apns-expiration: 0`, `apns-priority: 10`.
    static func controlPush(_ receiver: Receiver, _ id: String) async throws -> ChannelManagementLiveTests.Answer {
        try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
            headers: [
                "apns-topic: \(controls)", "apns-push-type: controls", "apns-expiration: 0", "apns-priority: 10", "apns-id: \(id)",
            ], body: #"{ "aps" : { "content-changed" : true } }"#)
    }

    static func push(_ receiver: Receiver, _ id: String) async throws -> [String: Any] {
        let answer = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/pushes/\(id)")
        #expect(answer.status == 200)
        return answer.json
    }

    static func why(_ push: [String: Any]) -> String? { (push["why"] as? [String: Any])?["rule"] as? String }

    /// A device pushed to only for its widgets is listed, with its app's bundle id.
    @Test func aDevicePushedToOnlyForItsWidgetsIsListed() async throws {
        try await Receiver.withTesting { receiver in
            #expect(try await Self.widgetPush(receiver, SilentPushdDeviceTests.apnsID(940)).status == 200)
            #expect(try await receiver.device.knownDevices() == [Self.token: [SamplePush.topic]])
            let listed = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/devices")
            let devices = listed.json["devices"] as? [[String: Any]] ?? []
            #expect(devices.map { $0["deviceToken"] as? String } == [Self.token], "\(listed.json)")
            #expect(devices.first?["topics"] as? [String] == [SamplePush.topic])
        }
    }

    /// Retention keeps a widget push the extension holds for its budget, however many pushes
    /// came after it (it went with the rest, and its reload later named no push).
    @Test func retentionKeepsAPushTheExtensionHolds() async throws {
        try await Receiver.withTesting({
            $0.wakeSettings.reloadBudget = 1
            $0.retention = .init(maximumAge: nil, maximumPushes: 2)
        }) { receiver in
            let first = SilentPushdDeviceTests.apnsID(951), held = SilentPushdDeviceTests.apnsID(952)
            for id in [first, held] { #expect(try await Self.widgetPush(receiver, id).status == 200) }
            #expect(Self.why(try await Self.push(receiver, held)) == "reloadBudget")
            let client = try await TestPushClient.connect(to: receiver)
            for n in 1...6 {
                #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(960 + n), rawHeaders: ["apns-priority": "3"]).status == 400)
            }
            await client.close()
            await receiver.settle()
            #expect(try await receiver.pruneStore().pushes == 5, "the first widget push and the four oldest refusals")
            #expect(try await receiver.fate(of: first) == nil)
            #expect(try await receiver.fate(of: held) == .pending)
        }
    }

    @Test func reloadsAreWakesOfTheirOwnKindUnderADailyBudget() async throws {
        try await Receiver.withTesting({ $0.wakeSettings.reloadBudget = 2 }) { receiver in
            let admin = try #require(receiver.adminPort)
            let ids = (1...4).map { SilentPushdDeviceTests.apnsID(900 + $0) }
            for id in ids {
                let answer = try await Self.widgetPush(receiver, id)
                #expect(answer.status == 200, "\(answer.body)")
            }
            // Two reloads, at once; the third waits for the budget and the fourth replaces it.
            for id in ids.prefix(2) {
                let push = try await Self.push(receiver, id)
                #expect(push["fate"] as? String == "delivered")
                #expect(Self.why(push) == "reloaded")
            }
            let waiting = try await Self.push(receiver, ids[3])
            #expect(waiting["fate"] as? String == "pending")
            #expect(Self.why(waiting) == "reloadBudget")
            let until = try SilentPushdDeviceTests.milliseconds((waiting["why"] as? [String: Any])?["until"])
            let firstReload = try SilentPushdDeviceTests.milliseconds((try await Self.push(receiver, ids[0]))["receivedAt"])
            #expect(until == firstReload + 86_400_000, "the first reload ages out a day after it")
            #expect((try await Self.push(receiver, ids[2]))["fate"] as? String == "coalesced")

            let reloads = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes?kind=widgets")
            let wakes = try #require(reloads.json["wakes"] as? [[String: Any]])
            #expect(wakes.count == 2)
            #expect(wakes.allSatisfy { $0["kind"] as? String == "widgets" && $0["result"] is NSNull && $0["durationMs"] as? Int == 0 })
            #expect((try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes?kind=fetch")).json["wakes"] as? [Any] != nil)
            #expect(try await receiver.wakes().count == 2)
            #expect((try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes?kind=nope")).status == 422)

            // A day on, the oldest reload ages out: the latest push reloads, and the one it replaced rides it.
            try await receiver.advanceClock(by: .seconds(86_400))
            let delivered = try await Self.push(receiver, ids[3])
            #expect(delivered["fate"] as? String == "delivered")
            let wakeID = try #require(delivered["wakeId"] as? Int)
            let rode = try await Self.push(receiver, ids[2])
            #expect(rode["fate"] as? String == "coalesced" && rode["wakeId"] as? Int == wakeID)
            #expect(try await receiver.coalesced(into: UInt64(wakeID)) == [ids[2]])

            let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats")
            #expect((stats.json["wakes"] as? [String: Any])?["widgets"] as? Int == 3)
            let metrics = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"])
            #expect(metrics.output.contains(#"silentpush_reloads_total{kind="widgets"} 3"#), "\(metrics.output)")
        }
    }

    @Test func aControlPushReloadsItsControlAndNoFetchRuns() async throws {
        try await Receiver.withTesting { receiver in
            let id = SilentPushdDeviceTests.apnsID(950)
            let answer = try await Self.controlPush(receiver, id)
            #expect(answer.status == 200, "\(answer.body)")
            let fate = try await receiver.fate(of: id, becomes: .delivered)
            let wake = try #require(try await receiver.wakes(topic: Self.controls).first)
            #expect(wake.kind == .controls && fate.wakeID == wake.id)
            #expect(try await receiver.wakes(topic: SamplePush.topic).isEmpty, "the app itself is not launched")
            // pushsend expect counts a controls topic's reloads; without a topic, the app's launches only.
            let url = "http://127.0.0.1:\(try #require(receiver.adminPort))"
            let reloads = try await PushSendExpectTests.pushsend([
                "expect", "--admin", url, "--device", Self.token, "--topic", Self.controls, "--wakes", "1",
            ])
            #expect(reloads.status == 0, "\(reloads.output)\(reloads.errorOutput)")
            let launches = try await PushSendExpectTests.pushsend(["expect", "--admin", url, "--device", Self.token, "--wakes", "0"])
            #expect(launches.status == 0, "\(launches.output)\(launches.errorOutput)")
        }
    }

    @Test func offlineTheLatestPushIsHeldAtAPNsAndApnsExpirationZeroIsNot() async throws {
        try await Receiver.withTesting { receiver in
            var offline = DeviceState()
            offline.network = .offline
            try await receiver.setDeviceState(offline)
            let (first, second, control) = (
                SilentPushdDeviceTests.apnsID(960), SilentPushdDeviceTests.apnsID(961), SilentPushdDeviceTests.apnsID(962)
            )
            _ = try await Self.widgetPush(receiver, first)
            _ = try await Self.widgetPush(receiver, second)
            _ = try await Self.controlPush(receiver, control)
            #expect(Self.why(try await Self.push(receiver, second)) == "offline")
            #expect(Self.why(try await Self.push(receiver, first)) == "apnsStorage")
            #expect((try await Self.push(receiver, control))["fate"] as? String == "expired", "apns-expiration 0: APNs does not store it")
            try await receiver.setDeviceState(DeviceState())
            _ = try await receiver.fate(of: second, becomes: .delivered)
            #expect(try await receiver.wakes(topic: Self.widgets).count == 1)
        }
    }

    @Test func aRestartKeepsTheDaysReloadsAndTheHeldPush() async throws {
        let directory = Scratch.directory.appendingPathComponent("reloads-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.wakeSettings.reloadBudget = 1
        }
        let (first, held) = (SilentPushdDeviceTests.apnsID(970), SilentPushdDeviceTests.apnsID(971))
        try await Receiver.withTesting(configure) { receiver in
            _ = try await Self.widgetPush(receiver, first)
            _ = try await Self.widgetPush(receiver, held)
            #expect(try await receiver.fate(of: held)?.waitReason?.rule == .reloadBudget)
        }
        try await Receiver.withTesting(configure) { receiver in
            #expect(try await receiver.fate(of: held)?.waitReason?.rule == .reloadBudget, "the day's reload still counts")
            try await receiver.advanceClock(by: .seconds(86_400))
            #expect(try await receiver.fate(of: held)?.kind == .delivered)
            #expect(try await receiver.wakes(topic: Self.widgets).map(\.kind) == [.widgets, .widgets])
        }
    }
}
