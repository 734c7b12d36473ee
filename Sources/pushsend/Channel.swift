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

/// `pushsend broadcast`: publishes a payload on a channel (`POST /4/broadcasts/apps/…`).
struct Broadcast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publish a Live Activity payload on a channel; prints 200, the apns-request-id and (development) the apns-unique-id.",
        discussion: """
            Example, against the local receiver:
              pushsend broadcast --channel dHN0LXNyY2gtY2hubA== \\
                payloads/liveactivity-broadcast.json
            """)

    @OptionGroup var options: ChannelOptions
    @Argument(help: ArgumentHelp("The payload JSON file, or - for stdin.", valueName: "payload")) var payloadFile: String?
    @Option(help: "The channel id.") var channel: String?
    @Option(parsing: .unconditional, help: "apns-priority: 10, 5 or 1.", transform: { try PushSendOptions.wholeNumber($0, expected: "10, 5 or 1") })
    var priority = 10
    @Option(
        parsing: .unconditional, help: "apns-expiration: seconds since the epoch; 0 (the default) for a channel that stores no message.",
        transform: { try PushSendOptions.wholeNumber($0, expected: "0 or seconds since the epoch") })
    var expiration: Int64 = 0

    func run() async throws {
        let action = try ChannelOptions.broadcast(channel: channel, priority: priority, expiration: expiration, payloadFile: payloadFile)
        try await Channel.run(options.request(action))
    }
}
