import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `pushsend send --event …`: Live Activity pushes made from options, to an in-process
/// receiver's push-to-start token and then to the activity's own.
@Suite(.serialized) struct PushSendLiveActivityTests {
    @Test func aStartThenAnUpdateMadeFromOptions() async throws {
        try await Receiver.withTesting({ $0.liveActivities = .unthrottled }) { receiver in
            let device = SamplePush.deviceToken
            let url = ["--url", "http://127.0.0.1:\(try #require(receiver.h2cPort))"]
            let directory = Scratch.directory.appendingPathComponent("pushsend-la-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try Data(#"{"score": "1-0"}"#.utf8).write(to: URL(fileURLWithPath: directory + "/state.json"))

            let start = try await PushSendProcessTests.run(
                url + [
                    "--device", receiver.device.pushToStartToken(device: device, bundleID: "com.example.app"), "--event", "start",
                    "--attributes-type", "MatchAttributes", "--input-push-token", "--timestamp", "100",
                ])
            #expect(start.status == 0, "\(start.output)\(start.errorOutput)")
            let activity = try #require(try await receiver.device.activities(device: device, bundleID: "com.example.app").first)
            #expect(activity.attributesType == "MatchAttributes")
            let token = try #require(activity.pushToken)

            let update = try await PushSendProcessTests.run(
                url + ["--device", token, "--event", "update", "--content-state", directory + "/state.json", "--timestamp", "200"])
            #expect(update.status == 0, "\(update.output)\(update.errorOutput)")
            #expect(try await receiver.device.activities(device: device, bundleID: "com.example.app").first?.contentState == #"{"score": "1-0"}"#)

            // An end without --content-state sends none: the activity keeps what it shows.
            let end = try await PushSendProcessTests.run(url + ["--device", token, "--event", "end", "--timestamp", "300"])
            #expect(end.status == 0, "\(end.output)\(end.errorOutput)")
            let ended = try #require(try await receiver.device.activities(device: device, bundleID: "com.example.app").first)
            #expect(ended.state.name == "ended" && ended.contentState == #"{"score": "1-0"}"#, "\(ended)")
        }
    }

    /// `pushsend expect --applied N --activity-state S`: over budget, the second update waits
    /// an hour; expect moves the manual clock to it.
    @Test func expectWaitsForAHeldUpdateOnTheManualClock() async throws {
        try await Receiver.withTesting({ $0.liveActivities = LiveActivitySettings(hourlyBudget: 1, opportunisticDelay: .zero) }) { receiver in
            let device = SamplePush.deviceToken
            let activity = try await receiver.device.startActivity(device: device, bundleID: "com.example.app", attributesType: "A")
            let token = try #require(activity.pushToken)
            let client = try await TestPushClient.connect(to: receiver)
            for (index, id) in ["00000000-0000-4000-8000-0000000000b1", "00000000-0000-4000-8000-0000000000b2"].enumerated() {
                let answer = try await client.push(
                    #"{"aps":{"timestamp":\#(10 + index),"event":"update","content-state":{"n":\#(index)}}}"#, to: token,
                    topic: "com.example.app.push-type.liveactivity", priority: .high, pushType: .liveactivity, apnsID: id)
                #expect(answer.status == 200)
            }
            await client.close()
            let admin = ["--admin", "http://127.0.0.1:\(try #require(receiver.adminPort))", "--device", device, "--topic", "com.example.app"]
            let now = try await PushSendProcessTests.run(["expect"] + admin + ["--applied", "2"])
            #expect(now.status == 1, "\(now.output)")
            #expect(now.output.contains("1 update applied"), "\(now.output)")
            let later = try await PushSendProcessTests.run(["expect"] + admin + ["--applied", "2", "--activity-state", "active", "--within", "2h"])
            #expect(later.status == 0, "\(later.output)\(later.errorOutput)")
            #expect(later.output.hasPrefix("ok: com.example.app on device"), "\(later.output)")
            // The topic the pushes went to names the same app (it was read as another, with none).
            let suffixed = ["--admin", admin[1], "--device", device, "--topic", "com.example.app.push-type.liveactivity"]
            #expect(try await PushSendProcessTests.run(["expect"] + suffixed + ["--applied", "0"]).status == 1)
            #expect(try await PushSendProcessTests.run(["expect"] + suffixed + ["--applied", "2"]).status == 0)
            let bad = try await PushSendProcessTests.run(["expect"] + admin + ["--activity-state", "paused"])
            #expect(bad.status == 2)
            #expect(bad.errorOutput.contains("--activity-state 'paused' is not one of active, stale, ended, dismissed"), "\(bad.errorOutput)")
        }
    }

    /// `expect --activity-state` moves a manual clock to each time an activity's state changes
    /// (its stale-date, the system's end, its dismissal), so it sees a state that a move to the
    /// span's end would pass (stale at 10 minutes, then ended by the system at 8 hours).
    @Test func expectStopsTheClockWhereTheStateIsReached() async throws {
        try await Receiver.withTesting({ $0.liveActivities = .unthrottled }) { receiver in
            let device = SamplePush.deviceToken
            let activity = try await receiver.device.startActivity(device: device, bundleID: "com.example.app", attributesType: "A")
            let token = try #require(activity.pushToken)
            let start = receiver.device.clock.now
            let stale = start.advanced(by: .seconds(600)).millisecondsSinceEpoch / 1000
            let client = try await TestPushClient.connect(to: receiver)
            let answer = try await client.push(
                #"{"aps":{"timestamp":10,"event":"update","content-state":{"n":1},"stale-date":\#(stale)}}"#, to: token,
                topic: "com.example.app.push-type.liveactivity", priority: .high, pushType: .liveactivity)
            #expect(answer.status == 200)
            await client.close()
            let admin = ["--admin", "http://127.0.0.1:\(try #require(receiver.adminPort))", "--device", device, "--topic", "com.example.app"]
            let seenStale = try await PushSendProcessTests.run(["expect"] + admin + ["--activity-state", "stale", "--within", "9h"])
            #expect(seenStale.status == 0, "\(seenStale.output)\(seenStale.errorOutput)")
            #expect(receiver.device.clock.now <= start.advanced(by: .seconds(601)), "the clock stopped at the stale-date")
            let seenEnded = try await PushSendProcessTests.run(["expect"] + admin + ["--activity-state", "ended", "--within", "9h"])
            #expect(seenEnded.status == 0, "\(seenEnded.output)\(seenEnded.errorOutput)")
            #expect(receiver.device.clock.now <= start.advanced(by: .seconds(8 * 3600 + 1)), "the clock stopped at the system's end")
            let seenDismissed = try await PushSendProcessTests.run(["expect"] + admin + ["--activity-state", "dismissed", "--within", "9h"])
            #expect(seenDismissed.status == 0, "\(seenDismissed.output)\(seenDismissed.errorOutput)")
        }
    }

    @Test(arguments: [
        (["--stale-date", "100"], "give --event start|update|end"),
        (["--event", "pause"], "--event 'pause' is not start, update or end"),
        (["--event", "start"], "give --attributes-type"),
        (["--event", "update", "--input-push-token"], "--input-push-token goes with --event start, not update"),
        (["--event", "end", "--attributes-type", "A"], "--attributes-type goes with --event start, not end"),
        (["--event", "update", "--attributes", "a.json"], "--attributes goes with --event start, not update"),
        (["--event", "update", "--dismissal-date", "100"], "--dismissal-date goes with --event end, not update"),
        (["--event", "update", "--timestamp", "99999999999999"], "--timestamp 99999999999999 is not seconds since 1970"),
        (["--event", "update", "--content-state", "/nonexistent.json"], "cannot read the --content-state file"),
        (["--event", "start", "--attributes-type", "A", "--input-push-channel", "not*base64"], "--input-push-channel 'not*base64'"),
        (["--event", "update", "payload.json"], "give a payload file or --event, not both"),
    ])
    func badOptionsExitTwoWithOneLine(arguments: [String], message: String) async throws {
        let result = try await PushSendProcessTests.run(arguments)
        #expect(result.status == 2, "\(result.output)\(result.errorOutput)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
    }
}
