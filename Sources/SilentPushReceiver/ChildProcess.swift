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

extension ProcessSpawner.Spawned {
    /// Feeds stdin, reads stdout and stderr until the shell has exited, reaps it, kills
    /// what it left in its group (`watcher` too, then reaped) and closes every descriptor.
    func collect(
        input: [UInt8], watcher: ProcessSpawner.Watcher, control: ChildProcess.Control, onOutputLine: (@Sendable (Substring) -> Void)? = nil
    ) -> ChildProcess.Outcome {
        // The payload (at most a few KiB) fits the pipe's buffer: this cannot block. A
        // command that never reads it gets EPIPE here, not SIGPIPE (the receiver ignores it).
        input.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(stdin, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        close(stdin)

        var output: [UInt8] = []
        var errorOutput: [UInt8] = []
        var open = [stdout, stderr]
        var status: Int32 = 0
        var exited = false
        var killed = false
        // Our child: reaped here by pid unless the group's reaping below took it first (its
        // pid is then free, and may be another child's).
        var watcherReaped = false
        // Seen empty while stopping: its id may then be a new group's, which is left alone.
        var groupGone = false
        // A member of the group seen running, looked at first the next time.
        var lastRunning: pid_t?
        func reapGroup() {
            var reaped: Int32 = 0
            while true {
                let found = waitpid(-pid, &reaped, WNOHANG)
                guard found > 0 else { return }
                if found == watcher.pid { watcherReaped = true }
            }
        }
        // The shell died on the SIGTERM sent to its group (its expiration, or a cancel), while
        // what it ran traps it: the handler goes on until its group is gone or is killed at the
        // grace (bounded, should a zombie linger), not only until the shell is gone.
        // Once the group is sent SIGKILL nothing in it runs: what is left are zombies, which
        // an init that reaps slowly (a container's) would keep for the rest of the bound.
        func handlerLives() -> Bool {
            guard exited, !killed, (status & 0x7f) != 0, control.isStopping() else { return false }
            // Its members this process inherited (it runs as PID 1, say) are reaped here; so is
            // the watcher, which the SIGTERM ended. A zombie left for the system's init (which
            // may take a second, or never, in a container) does not hold the handler past the
            // end it made; it keeps the group's id, so the group is still signalled below.
            reapGroup()
            switch Platform.processGroupState(pid, lastRunning: lastRunning) {
            case .empty:
                groupGone = true
                return false
            case .exited:
                reapGroup()  // one that exited since the reap above
                return false
            case .running(let member):
                lastRunning = member
                return true
            }
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var partialLine: [UInt8] = []
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            // A background child may hold the pipes open after the shell is gone: once it
            // has exited, only what is already written is read.
            let lives = handlerLives()
            let ready = poll(&polled, nfds_t(polled.count), exited && !lives ? 0 : 50)
            if !exited || lives { killed = control.killIfOverdue(pid) || killed }
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 {
                if exited, !lives { break }
                if !exited, waitpid(pid, &status, WNOHANG) == pid { exited = true }
                continue
            }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                if entry.fd == stdout {
                    Self.appendTail(&output, buffer[0..<count], limit: ChildProcess.outputLimit)
                    if let onOutputLine { ChildProcess.lines(buffer[0..<count], partial: &partialLine, to: onOutputLine) }
                } else {
                    Self.appendTail(&errorOutput, buffer[0..<count], limit: ChildProcess.errorLimit)
                }
            }
        }
        // Its output is closed but it may still run: wait for it, killing it once overdue.
        while !exited {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno != EINTR) {
                exited = true
                break
            }
            killed = control.killIfOverdue(pid) || killed
            usleep(20_000)
        }
        while handlerLives() {
            killed = control.killIfOverdue(pid) || killed
            usleep(20_000)
        }
        control.reaped.store(true, ordering: .releasing)
        if !groupGone { kill(-pid, SIGKILL) }  // whatever it left running in its group, the watcher too
        close(watcher.lifeline)
        if !watcherReaped {
            var ended: Int32 = 0
            while waitpid(watcher.pid, &ended, 0) < 0, errno == EINTR {}
        }
        // What it left, when this process inherits orphans (it runs as PID 1): reaped once
        // dead, for up to 100 ms; elsewhere the system's init reaps them.
        if !groupGone {
            reapGroup()
            if getpid() == 1 {
                for _ in 0..<50 where kill(-pid, 0) == 0 {
                    usleep(2_000)
                    reapGroup()
                }
            }
        }
        close(stdout)
        close(stderr)
        // Killed at the grace, the shell or what it ran: the handler never ended by itself.
        let termination: ChildProcess.Termination =
            killed ? .signaled(SIGKILL) : (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        return ChildProcess.Outcome(termination: termination, output: output, errorOutput: errorOutput)
    }

    private static func appendTail(_ kept: inout [UInt8], _ bytes: ArraySlice<UInt8>, limit: Int) {
        kept.append(contentsOf: bytes)
        if kept.count > limit { kept.removeFirst(kept.count - limit) }
    }
}

extension ChildProcess {
    /// The longest line handed over whole: any transfer line (its URL, file and session at
    /// their limits, every byte escaped) fits. A longer one is handed over as its first this
    /// many bytes, once its end is read; before, its head was dropped and its tail read as a
    /// line of its own.
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
