import Foundation
import SilentPushCore
import SilentPushTransport
import Synchronization

/// One run of a shell command in a process group of its own: stdin given, stdout and stderr
/// collected (their tails), reaped when it ends. Cancelling the calling task sends SIGTERM to
/// the whole group, then SIGKILL after a grace; whatever the command left running in its
/// group when it ended is killed too, so no child outlives its wake and none is left a zombie.
/// It inherits none of the receiver's other descriptors: a handler still running when the
/// receiver dies holds neither its ports nor its store's session (a cluster's shards). Nor
/// does it outlive the receiver: a watcher the receiver starts in its group
/// (`ProcessSpawner.spawnWatcher`) kills the group once the receiver is gone, however it
/// ended (`kill -9`, a crash).
struct ChildProcess {
    /// How it ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    struct Outcome {
        var termination: Termination
        /// The last `outputLimit` bytes written to stdout.
        var output: [UInt8]
        /// The last `errorLimit` bytes written to stderr.
        var errorOutput: [UInt8]
    }

    /// Bytes of stdout kept (its tail: the result is the last line).
    static let outputLimit = 64 * 1024
    /// Bytes of stderr kept.
    static let errorLimit = 4 * 1024

    /// Runs `/bin/sh -c command`.
    /// `onOutputLine` hears each line the command writes to stdout, as it is written. Cancelled,
    /// the group has `killGrace` between SIGTERM and SIGKILL, or less when `killGraceLimit` says
    /// so then (what is left of the receiver's shutdown grace).
    static func run(
        command: String, environment: [String: String], input: [UInt8], killGrace: Duration,
        killGraceLimit: (@Sendable () -> Duration?)? = nil, onOutputLine: (@Sendable (Substring) -> Void)? = nil
    ) async throws -> Outcome {
        let child = try ProcessSpawner.spawn(
            "/bin/sh", arguments: ["/bin/sh", "-c", command], environment: environment, ownProcessGroup: true, closingInherited: true)
        let watcher: ProcessSpawner.Watcher
        do {
            watcher = try ProcessSpawner.spawnWatcher(group: child.pid)
        } catch {
            // Not left running unwatched: stopped, reaped and closed.
            kill(-child.pid, SIGKILL)
            kill(child.pid, SIGKILL)  // one that left its group already
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) < 0, errno == EINTR {}
            for fd in [child.stdin, child.stdout, child.stderr] { close(fd) }
            throw error
        }
        let control = Control()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                // Blocking I/O and waitpid belong on their own thread, not the cooperative pool.
                Thread.detachNewThread {
                    continuation.resume(
                        returning: child.collect(input: input, watcher: watcher, control: control, onOutputLine: onOutputLine))
                }
            }
        } onCancel: {
            guard !control.reaped.load(ordering: .acquiring) else { return }
            // The collecting thread sends SIGKILL once the grace is over (it polls every 50 ms).
            let grace = min(killGrace, killGraceLimit?() ?? killGrace)
            control.killAt.store(ChildProcess.monotonicNanoseconds() &+ max(0, grace.nanosecondCount), ordering: .releasing)
            kill(-child.pid, SIGTERM)
        }
    }

    /// The monotonic clock in nanoseconds, for a deadline shared through an atomic.
    static func monotonicNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
    }

    /// Shared by the caller and the collecting thread.
    final class Control: Sendable {
        /// Set once the child is reaped: its pid (and group id) may then be reused.
        let reaped = Atomic<Bool>(false)
        /// When to send SIGKILL (`monotonicNanoseconds()`), after a SIGTERM; 0: not asked to stop.
        let killAt = Atomic<Int64>(0)

        /// SIGKILLs the group if its grace after SIGTERM is over; returns whether it did.
        @discardableResult
        func killIfOverdue(_ pid: pid_t) -> Bool {
            let at = killAt.load(ordering: .acquiring)
            guard at != 0, ChildProcess.monotonicNanoseconds() >= at else { return false }
            kill(-pid, SIGKILL)
            return true
        }

        /// Whether the group was asked to stop (SIGTERM sent) and its grace is not over by
        /// more than `slack`: what it still runs is the handler, ending or being killed.
        func isStopping(slack: Int64 = 1_000_000_000) -> Bool {
            let at = killAt.load(ordering: .acquiring)
            return at != 0 && ChildProcess.monotonicNanoseconds() < at &+ slack
        }
    }
}

extension ChildProcess {
    /// The longest line handed over whole: any transfer line (its URL, file and session at
    /// their limits, every byte escaped) fits. A longer one is handed over as its first this
    /// many bytes, once its end is read (its tail is not read as a line of its own).
    static let lineLimit = 32 * 1024

    /// Calls `handler` for each line `bytes` ends (with what `partial` held of it), keeping
    /// the start of the next in `partial`: at most `lineLimit` bytes of any line.
    static func lines(_ bytes: ArraySlice<UInt8>, partial: inout [UInt8], to handler: (Substring) -> Void) {
        var rest = bytes
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            partial.append(contentsOf: rest[..<(newline ?? rest.endIndex)].prefix(max(0, lineLimit - partial.count)))
            guard let newline else { return }
            handler(Substring(String(decoding: partial, as: UTF8.self)))
            partial.removeAll(keepingCapacity: true)
            rest = rest[(newline + 1)...]
        }
    }
}
