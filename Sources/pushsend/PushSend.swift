import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender
import SilentPushTransport

/// `pushsend`: signs and posts a payload to device tokens (SPEC §7). Parses flags into a
/// `PushSendConfiguration` and runs a `PushSender`.
@main
struct PushSend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushsend",
        abstract: "Sign (ES256 provider tokens) and post push payloads over HTTP/2, to silentpushd or to Apple.",
        discussion: """
            Examples:
              A silent push to the `make run` receiver (dev key and CA from ./certs):
                pushsend --device 0123…cdef payloads/background.json
              To any receiver, cleartext HTTP/2:
                pushsend --url http://127.0.0.1:2198 --device 0123…cdef payloads/background.json
              To Apple's sandbox with your key:
                pushsend --sandbox --key AuthKey_ABC123.p8 --key-id ABC123 --team-id TEAM123 \\
                  --topic com.example.app --device 0123…cdef payloads/background.json
              With a client certificate instead of a token:
                pushsend --production --cert cert.pem --cert-key key.pem --topic com.example.app --device … payload.json
              20,000 pushes, 100 in flight on one connection, summary only:
                pushsend --device 0123…cdef --count 20000 --concurrency 100 --quiet payloads/background.json
              The payload from stdin, JSON lines out:
                echo '{"aps":{"content-available":1}}' | pushsend --device 0123…cdef --json -

            Output: one line per push, `200 <apns-id>` or `<status> <reason> <apns-id>`, then a summary on
            stderr. Exit 0 when every push was accepted, 1 when any was rejected, 2 on usage, key or
            connection errors.
            """)

    @Argument(help: ArgumentHelp("The payload JSON file, or - for stdin.", valueName: "payload"))
    var payloadFile: String

    @Option(help: ArgumentHelp("The receiver: http://HOST:PORT (h2c) or https://HOST:PORT (TLS, ALPN h2).", valueName: "url"))
    var url: String?

    @Flag(help: "Apple's development host, api.sandbox.push.apple.com.")
    var sandbox = false

    @Flag(help: "Apple's production host, api.push.apple.com.")
    var production = false

    @Option(help: "The port for --sandbox/--production: 443 (default) or 2197.")
    var port: Int?

    @Option(help: ArgumentHelp("Trust this CA (PEM) for https.", valueName: "pem"))
    var cacert: String?

    @Flag(help: "Do not verify the server's certificate.")
    var insecure = false

    @Option(help: ArgumentHelp("The provider-token key (.p8). Also APNS_KEY.", valueName: "p8"))
    var key: String?

    @Option(name: .customLong("key-id"), help: "The key's id. Also APNS_KEY_ID.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your team id. Also APNS_TEAM_ID.")
    var teamID: String?

    @Option(help: ArgumentHelp("Authenticate with this client certificate (PEM) instead of a token.", valueName: "pem"))
    var cert: String?

    @Option(name: .customLong("cert-key"), help: ArgumentHelp("The client certificate's private key (PEM).", valueName: "pem"))
    var certKey: String?

    @Option(help: ArgumentHelp("A device token (hex). Repeatable.", valueName: "token"))
    var device: [String] = []

    @Option(help: ArgumentHelp("A file of device tokens, one a line.", valueName: "file"))
    var devices: String?

    @Option(help: "apns-topic (default for local receivers: com.example.app).")
    var topic: String?

    @Option(name: .customLong("push-type"), help: "apns-push-type (default: background for a content-available-only payload, else alert).")
    var pushType: String?

    @Option(help: "apns-priority: 10, 5 or 1.")
    var priority: Int?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    var collapseID: String?

    @Option(help: "apns-expiration: seconds since the epoch (0: now or never).")
    var expiration: Int64?

    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID) for every push.")
    var apnsID: String?

    @Option(help: "Pushes per device.")
    var count = 1

    @Option(help: "Streams in flight per connection (kept within the server's MAX_CONCURRENT_STREAMS).")
    var concurrency = 1

    @Option(help: "Connections.")
    var connections = 1

    @Flag(help: "One JSON object per push instead of a line.")
    var json = false

    @Flag(help: "No line per push: the summary alone.")
    var quiet = false

    @Flag(help: "Print each request's and response's headers on stderr.")
    var verbose = false

    @Flag(name: .customLong("no-validate"), help: "Send the payload even if APNs would refuse it.")
    var noValidate = false

    func run() async throws {
        let configuration = try PushSendOptions(self).configuration()
        let summary = try await PushSender(configuration).run()
        if configuration.devices.count * configuration.count > 1 || !summary.errors.isEmpty {
            FileHandle.standardError.write(Data((summary.text + "\n").utf8))
        }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }

    /// Usage, key and connection errors exit 2 with one line; rejections exit 1; help 0.
    static func main() async {
        do {
            let command = try parseAsRoot()
            guard let runnable = command as? PushSend else {
                print(helpMessage())
                return
            }
            try await runnable.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let message = (error as? PushSendError)?.description ?? message(for: error)
            FileHandle.standardError.write(Data("pushsend: \(message)\n".utf8))
            Foundation.exit(2)
        }
    }
}

extension PushSendOptions {
    init(_ command: PushSend) {
        self.init()
        payloadFile = command.payloadFile
        url = command.url
        sandbox = command.sandbox
        production = command.production
        port = command.port
        cacert = command.cacert
        insecure = command.insecure
        key = command.key
        keyID = command.keyID
        teamID = command.teamID
        cert = command.cert
        certKey = command.certKey
        devices = command.device
        devicesFile = command.devices
        topic = command.topic
        pushType = command.pushType
        priority = command.priority
        collapseID = command.collapseID
        expiration = command.expiration
        apnsID = command.apnsID
        count = command.count
        concurrency = command.concurrency
        connections = command.connections
        json = command.json
        quiet = command.quiet
        verbose = command.verbose
        validate = !command.noValidate
    }
}
