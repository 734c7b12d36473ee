import Foundation
import SilentPushCore

/// `--fetch-exec "COMMAND"`: each wake runs COMMAND with `/bin/sh -c`, the payload JSON on
/// its stdin and the wake in `SILENTPUSH_*` variables; the last line it prints is the result
/// (`newData`, `noData`, `failed [reason]`). Anything else, or a non-zero exit, is `failed`.
/// At the deadline it gets SIGTERM, then SIGKILL after `killGrace`.
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
            "SILENTPUSH_WAKE_ID": String(wake.id),
            "SILENTPUSH_DEVICE_TOKEN": wake.deviceToken,
            "SILENTPUSH_TOPIC": wake.topic,
            "SILENTPUSH_APNS_ID": wake.apnsID,
            "SILENTPUSH_PRIORITY": String(wake.priority.rawValue),
            "SILENTPUSH_COALESCED_IDS": wake.coalescedAPNsIDs.joined(separator: ","),
            "SILENTPUSH_DEADLINE": ISO8601Timestamp.string(millisecondsSinceEpoch: wake.deadline),
        ]
    }

    public func fetch(_ wake: Wake) async -> FetchResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(Self.environment(of: wake)) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .failed(reason: "cannot run the fetch command: \(error.localizedDescription)")
        }
        let pid = process.processIdentifier
        let grace = killGrace
        let finished: (output: Data, status: Int32, exited: Bool) = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Blocking reads belong on their own thread, not the cooperative pool.
                Thread.detachNewThread {
                    try? input.fileHandleForWriting.write(contentsOf: wake.payload)
                    try? input.fileHandleForWriting.close()
                    let data = (try? output.fileHandleForReading.readToEnd()) ?? Data()
                    process.waitUntilExit()
                    continuation.resume(returning: (data, process.terminationStatus, process.terminationReason == .exit))
                }
            }
        } onCancel: {
            Self.signalTree(pid, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000))) {
                Self.signalTree(pid, SIGKILL)
            }
        }
        if Task.isCancelled { return .deadlineExceeded }
        guard finished.exited else { return .failed(reason: "the fetch command was killed by signal \(finished.status)") }
        guard finished.status == 0 else { return .failed(reason: "the fetch command exited with status \(finished.status)") }
        let text = String(decoding: finished.output, as: UTF8.self)
        let lastLine = text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        return FetchResult(line: lastLine)
    }

    /// Signals the shell and the commands it started (its process group, when it leads one).
    private static func signalTree(_ pid: Int32, _ signal: Int32) {
        // The shell's children, when it did not exec them (dash forks for compound commands);
        // read first: once the shell is gone, so is the list.
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        _ = kill(-pid, signal)
        _ = kill(pid, signal)
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { _ = kill(child, signal) }
    }
}
