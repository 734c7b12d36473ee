import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender
import SilentPushTransport

/// `pushsend`: signs and posts a payload to device tokens; `pushsend export` streams
/// a receiver's records. Each subcommand parses flags and calls the library that does it.
@main
struct PushSend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushsend",
        abstract: "Sign and post push payloads over HTTP/2, to silentpushd or to Apple; export what a receiver recorded.",
        discussion: "With no subcommand, pushsend sends (pushsend send --help).",
        version: "pushsend \(BuildInfo.version) (commit \(BuildInfo.commit))",
        subcommands: [Send.self, Expect.self, Export.self, Channel.self, Broadcast.self],
        defaultSubcommand: Send.self)

    /// Usage, key and connection errors exit 2 with one line; rejections exit 1; help 0. Lines
    /// that could not be written (a full disk, a closed pipe) are an error too: exit 2.
    static func main() async {
        // A closed pipe is an error to report (exit 2), not a signal that kills the process
        // without a word (macOS; SwiftNIO ignores it on Linux once a socket exists).
        signal(SIGPIPE, SIG_IGN)
        // Before the parser sees it: its messages quote an argument, and this one may be a private key.
        if PEMContents.found(inAnyOf: Array(CommandLine.arguments.dropFirst())) {
            try? FileHandle.standardError.write(contentsOf: Data("pushsend: \(PEMContents.refusal)\n".utf8))
            Foundation.exit(2)
        }
        do {
            var command = try parsedAsRoot(Array(CommandLine.arguments.dropFirst()))
            if var runnable = command as? AsyncParsableCommand {
                try await runnable.run()
            } else {
                try command.run()
            }
            exitUnlessWritten(0)
        } catch let code as ExitCode {
            exitUnlessWritten(code.rawValue)
        } catch {
            if exitCode(for: error) == .success {
                // Help and the version, which must be written too (a full disk: exit 2).
                print(fullMessage(for: error))
                exitUnlessWritten(0)
            }
            let message = (error as? PushSendError)?.description ?? (error as? AdminExporter.Failure)?.description ?? message(for: error)
            try? FileHandle.standardError.write(contentsOf: Data("pushsend: \(TerminalLine.escaped(message))\n".utf8))
            // An admin API that answered and refused is a result (1); the rest are usage (2).
            if case .refused? = error as? AdminExporter.Failure { Foundation.exit(1) }
            Foundation.exit(2)
        }
    }

    /// The command `arguments` name. Options given before the subcommand (`pushsend --url …
    /// channel list`) belong to it: when the line does not parse as written, it is read again
    /// with the subcommand first, and that reading's answer (its error too) is the one given.
    /// A help request is about the subcommand it names, wherever the options stand.
    static func parsedAsRoot(_ arguments: [String]) throws -> any ParsableCommand {
        let reordered = SubcommandOrder.subcommandFirst(arguments, under: PushSend.self)
        if let reordered, SubcommandOrder.asksForHelp(arguments) { return try parseAsRoot(reordered) }
        do {
            return try parseAsRoot(arguments)
        } catch {
            guard let reordered else { throw error }
            return try parseAsRoot(reordered)
        }
    }

    /// Exits with `code` once what `print` buffered is written; when it cannot be, says why
    /// in one line (the system's words) and exits 2.
    static func exitUnlessWritten(_ code: Int32) -> Never {
        // fflush(NULL) flushes every output stream: stdout is the one `print` buffers.
        if fflush(nil) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileHandle.standardError.write(contentsOf: Data("pushsend: cannot write the output to stdout: \(reason)\n".utf8))
            Foundation.exit(2)
        }
        Foundation.exit(code)
    }
}
