import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender

/// `pushsend channel create|get|list|delete`: APNs' channel-management API for broadcast
/// Live Activities. Prints APNs' answer as one line; exit 0 on success, 1 on a refusal, 2
/// on usage, key or connection errors.
struct Channel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Create, read, list and delete broadcast channels (APNs' channel-management API).",
        discussion: """
            Examples, against the local receiver (make run serves channels on 127.0.0.1:2195):
              pushsend channel create --storage-policy 1
              pushsend channel list
              pushsend channel get --channel dHN0LXNyY2gtY2hubA==
              pushsend channel delete --channel dHN0LXNyY2gtY2hubA==
            Against Apple: --sandbox or --production, with --key, --key-id, --team-id and --topic.
            """,
        subcommands: [Create.self, Get.self, List.self, Delete.self])

    /// Without a subcommand nothing is done: a usage error (2), not help and success.
    func run() async throws {
        throw ValidationError("give a subcommand: pushsend channel create, get, list or delete (pushsend channel --help)")
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel; prints 201 and its id.")
        @OptionGroup var options: ChannelOptions
        @Option(
            name: .customLong("storage-policy"), parsing: .unconditional,
            help: "0 (the default): no message stored; 1: the most recent message stored (8 hours).",
            transform: { try PushSendOptions.wholeNumber($0, expected: "0 or 1") })
        var storagePolicy = 0

        func run() async throws { try await Channel.run(options.request(.create(ChannelOptions.storagePolicy(storagePolicy)))) }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Read a channel's configuration; prints 200 and it.")
        @OptionGroup var options: ChannelOptions
        @Option(help: "The channel id.") var channel: String?

        func run() async throws { try await Channel.run(options.request(.read(ChannelOptions.channelID(channel)))) }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the app's channels; prints 200 and their ids.")
        @OptionGroup var options: ChannelOptions

        func run() async throws { try await Channel.run(options.request(.list)) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel; prints 204 and its id.")
        @OptionGroup var options: ChannelOptions
        @Option(help: "The channel id.") var channel: String?

        func run() async throws { try await Channel.run(options.request(.delete(ChannelOptions.channelID(channel)))) }
    }

    /// Sends `request` and prints its line; a refusal exits 1.
    static func run(_ request: ChannelRequest) async throws {
        let answer = try await request.run()
        print(answer.line)
        if !answer.succeeded { throw ExitCode(1) }
    }
}
