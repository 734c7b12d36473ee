import ArgumentParser
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import SilentPushCore
import SilentPushReceiver

/// `silentpushd`: the receiver. Parses flags into a `ReceiverConfiguration` and runs it.
@main
struct SilentPushd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silentpushd",
        abstract: "An APNs provider endpoint that plays the device: it receives silent pushes as APNs does.",
        discussion: """
            With no flags it serves TLS h2 on 127.0.0.1:2197 and cleartext h2 on 127.0.0.1:2198 with the \
            development certificates in ./certs. A bad flag or file stops start-up with exit code 2.
            """)

    @Option(help: ArgumentHelp("TLS HTTP/2 listener, HOST:PORT (port 0: any free port), or 'off'.", valueName: "host:port"))
    var listen = "127.0.0.1:2197"

    @Option(name: .customLong("listen-h2c"), help: ArgumentHelp("Cleartext HTTP/2 (prior knowledge) listener, HOST:PORT, or 'off'.", valueName: "host:port"))
    var listenH2C = "127.0.0.1:2198"

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Server certificate chain (PEM).", valueName: "pem"))
    var tlsCert = "certs/server.pem"

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("Server private key (PEM).", valueName: "pem"))
    var tlsKey = "certs/server-key.pem"

    @Option(name: .customLong("client-ca"), help: ArgumentHelp("Require client certificates signed by this CA (PEM).", valueName: "pem"))
    var clientCA: String?

    @Option(name: .customLong("ready-file"), help: ArgumentHelp("Once bound, write {\"tls\":P,\"h2c\":P} here.", valueName: "path"))
    var readyFile: String?

    @Option(name: .customLong("max-concurrent-streams"), help: "SETTINGS_MAX_CONCURRENT_STREAMS per connection.")
    var maxConcurrentStreams: UInt32 = 1000

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close connections idle this long with GOAWAY IdleTimeout (e.g. 10m, 0 = never).", valueName: "duration"))
    var idleTimeout = "10m"

    @Option(name: .customLong("shutdown-grace"), help: ArgumentHelp("On SIGTERM, how long open streams may run before the rest is closed.", valueName: "duration"))
    var shutdownGrace = "30s"

    @Option(help: "Event-loop threads (default: one per core).")
    var threads: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        _ = try makeConfiguration()
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }

    func makeConfiguration() throws -> ReceiverConfiguration {
        var configuration = ReceiverConfiguration()
        configuration.listen = try Self.address(listen, flag: "--listen")
        configuration.listenH2C = try Self.address(listenH2C, flag: "--listen-h2c")
        configuration.tlsCertificate = tlsCert
        configuration.tlsKey = tlsKey
        configuration.clientCA = clientCA
        configuration.readyFile = readyFile
        guard maxConcurrentStreams >= 1 else { throw ValidationError("--max-concurrent-streams must be at least 1") }
        configuration.settings.maxConcurrentStreams = maxConcurrentStreams
        configuration.idleTimeout = try Self.duration(idleTimeout, flag: "--idle-timeout")
        configuration.shutdownGrace = try Self.duration(shutdownGrace, flag: "--shutdown-grace")
        return configuration
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "silentpushd")
        let group = threads.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) } ?? MultiThreadedEventLoopGroup.singleton
        let receiver = try await Receiver.start(try makeConfiguration(), group: group, logger: logger)
        let services = ServiceGroup(configuration: .init(
            services: [receiver], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await services.run()
        logger.info("silentpushd stopped")
    }

    static func address(_ text: String, flag: String) throws -> ListenAddress? {
        if text == "off" { return nil }
        guard let address = ListenAddress(parsing: text) else {
            throw ValidationError("\(flag) '\(text)' is not HOST:PORT (e.g. 127.0.0.1:2197, [::1]:0) or 'off'")
        }
        return address
    }

    static func duration(_ text: String, flag: String) throws -> Duration {
        guard let duration = Duration(parsing: text) else {
            throw ValidationError("\(flag) '\(text)' is not a duration (e.g. 500ms, 30s, 15m)")
        }
        return duration
    }

    /// Every failure to start exits 2 with one line; help exits 0.
    static func main() async {
        do {
            let command = try parseAsRoot()
            guard let runnable = command as? SilentPushd else {
                print(helpMessage())
                return
            }
            try await runnable.run()
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let message = (error as? ReceiverStartError)?.description ?? message(for: error)
            FileHandle.standardError.write(Data("silentpushd: \(message)\n".utf8))
            Foundation.exit(2)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
