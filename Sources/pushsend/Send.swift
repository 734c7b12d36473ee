import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender
import SilentPushTransport

/// `pushsend send` (the default): signs and posts a payload to device tokens. Parses flags
/// into a `PushSendConfiguration` and runs a `PushSender`.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Sign (ES256 provider tokens) and post push payloads over HTTP/2, to silentpushd or to Apple.",
        discussion: """
            Examples:
              A silent push to the local receiver's development device:
                pushsend
              The same to a device of yours, with a payload file:
                pushsend --device 0123…cdef payloads/background.json
              To any receiver, cleartext HTTP/2:
                pushsend --url http://127.0.0.1:2198 --device 0123…cdef
              To Apple's sandbox with your key:
                pushsend --sandbox --key AuthKey_ABC123.p8 --key-id ABC123 \\
                  --team-id TEAM123 --topic com.example.app \\
                  --device 0123…cdef payloads/background.json
              With a client certificate instead of a token:
                pushsend --production --cert cert.pem --cert-key key.pem \\
                  --topic com.example.app --device 0123…cdef payload.json
              20,000 pushes, 100 in flight on one connection, summary only:
                pushsend --device 0123…cdef --count 20000 --concurrency 100 \\
                  --quiet
              The payload from stdin, JSON lines out:
                echo '{"aps":{"content-available":1}}' | pushsend --json -

            Output: one line per push, `200 <apns-id>` or `<status> <reason> <apns-id>`, \
            then a summary on stderr. Exit 0 when every push was accepted, 1 when any was \
            rejected (and every push answered), 2 on usage, key or connection errors or when \
            any push got no answer.
            """)

    @OptionGroup var options: PushSendOptions

    func run() async throws {
        let configuration = try options.configuration()
        let summary = try await PushSender(configuration).run()
        // --quiet asks for the summary alone: it is printed even for one push.
        if configuration.devices.count * configuration.count > 1 || !summary.errors.isEmpty || configuration.output == .quiet {
            try? FileHandle.standardError.write(contentsOf: Data((summary.text + "\n").utf8))
        }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }
}
