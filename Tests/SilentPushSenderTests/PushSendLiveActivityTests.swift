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
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushsend-la-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try Data(#"{"score": "1-0"}"#.utf8).write(to: URL(fileURLWithPath: directory + "/state.json"))

            let start = try await PushSendProcessTests.run(
                url + [
                    "--device", receiver.device.pushToStartToken(device: device, bundleID: "com.example.app"), "--event", "start",
                    "--attributes-type", "MatchAttributes", "--input-push-token", "--timestamp", "100",
                ])
            #expect(start.status == 0, "\(start.output)\(start.errorOutput)")
            let activity = try #require(try receiver.device.activities(device: device, bundleID: "com.example.app").first)
            #expect(activity.attributesType == "MatchAttributes")
            let token = try #require(activity.pushToken)

            let update = try await PushSendProcessTests.run(
                url + ["--device", token, "--event", "update", "--content-state", directory + "/state.json", "--timestamp", "200"])
            #expect(update.status == 0, "\(update.output)\(update.errorOutput)")
            #expect(try receiver.device.activities(device: device, bundleID: "com.example.app").first?.contentState == #"{"score": "1-0"}"#)
        }
    }

    @Test(arguments: [
        (["--stale-date", "100"], "give --event start|update|end"),
        (["--event", "pause"], "--event 'pause' is not start, update or end"),
        (["--event", "start"], "give --attributes-type"),
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
