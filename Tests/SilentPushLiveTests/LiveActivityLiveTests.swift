import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// Live Activities end to end, driven by curl: a channel, activities started three ways on
/// four devices, a broadcast fanned out, token updates in and out of order, the end and
/// the dismissal, and a stored message for a late subscriber.
@Suite(.serialized) struct LiveActivityLiveTests {
    static let app = "com.example.app"
    static let topic = app + ".push-type.liveactivity"
    static func device(_ digit: Character) -> String { String(repeating: String(digit), count: 64) }

    static func push(_ receiver: Receiver, to token: String, _ body: String, id: String = UUID().uuidString) async throws -> String {
        let answer = try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
            headers: ["apns-topic: \(topic)", "apns-push-type: liveactivity", "apns-priority: 10", "apns-id: \(id)"], body: body)
        #expect(answer.status == 200, "\(answer.body)")
        return id
    }

    static func broadcast(_ receiver: Receiver, channel: String, _ body: String, expiration: String = "0") async throws {
        let answer = try await ChannelManagementLiveTests.curl(
            "POST", "/4/broadcasts/apps/\(app)", port: try #require(receiver.h2cPort), tls: false,
            headers: ["apns-channel-id: \(channel)", "apns-push-type: LiveActivity", "apns-priority: 10", "apns-expiration: \(expiration)"],
            body: body)
        #expect(answer.status == 200, "\(answer.body)")
    }

    @Test func aWalkthroughWithBroadcastFanOutToSeveralDevices() async throws {
        try await Receiver.withTesting({ configuration in
            configuration.listenChannelsH2C = ListenAddress(host: "127.0.0.1", port: 0)
            configuration.liveActivities = .unthrottled
        }) { receiver in
            // A channel that keeps its latest message, created as Apple's page shows.
            let created = try await ChannelManagementLiveTests.curl(
                "POST", "/1/apps/\(Self.app)/channels", port: try #require(receiver.channelsH2CPort), tls: false,
                body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
            let channel = try #require(created.headers["apns-channel-id"])
            let (a, b, c, d) = (Self.device("a"), Self.device("b"), Self.device("c"), Self.device("d"))

            // A: started by the app, on the channel.
            let local = try await receiver.device.startActivity(
                device: a, bundleID: Self.app, attributesType: "MatchAttributes", channel: ChannelID(header: channel))
            // B: a push to its push-to-start token, on the channel; C: with an update token.
            let startB = try await Self.push(
                receiver, to: receiver.device.pushToStartToken(device: b, bundleID: Self.app),
                #"{"aps":{"timestamp":1000,"event":"start","content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"A"},"alert":{"title":"Kick-off"},"input-push-channel":"\#(channel)"}}"#
            )
            #expect(try await receiver.fate(of: startB)?.kind == .delivered)
            _ = try await Self.push(
                receiver, to: receiver.device.pushToStartToken(device: c, bundleID: Self.app),
                #"{"aps":{"timestamp":1000,"event":"start","content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{},"alert":"Kick-off","input-push-token":1}}"#
            )
            let activityC = try #require(try await receiver.device.activities(device: c, bundleID: Self.app).first)
            guard case .token(let tokenC) = activityC.subscription else {
                Issue.record("C has no update token: \(activityC.subscription)")
                return
            }

            // One broadcast reaches A and B, not C.
            try await Self.broadcast(
                receiver, channel: channel, #"{"aps":{"timestamp":1100,"event":"update","content-state":{"score":"1-0"}}}"#, expiration: "4102444800")
            for device in [a, b] {
                let activity = try #require(try await receiver.device.activities(device: device, bundleID: Self.app).first)
                #expect(activity.contentState == #"{"score":"1-0"}"#, "\(device.prefix(1))")
                #expect(try await receiver.device.activityUpdates(activity.id).last?.outcome == .applied)
            }
            #expect(try await receiver.device.activities(device: c, bundleID: Self.app).first?.contentState == #"{"score":"0-0"}"#)

            // C's token: an update applies; an older one is ignored, saying why.
            let newer = try await Self.push(receiver, to: tokenC, #"{"aps":{"timestamp":1200,"event":"update","content-state":{"score":"2-0"}}}"#)
            #expect(try await receiver.fate(of: newer)?.kind == .delivered)
            let older = try await Self.push(receiver, to: tokenC, #"{"aps":{"timestamp":1150,"event":"update","content-state":{"score":"9-9"}}}"#)
            #expect(try await receiver.fate(of: older)?.dropReason == .liveActivity(.olderTimestamp))
            let updatesC = try await receiver.device.activityUpdates(activityC.id)
            #expect(updatesC.last?.outcome == .ignored(.olderTimestamp))
            #expect(updatesC.last?.why.contains("older than the last applied") == true)
            // The push's own record says what to change.
            let record = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/pushes/\(older)")
            let why = (record.json["why"] as? [String: Any])?["text"] as? String
            #expect(why == "dropped: Live Activity: olderTimestamp (" + LiveActivityIgnored.olderTimestamp.advice + ")", "\(record.json)")
            #expect(why?.contains("send a newer timestamp") == true)

            // A late subscriber, D, gets the channel's stored message.
            let late = try await receiver.device.startActivity(
                device: d, bundleID: Self.app, attributesType: "MatchAttributes", channel: ChannelID(header: channel))
            #expect(try await receiver.device.activities(device: d, bundleID: Self.app).first?.contentState == #"{"score":"1-0"}"#)
            #expect(try await receiver.device.activityUpdates(late.id).last?.outcome == .applied)

            // The end reaches A, B and D; a push after it is dropped; four hours later they are gone.
            try await Self.broadcast(receiver, channel: channel, #"{"aps":{"timestamp":1300,"event":"end","content-state":{"score":"2-1"}}}"#)
            #expect(try await receiver.device.activities(device: a, bundleID: Self.app).first?.state.name == "ended")
            let after = try await Self.push(receiver, to: tokenC, #"{"aps":{"timestamp":1400,"event":"end"}}"#)
            #expect(try await receiver.fate(of: after)?.kind == .delivered)
            let afterEnd = try await Self.push(receiver, to: tokenC, #"{"aps":{"timestamp":1500,"event":"update","content-state":{}}}"#)
            #expect(try await receiver.fate(of: afterEnd)?.dropReason == .liveActivity(.activityEnded))
            try await receiver.advanceClock(by: .seconds(4 * 3600))
            for device in [a, b, c, d] {
                #expect(try await receiver.device.activities(device: device, bundleID: Self.app).first?.state.name == "dismissed")
            }
            #expect(local.subscription == .channel(try #require(ChannelID(header: channel))))
        }
    }

    @Test func anActivityOutlivesARestartWithItsTokenAndItsEnd() async throws {
        let directory = try Scratch.newDirectory("activities")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        let device = Self.device("e")
        var token = ""
        try await Receiver.withTesting({ $0.store = .file(store) }) { receiver in
            let activity = try await receiver.device.startActivity(device: device, bundleID: Self.app, attributesType: "MatchAttributes")
            guard case .token(let issued) = activity.subscription else {
                Issue.record("no update token: \(activity.subscription)")
                return
            }
            token = issued
        }
        try await Receiver.withTesting({ $0.store = .file(store) }) { receiver in
            // It says why it is as it is, read back from the store.
            #expect(try await receiver.device.activities(device: device, bundleID: Self.app).first?.why == "started by the app, with an update token")
            let update = try await Self.push(receiver, to: token, #"{"aps":{"timestamp":10,"event":"end","content-state":{"final":true}}}"#)
            #expect(try await receiver.fate(of: update)?.kind == .delivered)
            let activity = try #require(try await receiver.device.activities(device: device, bundleID: Self.app).first)
            #expect(activity.state.name == "ended")
            #expect(activity.contentState == #"{"final":true}"#)
            #expect(activity.why.hasPrefix("ended; on the Lock Screen until"), "\(activity.why)")
        }
    }

    /// The admin API's app by any of its topics has the bundle id's push-to-start token and
    /// frequent updates: a start pushed to that token under the Live Activity topic starts.
    @Test func anAppNamedByItsLiveActivityTopicIsTheBundlesApp() async throws {
        try await Receiver.withTesting { receiver in
            let admin = try #require(receiver.adminPort)
            let token = Self.device("e")
            let path = "/v1/devices/\(token)/apps/"
            let patched = try await SilentPushdDeviceTests.admin(admin, "PATCH", path + Self.topic, body: #"{"frequentUpdates": true}"#)
            #expect(patched.status == 200, "\(patched.json)")
            let app = try await SilentPushdDeviceTests.admin(admin, "GET", path + Self.app)
            #expect(app.json["frequentUpdates"] as? Bool == true, "\(app.json)")
            let pushToStart = try #require(patched.json["pushToStartToken"] as? String)
            #expect(pushToStart == app.json["pushToStartToken"] as? String)
            let start = try await Self.push(
                receiver, to: pushToStart,
                #"{"aps":{"timestamp":\#(Int(Date().timeIntervalSince1970)),"event":"start","content-state":{},"attributes-type":"A","attributes":{},"alert":{"title":"t"}}}"#
            )
            #expect(try await receiver.fate(of: start)?.kind == .delivered)
        }
    }

    /// An activity's update token was issued to its app: under another app's topic APNs
    /// answers 400 DeviceTokenNotForTopic, and the activity does not change (it was updated,
    /// and ended, by any app's pushes).
    @Test func anUpdateTokenUnderAnotherAppsTopicIsRefused() async throws {
        try await Receiver.withTesting { receiver in
            let device = Self.device("7")
            let activity = try await receiver.device.startActivity(
                device: device, bundleID: Self.app, attributesType: "MatchAttributes", contentState: #"{"score":1}"#)
            guard case .token(let token) = activity.subscription else {
                Issue.record("no update token: \(activity.subscription)")
                return
            }
            let id = UUID().uuidString
            let answer = try await ChannelManagementLiveTests.curl(
                "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
                headers: [
                    "apns-topic: com.example.other.push-type.liveactivity", "apns-push-type: liveactivity", "apns-priority: 10", "apns-id: \(id)",
                ],
                body: #"{"aps":{"timestamp":10,"event":"end","content-state":{"score":9}}}"#)
            #expect(answer.status == 400 && answer.body.contains("DeviceTokenNotForTopic"), "\(answer.status) \(answer.body)")
            #expect(try await receiver.fate(of: id)?.kind == .rejected)
            let after = try #require(try await receiver.device.activities(device: device, bundleID: Self.app).first)
            #expect(after.state.name == "active" && after.contentState == #"{"score":1}"#, "\(after)")
            // Its own app's push still reaches it.
            let own = try await Self.push(receiver, to: token, #"{"aps":{"timestamp":11,"event":"update","content-state":{"score":2}}}"#)
            #expect(try await receiver.fate(of: own)?.kind == .delivered)
        }
    }

    /// A Live Activity's tokens take its pushes alone: a background, alert or widgets push to
    /// an update token or to an app's push-to-start token is refused as APNs refuses a token
    /// issued for another topic (they had woken a device of that name, made up).
    @Test func aLiveActivityTokenTakesNoOtherPushType() async throws {
        try await Receiver.withTesting { receiver in
            let device = Self.device("8")
            let activity = try await receiver.device.startActivity(
                device: device, bundleID: Self.app, attributesType: "MatchAttributes", contentState: #"{"score":1}"#)
            let update = try #require(activity.pushToken)
            let pushToStart = receiver.device.pushToStartToken(device: device, bundleID: Self.app)
            for (token, type, topic, body) in [
                (update, "alert", Self.app, #"{"aps":{"alert":"hi"}}"#),
                (pushToStart, "background", Self.app, #"{"aps":{"content-available":1}}"#),
                (pushToStart, "widgets", Self.app + ".push-type.widgets", #"{"aps":{"content-changed":true}}"#),
            ] {
                let id = UUID().uuidString
                let answer = try await ChannelManagementLiveTests.curl(
                    "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
                    headers: ["apns-topic: \(topic)", "apns-push-type: \(type)", "apns-priority: 5", "apns-id: \(id)"], body: body)
                #expect(answer.status == 400 && answer.body.contains("DeviceTokenNotForTopic"), "\(type): \(answer.status) \(answer.body)")
                #expect(try await receiver.fate(of: id)?.kind == .rejected)
            }
            #expect(try await receiver.device.wakes().isEmpty)
            // The device's own token still takes them.
            let answer = try await ChannelManagementLiveTests.curl(
                "POST", "/3/device/\(device)", port: try #require(receiver.h2cPort), tls: false,
                headers: ["apns-topic: \(Self.app)", "apns-push-type: background", "apns-priority: 5"], body: #"{"aps":{"content-available":1}}"#)
            #expect(answer.status == 200, "\(answer.body)")
        }
    }

    /// A Live Activity push replaced before it showed says so in its own terms: by a newer
    /// update to its activity, not "in the app's slot", which is a background push's; one
    /// held for an offline device names the activity's token, not the app.
    @Test func aLiveActivityPushSaysWhyInItsOwnTerms() async throws {
        try await Receiver.withTesting({ $0.admin = ListenAddress(host: "127.0.0.1", port: 0) }) { receiver in
            let device = Self.device("6")
            let activity = try await receiver.device.startActivity(device: device, bundleID: Self.app, attributesType: "MatchAttributes")
            guard case .token(let token) = activity.subscription else {
                Issue.record("no update token: \(activity.subscription)")
                return
            }
            // Priority 5 waits for its opportunity (15 minutes); the next one replaces it.
            func opportunistic(_ timestamp: Int) async throws -> String {
                let id = UUID().uuidString
                let answer = try await ChannelManagementLiveTests.curl(
                    "POST", "/3/device/\(token)", port: try #require(receiver.h2cPort), tls: false,
                    headers: ["apns-topic: \(Self.topic)", "apns-push-type: liveactivity", "apns-priority: 5", "apns-id: \(id)"],
                    body: #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"n":\#(timestamp)}}}"#)
                #expect(answer.status == 200, "\(answer.body)")
                return id
            }
            let first = try await opportunistic(10)
            _ = try await opportunistic(11)
            #expect(try await receiver.fate(of: first)?.kind == .coalesced)
            let read = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/pushes/\(first)")
            let why = read.json["why"] as? [String: Any]
            #expect(
                why?["text"] as? String
                    == "replaced by a newer push to its Live Activity, an update or its end, before it showed (its updates name which)",
                "\(read.json)"
            )

            // Offline, APNs holds the latest push for the activity's token, not for the app.
            try await receiver.setDeviceState(DeviceState(network: .offline), for: device)
            let held = try await opportunistic(12)
            #expect(try await receiver.fate(of: held) == .pending(.offline))
            let heldRead = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/pushes/\(held)")
            #expect(
                (heldRead.json["why"] as? [String: Any])?["text"] as? String
                    == "held at APNs: the device is offline; APNs delivers the latest push for this activity token on reconnect",
                "\(heldRead.json)")
            // Kept past APNs's storage limit, it expires there: no slot, no wake.
            try await receiver.advanceClock(by: .seconds(31 * 86_400))
            let expired = try await SilentPushdDeviceTests.admin(try #require(receiver.adminPort), "GET", "/v1/pushes/\(held)")
            #expect(expired.json["fate"] as? String == "expired", "\(expired.json)")
            #expect(
                (expired.json["why"] as? [String: Any])?["text"] as? String
                    == "APNs kept it for the offline device past its apns-expiration (at most APNs's storage limit): its Live Activity never got it",
                "\(expired.json)")
        }
    }

    /// An activity the system ends after 8 hours says so, with no push to explain it.
    @Test func anActivityEndedByTheSystemSaysWhy() async throws {
        try await Receiver.withTesting({ $0.clock = .manual }) { receiver in
            let device = Self.device("9")
            _ = try await receiver.device.startActivity(device: device, bundleID: Self.app, attributesType: "MatchAttributes")
            try await receiver.advanceClock(by: .seconds(8 * 3600))
            let activity = try #require(try await receiver.device.activities(device: device, bundleID: Self.app).first)
            #expect(activity.state.name == "ended" && activity.why == "ended by the system: a Live Activity is active for at most 8 hours")
        }
    }

    /// A Most Recent Message Stored channel's message outlives a restart: an activity that
    /// subscribes after it shows it. A channel that stores nothing has nothing to give.
    @Test func aChannelsStoredMessageOutlivesARestart() async throws {
        let directory = try Scratch.newDirectory("activities")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        var (keeping, plain) = (ChannelID(header: "AAAAAAAAAAAAAAAAAAAAAA==")!, ChannelID(header: "AAAAAAAAAAAAAAAAAAAAAA==")!)
        try await Receiver.withTesting({
            $0.store = .file(store)
            $0.liveActivities = .unthrottled
        }) { receiver in
            keeping = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .mostRecentMessageStored).id
            plain = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored).id
            // A No Message Stored channel takes only apns-expiration 0.
            for (channel, expiration) in [(keeping, "4102444800"), (plain, "0")] {
                try await Self.broadcast(
                    receiver, channel: channel.text, #"{"aps":{"timestamp":500,"event":"update","content-state":{"kept":true}}}"#,
                    expiration: expiration)
            }
        }
        try await Receiver.withTesting({
            $0.store = .file(store)
            $0.liveActivities = .unthrottled
        }) { receiver in
            let late = try await receiver.device.startActivity(
                device: Self.device("9"), bundleID: Self.app, attributesType: "MatchAttributes", channel: keeping)
            let shown = try #require(try await receiver.device.activities(device: Self.device("9"), bundleID: Self.app).first { $0.id == late.id })
            #expect(shown.contentState == #"{"kept":true}"#)
            let other = try await receiver.device.startActivity(
                device: Self.device("8"), bundleID: Self.app, attributesType: "MatchAttributes", channel: plain)
            #expect(
                try await receiver.device.activities(device: Self.device("8"), bundleID: Self.app).first { $0.id == other.id }?.contentState == "{}")
        }
    }

    /// Retention keeps the message a channel keeps, however short `--retain` is: past the
    /// age limit the broadcast it replaced goes, it stays, and a restart still gives it.
    @Test func retentionKeepsTheMessageAChannelKeeps() async throws {
        let directory = try Scratch.newDirectory("activities")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.liveActivities = .unthrottled
            $0.retention = .init(maximumAge: .seconds(3600), maximumPushes: nil)
            $0.retentionPassInterval = .milliseconds(50)
        }
        let channel = try await Receiver.withTesting(configure) { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .mostRecentMessageStored).id
            for n in 1...2 {
                try await Self.broadcast(
                    receiver, channel: channel.text, #"{"aps":{"timestamp":\#(n),"event":"update","content-state":{"n":\#(n)}}}"#,
                    expiration: "4102444800")
            }
            try await receiver.advanceClock(by: .seconds(2 * 3600))  // past --retain, within the message's 8 hours
            for _ in 0..<200 where try await receiver.broadcasts(bundleID: Self.app, channel: channel).count > 1 {
                try await Task.sleep(for: .milliseconds(25))
            }
            let left = try await receiver.broadcasts(bundleID: Self.app, channel: channel)
            #expect(
                left.map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"aps":{"timestamp":2,"event":"update","content-state":{"n":2}}}"#])
            return channel
        }
        try await Receiver.withTesting(configure) { receiver in
            let late = try await receiver.device.startActivity(
                device: Self.device("9"), bundleID: Self.app, attributesType: "MatchAttributes", channel: channel)
            let shown = try #require(try await receiver.device.activities(device: Self.device("9"), bundleID: Self.app).first { $0.id == late.id })
            #expect(shown.contentState == #"{"n":2}"#)
        }
    }

    /// A channel the app deleted keeps nothing from retention: its message's record goes with
    /// the next pass past the age limit.
    @Test func retentionLetsADeletedChannelsMessageGo() async throws {
        try await Receiver.withTesting({
            $0.liveActivities = .unthrottled
            $0.retention = .init(maximumAge: .seconds(3600), maximumPushes: nil)
            $0.retentionPassInterval = .milliseconds(50)
        }) { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .mostRecentMessageStored).id
            try await Self.broadcast(
                receiver, channel: channel.text, #"{"aps":{"timestamp":1,"event":"update","content-state":{"n":1}}}"#, expiration: "4102444800")
            try await receiver.advanceClock(by: .seconds(2 * 3600))
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await receiver.broadcasts(bundleID: Self.app, channel: channel).count == 1, "kept while the channel keeps it")
            try await receiver.deleteChannel(channel, bundleID: Self.app)
            for _ in 0..<200 where try await !receiver.broadcasts(bundleID: Self.app, channel: channel).isEmpty {
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(try await receiver.broadcasts(bundleID: Self.app, channel: channel).isEmpty)
        }
    }

    /// Forgetting a device forgets its Live Activity pushes too: those to its app's
    /// push-to-start token and to its activities' update tokens; another device's stay.
    @Test func forgettingADeviceForgetsItsLiveActivityPushes() async throws {
        try await Receiver.withTesting({ $0.liveActivities = .unthrottled }) { receiver in
            let (device, other) = (Self.device("1"), Self.device("2"))
            var sent: [String: [String]] = [:]
            for token in [device, other] {
                let p2s = LiveActivityApp(device: token, bundleID: Self.app).pushToStartToken
                let start = try await Self.push(
                    receiver, to: p2s,
                    #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A","attributes":{},"input-push-token":1,"alert":{"title":"t"}}}"#
                )
                let activity = try #require(try await receiver.device.activities(device: token, bundleID: Self.app).first)
                let update = try await Self.push(
                    receiver, to: try #require(activity.pushToken), #"{"aps":{"timestamp":2,"event":"update","content-state":{"n":1}}}"#)
                sent[token] = [start, update]
            }
            // A device whose longer token begins with this one's is another device.
            let client = try await TestPushClient.connect(to: receiver)
            let longer = try await client.push(to: device + "0123456789abcdef", apnsID: UUID().uuidString)
            await client.close()
            #expect(longer.status == 200)
            try await receiver.forget(device: device)
            for id in sent[device] ?? [] { #expect(try await receiver.fate(of: id) == nil, "\(id)") }
            for id in (sent[other] ?? []) + [longer.apnsID] { #expect(try await receiver.fate(of: id) != nil, "\(id)") }
        }
    }

    /// An offline device gets nothing: APNs keeps the latest push to each of its tokens
    /// (`pending`, offline), across a restart, and the device takes it when it is back.
    @Test func anOfflineDevicesPushWaitsAcrossARestartAndArrivesWhenItIsBack() async throws {
        let directory = try Scratch.newDirectory("activities")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        let device = Self.device("f")
        var token = ""
        try await Receiver.withTesting({
            $0.store = .file(store)
            $0.liveActivities = .unthrottled
        }) { receiver in
            let activity = try await receiver.device.startActivity(device: device, bundleID: Self.app, attributesType: "MatchAttributes")
            guard case .token(let issued) = activity.subscription else {
                Issue.record("no update token: \(activity.subscription)")
                return
            }
            token = issued
            try await receiver.setDeviceState(DeviceState(network: .offline), for: device)
        }
        try await Receiver.withTesting({
            $0.store = .file(store)
            $0.liveActivities = .unthrottled
        }) { receiver in
            let first = try await Self.push(receiver, to: token, #"{"aps":{"timestamp":10,"event":"update","content-state":{"n":1}}}"#)
            #expect(try await receiver.fate(of: first) == .pending(.offline))
            let second = try await Self.push(receiver, to: token, #"{"aps":{"timestamp":20,"event":"update","content-state":{"n":2}}}"#)
            #expect(try await receiver.fate(of: first)?.kind == .coalesced)
            // Replaced at APNs, as a background push is: its why says apnsStorage.
            #expect(try await receiver.fate(of: first)?.coalescedByAPNs == true)
            #expect(try await receiver.device.activities(device: device, bundleID: Self.app).first?.contentState == "{}")

            try await receiver.setDeviceState(DeviceState(network: .online), for: device)
            #expect(try await receiver.fate(of: second)?.kind == .delivered)
            let activity = try #require(try await receiver.device.activities(device: device, bundleID: Self.app).first)
            #expect(activity.contentState == #"{"n":2}"#)
            #expect(try await receiver.device.activityUpdates(activity.id).map(\.outcome.name).suffix(3) == ["coalesced", "waiting", "applied"])
        }
    }

    /// A push-to-start APNs kept for an offline device subscribes to its channel when the
    /// device is back, so a channel the app deleted meanwhile fails the start then.
    @Test func aKeptStartWhoseChannelWasDeletedMeanwhileFailsWhenTheDeviceIsBack() async throws {
        try await Receiver.withTesting({ $0.liveActivities = .unthrottled }) { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored)
            let device = Self.device("9")
            try await receiver.setDeviceState(DeviceState(network: .offline), for: device)
            let start = try await Self.push(
                receiver, to: receiver.device.pushToStartToken(device: device, bundleID: Self.app),
                #"{"aps":{"timestamp":1000,"event":"start","content-state":{},"attributes-type":"MatchAttributes","attributes":{},"alert":"Kick-off","input-push-channel":"\#(channel.id.text)"}}"#
            )
            #expect(try await receiver.fate(of: start) == .pending(.offline))
            try await receiver.deleteChannel(channel.id, bundleID: Self.app)
            try await receiver.setDeviceState(DeviceState(network: .online), for: device)
            #expect(try await receiver.fate(of: start)?.dropReason == .liveActivity(.unknownChannel))
            #expect(try await receiver.device.activities(device: device, bundleID: Self.app).isEmpty)
        }
    }

    /// A push that waited when the receiver stopped is not kept across the restart: its fate
    /// says so (dropped, receiverRestarted) instead of pending for ever.
    @Test func aPushThatWaitedWhenTheReceiverStoppedEndsDroppedSayingWhy() async throws {
        let directory = try Scratch.newDirectory("activities")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        let device = Self.device("7")
        var waited = ""
        var activityID = ""
        try await Receiver.withTesting({ $0.store = .file(store) }) { receiver in
            let activity = try await receiver.device.startActivity(device: device, bundleID: Self.app, attributesType: "MatchAttributes")
            activityID = activity.id
            guard case .token(let token) = activity.subscription else {
                Issue.record("no update token: \(activity.subscription)")
                return
            }
            try await receiver.setDeviceState(DeviceState(network: .offline), for: device)
            waited = try await Self.push(receiver, to: token, #"{"aps":{"timestamp":10,"event":"update","content-state":{"n":1}}}"#)
            #expect(try await receiver.fate(of: waited) == .pending(.offline))
        }
        try await Receiver.withTesting({ $0.store = .file(store) }) { receiver in
            // The start-up line counts what was put back and what was not kept.
            #expect(receiver.resumed.liveActivities == 1 && receiver.resumed.droppedActivityPushes == 1, "\(receiver.resumed)")
            #expect(receiver.resumed.summary.contains("1 Live Activity, 1 waiting Live Activity push dropped (not kept across a restart)"))
            let fate = try await receiver.fate(of: waited)
            #expect(fate?.dropReason == .liveActivity(.receiverRestarted), "\(String(describing: fate))")
            // The activity's last decision for it says so too: not `waiting` for ever.
            let last = try await receiver.device.activityUpdates(activityID).last { $0.source == waited }
            #expect(last?.outcome == .ignored(.receiverRestarted), "\(String(describing: last))")
        }
    }

    /// A broadcast an activity held back for its budget when the receiver stopped: its last
    /// decision after the restart says so (ignored, receiverRestarted), not `waiting` for ever.
    @Test func aBroadcastHeldForTheBudgetAtAStopEndsInItsActivitysDecisions() async throws {
        let directory = try Scratch.newDirectory("activities")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.liveActivities = LiveActivitySettings(hourlyBudget: 1, frequentHourlyBudget: 1)
        }
        var activityID = ""
        var held: LiveActivityUpdate?
        try await Receiver.withTesting(configure) { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored)
            let activity = try await receiver.device.startActivity(
                device: Self.device("8"), bundleID: Self.app, attributesType: "MatchAttributes", channel: channel.id)
            activityID = activity.id
            for timestamp in [10, 20] {
                try await Self.broadcast(
                    receiver, channel: channel.id.text, #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"n":\#(timestamp)}}}"#)
            }
            held = try await receiver.device.activityUpdates(activity.id).last
            #expect(held?.outcome.name == "waiting", "the second is over the budget of 1: \(String(describing: held))")
        }
        try await Receiver.withTesting(configure) { receiver in
            let source = try #require(held?.source)
            let last = try await receiver.device.activityUpdates(activityID).last { $0.source == source }
            #expect(last?.outcome == .ignored(.receiverRestarted), "\(String(describing: last))")
        }
    }

    /// More subscribers than one commit's slice: the answer comes once every one shows the
    /// update, and a push sent meanwhile is committed between slices.
    @Test func aBroadcastPastOneSliceReachesEverySubscriberBeforeItsAnswer() async throws {
        try await Receiver.withTesting({ $0.liveActivities = .unthrottled }) { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .noMessageStored)
            let count = DeviceRecorder.fanOutSlice * 2 + 500
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let hex = String(index, radix: 16)
                        _ = try await receiver.device.startActivity(
                            device: String(repeating: "0", count: 64 - hex.count) + hex, bundleID: Self.app, attributesType: "A", channel: channel.id)
                    }
                }
                try await group.waitForAll()
            }
            let client = try await TestPushClient.connect(to: receiver)
            async let pushed = client.push()
            let answer = try await client.broadcast(
                #"{"aps":{"timestamp":5,"event":"update","content-state":{"v":1}}}"#, bundleID: Self.app, channel: channel.id)
            #expect(answer.status == 200)
            #expect(try await pushed.status == 200)
            let all = try await receiver.device.activities(device: nil, bundleID: Self.app, limit: .max)
            #expect(all.count == count)
            #expect(all.allSatisfy { $0.contentState == #"{"v":1}"# })
            await client.close()
        }
    }

    /// What a cluster member does when it joins again (and a restart, from the same read):
    /// the channels' latest broadcasts, as the store has them (another member recorded one
    /// while this one was out), become what the channels keep here, so an activity that
    /// subscribes later shows it. A start after it, which the device ignores, changes nothing.
    @Test func aBroadcastAnotherReceiverRecordedIsKeptForLaterSubscribersOnceTaken() async throws {
        try await Receiver.withTesting { receiver in
            let channel = try await receiver.createChannel(bundleID: Self.app, storagePolicy: .mostRecentMessageStored)
            let expiration = Int64(Date().timeIntervalSince1970) + 3600
            try await receiver.device.store.write([
                .insertBroadcast(
                    BroadcastRecord(
                        id: 9_000, requestID: "another-member", uniqueID: nil, bundleID: Self.app, environment: receiver.configuration.environment,
                        channelID: channel.id, priority: .high, expiration: expiration, receivedAt: receiver.device.clock.now,
                        payload: Array(#"{"aps":{"timestamp":5,"event":"update","content-state":{"v":2}}}"#.utf8))),
                // A start after it, which the device ignores on a channel: the update stays what the channel keeps.
                .insertBroadcast(
                    BroadcastRecord(
                        id: 9_001, requestID: "a-start", uniqueID: nil, bundleID: Self.app, environment: receiver.configuration.environment,
                        channelID: channel.id, priority: .high, expiration: expiration, receivedAt: receiver.device.clock.now,
                        payload: Array(
                            #"{"aps":{"timestamp":6,"event":"start","content-state":{"v":3},"attributes-type":"T","attributes":{},"alert":"x"}}"#.utf8
                        ))),
            ])
            let (first, second) = (String(repeating: "1a", count: 32), String(repeating: "2b", count: 32))
            _ = try await receiver.device.startActivity(device: first, bundleID: Self.app, attributesType: "T", channel: channel.id)
            try await receiver.device.takeKeptMessages()
            _ = try await receiver.device.startActivity(device: second, bundleID: Self.app, attributesType: "T", channel: channel.id)
            var shown: [String?] = []
            for device in [first, second] {
                shown.append(try await receiver.device.activities(device: device, bundleID: Self.app).first?.contentState)
            }
            #expect(shown == ["{}", #"{"v":2}"#], "only an activity that subscribed once it was taken shows it")
        }
    }
}
