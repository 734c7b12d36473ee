import Foundation
import SilentPushCore
import Synchronization

/// One run of a shell command in a process group of its own: stdin given, stdout and stderr
/// collected (their tails), reaped when it ends. Cancelling the calling task sends SIGTERM to
/// the whole group, then SIGKILL after a grace; whatever the command left running in its
/// group when it ended is killed too, so no child outlives its wake and none is left a zombie.
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

    /// A command that could not be started (an errno from the system).
    enum SpawnError: Error, CustomStringConvertible {
        case pipe(Int32)
        case spawn(Int32)

        var description: String {
            switch self {
            case .pipe(let code): "cannot make a pipe: \(String(cString: strerror(code)))"
            case .spawn(let code): "cannot run /bin/sh: \(String(cString: strerror(code)))"
            }
        }
    }

    /// Runs `/bin/sh -c command`.
    static func run(command: String, environment: [String: String], input: [UInt8], killGrace: Duration) async throws -> Outcome {
        let child = try spawn(command: command, environment: environment)
        let control = Control()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                // Blocking I/O and waitpid belong on their own thread, not the cooperative pool.
                Thread.detachNewThread {
                    continuation.resume(returning: child.collect(input: input, control: control))
                }
            }
        } onCancel: {
            guard !control.reaped.load(ordering: .acquiring) else { return }
            // The collecting thread sends SIGKILL once the grace is over (it polls every 50 ms).
            control.killAt.store(ChildProcess.monotonicNanoseconds() &+ max(0, killGrace.nanosecondCount), ordering: .releasing)
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

        /// SIGKILLs the group if its grace after SIGTERM is over.
        func killIfOverdue(_ pid: pid_t) {
            let at = killAt.load(ordering: .acquiring)
            if at != 0, ChildProcess.monotonicNanoseconds() >= at { kill(-pid, SIGKILL) }
        }
    }

    struct Spawned: Sendable {
        let pid: pid_t
        let stdin: Int32
        let stdout: Int32
        let stderr: Int32
    }

    /// Held from making a child's pipes until it is spawned, so no other child of ours
    /// inherits them before they are marked close-on-exec (Glibc's module has no `pipe2`).
    private static let spawning = Mutex(())

    private static func spawn(command: String, environment: [String: String]) throws -> Spawned {
        try spawning.withLock { _ in try spawnLocked(command: command, environment: environment) }
    }

    private static func spawnLocked(command: String, environment: [String: String]) throws -> Spawned {
        var pipes: [Int32] = Array(repeating: -1, count: 6)
        for index in stride(from: 0, to: 6, by: 2) {
            let made = pipes.withUnsafeMutableBufferPointer { pipe($0.baseAddress! + index) }
            guard made == 0 else {
                let error = errno
                for fd in pipes where fd >= 0 { close(fd) }
                throw SpawnError.pipe(error)
            }
        }
        for fd in pipes { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (stdinRead, stdinWrite, stdoutRead, stdoutWrite, stderrRead, stderrWrite) = (pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5])
        defer {
            close(stdinRead)
            close(stdoutWrite)
            close(stderrWrite)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinRead, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutWrite, 1)
        posix_spawn_file_actions_adddup2(&actions, stderrWrite, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so the deadline reaches everything it starts; default
        // signal handling and mask, since the receiver ignores SIGPIPE and exec keeps that.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)

        let words: [String] = ["/bin/sh", "-c", command]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        var variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &arguments, &variables)
        guard spawned == 0 else {
            for fd in [stdinWrite, stdoutRead, stderrRead] { close(fd) }
            throw SpawnError.spawn(spawned)
        }
        return Spawned(pid: pid, stdin: stdinWrite, stdout: stdoutRead, stderr: stderrRead)
    }
}

extension ChildProcess.Spawned {
    /// Feeds stdin, reads stdout and stderr until the shell has exited, reaps it, kills
    /// what it left in its group and closes every descriptor.
    func collect(input: [UInt8], control: ChildProcess.Control) -> ChildProcess.Outcome {
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
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            // A background child may hold the pipes open after the shell is gone: once it
            // has exited, only what is already written is read.
            let ready = poll(&polled, nfds_t(polled.count), exited ? 0 : 50)
            if !exited { control.killIfOverdue(pid) }
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 {
                if exited { break }
                if waitpid(pid, &status, WNOHANG) == pid { exited = true }
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
                } else {
                    Self.appendTail(&errorOutput, buffer[0..<count], limit: ChildProcess.errorLimit)
                }
            }
        }
        // Its output is closed but it may still run: wait for it, killing it once overdue.
        while !exited {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno != EINTR) { break }
            control.killIfOverdue(pid)
            usleep(20_000)
        }
        control.reaped.store(true, ordering: .releasing)
        kill(-pid, SIGKILL)  // whatever it left running in its group
        close(stdout)
        close(stderr)
        let termination: ChildProcess.Termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        return ChildProcess.Outcome(termination: termination, output: output, errorOutput: errorOutput)
    }

    private static func appendTail(_ kept: inout [UInt8], _ bytes: ArraySlice<UInt8>, limit: Int) {
        kept.append(contentsOf: bytes)
        if kept.count > limit { kept.removeFirst(kept.count - limit) }
    }
}
