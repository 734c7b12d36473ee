import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender

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
