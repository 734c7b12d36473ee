import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `pushsend channel` and `pushsend broadcast` against an in-process receiver: the channel
/// lifecycle over TLS, a broadcast over h2c, and the exit codes.
@Suite(.serialized) struct PushSendChannelTests {
    @Test func theChannelLifecycleAndABroadcast() async throws {
        try await Receiver.withTesting({ $0.listenChannels = ListenAddress(host: "127.0.0.1", port: 0) }) { receiver in
            let channels = ["--url", "https://localhost:\(try #require(receiver.channelsPort))"]
            let created = try await PushSendProcessTests.run(["channel", "create", "--storage-policy", "1"] + channels)
            #expect(created.status == 0, "\(created.errorOutput)")
            let parts = created.output.trimmingCharacters(in: .newlines).split(separator: " ")
            #expect(parts.first == "201")
            let id = String(try #require(parts.last))
            #expect(ChannelID(header: id) != nil)

            let listed = try await PushSendProcessTests.run(["channel", "list"] + channels)
            #expect(listed.output == "200 \(id)\n")
            let read = try await PushSendProcessTests.run(["channel", "get", "--channel", id] + channels)
            #expect(read.output == #"200 {"message-storage-policy":1,"push-type":"LiveActivity"}"# + "\n")

            let broadcast = try await PushSendProcessTests.run(
                [
                    "broadcast", "--url", "http://127.0.0.1:\(try #require(receiver.h2cPort))", "--channel", id, "--expiration", "4102444800",
                    Repository.root + "/payloads/liveactivity-broadcast.json",
                ])
            #expect(broadcast.status == 0, "\(broadcast.errorOutput)")
            let answer = broadcast.output.trimmingCharacters(in: .newlines).split(separator: " ")
            #expect(answer.count == 3 && answer.first == "200", "\(broadcast.output)")
            #expect(try await receiver.broadcasts(bundleID: "com.example.app").first?.requestID == answer.dropFirst().first.map(String.init))

            let deleted = try await PushSendProcessTests.run(["channel", "delete", "--channel", id] + channels)
            #expect(deleted.output == "204 \(id)\n")
            let gone = try await PushSendProcessTests.run(["channel", "get", "--channel", id] + channels)
            #expect(gone.status == 1)
            #expect(gone.output.hasPrefix("400 ChannelNotRegistered "), "\(gone.output)")
        }
    }

    /// Options written before the subcommand are its own: `pushsend --url … channel list` is
    /// `pushsend channel list --url …`, and so is `pushsend channel --url … list`.
    @Test func optionsBeforeTheSubcommandAreItsOwn() async throws {
        try await Receiver.withTesting({ $0.listenChannels = ListenAddress(host: "127.0.0.1", port: 0) }) { receiver in
            let channels = ["--url", "https://localhost:\(try #require(receiver.channelsPort))"]
            let created = try await PushSendProcessTests.run(channels + ["channel", "create"])
            #expect(created.status == 0, "\(created.errorOutput)")
            let id = String(try #require(created.output.trimmingCharacters(in: .newlines).split(separator: " ").last))
            for line in [channels + ["channel", "list"], ["channel"] + channels + ["list"]] {
                let listed = try await PushSendProcessTests.run(line)
                #expect(listed.status == 0 && listed.output == "200 \(id)\n", "\(line): \(listed.output)\(listed.errorOutput)")
            }
            let help = try await PushSendProcessTests.run(channels + ["channel", "get", "--help"])
            #expect(help.status == 0 && help.output.contains("Read a channel's configuration"), "\(help.output)")
            let broadcast = try await PushSendProcessTests.run(
                [
                    "--url", "http://127.0.0.1:\(try #require(receiver.h2cPort))", "--channel", id, "broadcast",
                    Repository.root + "/payloads/liveactivity-broadcast.json",
                ])
            #expect(broadcast.status == 0 && broadcast.output.hasPrefix("200 "), "\(broadcast.output)\(broadcast.errorOutput)")
            // What the subcommand refuses is said as its own: here a channel without an id.
            let get = try await PushSendProcessTests.run(channels + ["channel", "get"])
            #expect(get.status == 2 && get.errorOutput.contains("--channel"), "\(get.errorOutput)")
        }
    }

    /// Each of the two listeners sent the other's request says which one to give --url.
    @Test func aRequestToTheOtherListenerSaysWhichToGive() async throws {
        try await Receiver.withTesting({ $0.listenChannels = ListenAddress(host: "127.0.0.1", port: 0) }) { receiver in
            let broadcast = try await PushSendProcessTests.run(
                [
                    "broadcast", "--url", "https://localhost:\(try #require(receiver.channelsPort))", "--channel", "dHN0LXNyY2gtY2hubA==",
                    "--expiration", "0", Repository.root + "/payloads/liveactivity-broadcast.json",
                ])
            #expect(broadcast.status == 1, "\(broadcast.output)\(broadcast.errorOutput)")
            #expect(
                broadcast.output.contains("404 BadPath ") && broadcast.output.contains("give --url the receiver's provider listener"),
                "\(broadcast.output)")
            let list = try await PushSendProcessTests.run(["channel", "list", "--url", "http://127.0.0.1:\(try #require(receiver.h2cPort))"])
            #expect(list.status == 1, "\(list.output)\(list.errorOutput)")
            #expect(list.output.contains("give --url the receiver's --listen-channels address"), "\(list.output)")
        }
    }

    @Test(arguments: [
        (["channel", "get"], "give --channel ID"),
        (["channel", "get", "--channel", "not*base64"], "--channel 'not*base64' is not a channel id"),
        (["channel", "create", "--storage-policy", "2"], "--storage-policy 2 is not 0 (no message stored) or 1"),
        (["channel", "list", "--request-id", "nope"], "--request-id 'nope' is not a UUID"),
        (["channel", "list", "--sandbox", "--key", "/nonexistent.p8", "--key-id", "K", "--team-id", "T"], "give --topic"),
        (["broadcast", "--channel", "dHN0LXNyY2gtY2hubA=="], "give a payload file"),
        (["broadcast", "--channel", "dHN0LXNyY2gtY2hubA==", "--priority", "7", "x.json"], "--priority 7 is not 10, 5 or 1"),
        // broadcast has no --no-validate, so its line does not offer one.
        (
            ["broadcast", "--channel", "dHN0LXNyY2gtY2hubA==", Repository.root + "/Package.swift"],
            "APNs would refuse this broadcast payload (PayloadTooLarge) (make it at most 5120 bytes (it has \(FileManager.default.contents(atPath: Repository.root + "/Package.swift")?.count ?? 0)))\n"
        ),
    ])
    func badInputExitsTwoWithOneLine(arguments: [String], message: String) async throws {
        let result = try await PushSendProcessTests.run(arguments)
        #expect(result.status == 2, "\(result.output)\(result.errorOutput)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
    }
}
