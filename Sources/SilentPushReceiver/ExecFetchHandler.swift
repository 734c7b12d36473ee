import Foundation
import SilentPushCore

/// `--fetch-exec "COMMAND"` (SPEC §5): each wake runs COMMAND with `/bin/sh -c` in a process
/// group of its own, the payload JSON on its stdin and the wake in `SILENTPUSH_*` variables.
/// The last line it prints is the result (`newData`, `noData`, `failed [reason]`); anything
/// else, or a non-zero exit, is `failed`, with the exit status and the tail of its stderr as
/// the reason. At the deadline the whole group gets SIGTERM, then SIGKILL after `killGrace`.
public struct ExecFetchHandler: FetchHandler {
    /// The shell command.
    public var command: String
    /// How long a cancelled command has between SIGTERM and SIGKILL.
    public var killGrace: Duration

    /// A handler running `command`.
    public init(command: String, killGrace: Duration = .seconds(2)) {
        self.command = command
        self.killGrace = killGrace
        Self.ignoreBrokenPipes
    }

    /// A command that exits without reading its stdin must not kill the receiver.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The variables a command sees besides the receiver's own environment.
    public static func environment(of wake: Wake) -> [String: String] {
        [
            "SILENTPUSH_TOKEN": wake.deviceToken,
            "SILENTPUSH_TOPIC": wake.topic,
            "SILENTPUSH_APNS_ID": wake.apnsID,
            "SILENTPUSH_PRIORITY": String(wake.priority.rawValue),
            "SILENTPUSH_COALESCED": wake.coalescedAPNsIDs.joined(separator: ","),
            "SILENTPUSH_WAKE_ID": String(wake.id),
            "SILENTPUSH_DEADLINE": ISO8601Timestamp.string(millisecondsSinceEpoch: wake.deadline.millisecondsSinceEpoch),
        ]
    }

    public func fetch(_ wake: Wake) async -> FetchResult {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                command: command, environment: ProcessInfo.processInfo.environment.merging(Self.environment(of: wake)) { $1 },
                input: wake.payload, killGrace: killGrace)
        } catch {
            return .failed(reason: "cannot run the fetch command: \(error)")
        }
        if Task.isCancelled { return .deadlineExceeded }
        return Self.result(of: outcome)
    }

    /// What a finished command's status and output mean.
    static func result(of outcome: ChildProcess.Outcome) -> FetchResult {
        let errorTail = Self.lastLine(of: outcome.errorOutput).map { ": \($0.prefix(200))" } ?? ""
        switch outcome.termination {
        case .signaled(let signal): return .failed(reason: "killed by signal \(signal)\(errorTail)")
        case .exited(let status) where status != 0: return .failed(reason: "exit \(status)\(errorTail)")
        case .exited: break
        }
        let result = FetchResult(line: Self.lastLine(of: outcome.output) ?? "")
        if case .failed(let reason) = result, reason.hasPrefix("unexpected result line") || reason == "no result line" {
            return .failed(reason: reason + errorTail)
        }
        return result
    }

    private static func lastLine(of bytes: [UInt8]) -> Substring? {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) }
    }
}
