import Foundation
import Logging
import SilentPushCore

/// `--fetch-exec "COMMAND"`: each wake runs COMMAND with `/bin/sh -c` in a process
/// group of its own, the payload JSON on its stdin and the wake in `SILENTPUSH_*` variables.
/// The last line it prints is the result (`newData`, `noData`, `failed [reason]`); anything
/// else, or a non-zero exit, is `failed`, with the exit status and the tail of its stderr as
/// the reason. At the deadline the whole group gets SIGTERM, then SIGKILL after `killGrace`
/// (when the receiver's shutdown grace ends, SIGKILL follows at once: the process exits within it).
///
/// A background task runs the same command with the task in `SILENTPUSH_TASK_*` variables and
/// its JSON on stdin. Exit 0 is `setTaskCompleted(success: true)`, another status `false`.
/// SIGTERM is the expiration handler: a command that then ends, by exiting or by the SIGTERM
/// itself, has completed late (expired); one still running after `taskKillGrace` is killed and
/// never completed (terminated). A
/// continued task reports progress with stdout lines `progress N/M`.
///
/// A wake's or a task's command hands transfers to a background session with stdout lines
/// `transfer {JSON}` (before its result line). A relaunch for a session's events (task kind
/// `urlSession`) gets `SILENTPUSH_SESSION` and `SILENTPUSH_FILES` (the files' paths, one per
/// line); exit 0 calls the completion handler. A file it does not move away is deleted.
public struct ExecFetchHandler: FetchHandler {
    /// The shell command.
    public var command: String
    /// How long a cancelled command has between SIGTERM and SIGKILL.
    public var killGrace: Duration
    /// How long an expired task's command has between SIGTERM and SIGKILL (the policy's
    /// `taskExpirationGrace`).
    public var taskKillGrace: Duration

    /// A handler running `command`.
    /// Where a task command's failure is said (its exit status and last line of stderr): the
    /// receiver's logger, at its level.
    public var logger: Logger

    /// A handler that runs `command` with `/bin/sh -c` for each wake and task run.
    public init(
        command: String, killGrace: Duration = .seconds(2), taskKillGrace: Duration = .seconds(5),
        logger: Logger = Logger(label: "silentpushd.device")
    ) {
        self.command = command
        self.killGrace = killGrace
        self.taskKillGrace = taskKillGrace
        self.logger = logger
        Self.ignoreBrokenPipes
    }

    /// A command that exits without reading its stdin must not kill the receiver.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The receiver's own environment as a command sees it: all of it but `PGPASSWORD`, the
    /// store's password, which a command could print into its wake's stderr record.
    package static var inheritedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key != "PGPASSWORD" }
    }

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

    /// The variables a task's command sees besides the receiver's own environment.
    public static func environment(of task: BackgroundTask) -> [String: String] {
        [
            "SILENTPUSH_TOKEN": task.deviceToken,
            "SILENTPUSH_TOPIC": task.topic,
            "SILENTPUSH_TASK_IDENTIFIER": task.identifier,
            "SILENTPUSH_TASK_KIND": task.kind.rawValue,
            "SILENTPUSH_TASK_RUN_ID": String(task.runID),
            "SILENTPUSH_TASK_DEADLINE": task.deadline.map { ISO8601Timestamp.string(millisecondsSinceEpoch: $0.millisecondsSinceEpoch) } ?? "",
            "SILENTPUSH_TASK_SIMULATED": task.simulated ? "1" : "0",
            "SILENTPUSH_SESSION": task.session ?? "",
            "SILENTPUSH_FILES": task.files.compactMap(\.path).joined(separator: "\n"),
        ]
    }

    /// `transfer {JSON}`: hands the transfer to `context`; true when the line was one.
    static func handOver(_ line: Substring, to context: FetchContext?) -> Bool {
        guard line.hasPrefix("transfer ") || line.hasPrefix("transfer\t") else { return false }
        _ = context?.startBackgroundTransfer(json: String(line.dropFirst("transfer ".count)))
        return true
    }

    public func runTask(_ task: BackgroundTask) async {
        // SIGTERM, on cancellation, is the command's expiration handler.
        task.expirationHandler = {}
        let outcome: ChildProcess.Outcome
        let context = task.context
        do {
            outcome = try await ChildProcess.run(
                command: command, environment: Self.inheritedEnvironment.merging(Self.environment(of: task)) { $1 },
                input: Array(task.json.rendered.utf8), killGrace: taskKillGrace, killGraceLimit: context?.shutdownGraceLeft
            ) { line in
                if let (completed, total) = Self.progress(line) { return task.updateProgress(completed: completed, total: total) }
                _ = Self.handOver(line, to: context)
            }
        } catch {
            return task.setTaskCompleted(success: false)
        }
        // A run's record says only failed: why, for the team reading the log (not an ending
        // its expiration asked for: that run is expired, as it should be; nor a stop the
        // device made, terminating or killing it, whose record says so).
        if outcome.termination != .exited(0), outcome.termination != .signaled(SIGKILL), !task.isExpired, !Task.isCancelled {
            logger.notice(
                "task handler failed: \(Self.result(of: outcome).reason ?? "")",
                metadata: ["task.run_id": "\(task.runID)", "task.identifier": "\(task.identifier)"])
        }
        switch outcome.termination {
        case .exited(let status): task.setTaskCompleted(success: status == 0)
        // Killed after its grace: it never completed, and the run is terminated.
        case .signaled(SIGKILL): break
        // It ended on a signal it did not handle: its SIGTERM (the expiration handler, so
        // the run has expired), or a crash (failed).
        case .signaled: task.setTaskCompleted(success: false)
        }
    }

    /// `progress N/M` (whole numbers, 0 ≤ N ≤ M): a continued task's progress.
    static func progress(_ line: Substring) -> (Int64, Int64)? {
        let words = line.split(separator: " ")
        guard words.count == 2, words[0] == "progress" else { return nil }
        let numbers = words[1].split(separator: "/")
        guard numbers.count == 2, let completed = Int64(numbers[0]), let total = Int64(numbers[1]), completed >= 0, total >= completed else {
            return nil
        }
        return (completed, total)
    }

    public func fetch(_ wake: Wake) async -> FetchResult {
        let outcome: ChildProcess.Outcome
        let context = FetchContext.current
        do {
            outcome = try await ChildProcess.run(
                command: command, environment: Self.inheritedEnvironment.merging(Self.environment(of: wake)) { $1 },
                input: wake.payload, killGrace: killGrace, killGraceLimit: context?.shutdownGraceLeft
            ) { line in _ = Self.handOver(line, to: context) }
        } catch {
            return .failed(reason: "cannot run the fetch command: \(error)")
        }
        // Whatever the result: an app team debugging its handler reads this with the wake.
        FetchErrorOutput.current?.record(outcome.errorOutput)
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
