import Foundation
import SilentPushTransport
import Synchronization

/// Starts a program through `posix_spawn` with its standard input, output and error on
/// pipes: what the exec fetch handler (`ChildProcess`) and SilentPush's own test peers share.
/// Foundation's `Process` is not used: on Linux its `run()` now and then reads past a buffer
/// while it lists `/proc/self/fd` (swift-corelibs-foundation #5472, Swift 6.3.1).
package enum ProcessSpawner {
    /// A started process and our ends of its pipes.
    package struct Spawned: Sendable {
        package let pid: pid_t
        package let stdin: Int32
        package let stdout: Int32
        package let stderr: Int32
    }

    /// A program that could not be started (an errno from the system).
    package enum SpawnError: Error, CustomStringConvertible {
        case pipe(Int32)
        case spawn(program: String, code: Int32)

        package var description: String {
            switch self {
            case .pipe(let code): "cannot make a pipe: \(String(cString: strerror(code)))"
            case .spawn(let program, let code): "cannot run \(program): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Held from making a child's pipes until it is spawned, so no other child of ours
    /// inherits them before they are marked close-on-exec (Glibc's module has no `pipe2`).
    private static let spawning = Mutex(())

    /// Runs `executable` with `arguments` (its `argv`, the name first) and exactly
    /// `environment`, SIGPIPE at its default and no signal blocked. With `ownProcessGroup`, it
    /// leads a group of its own, so a signal to the group reaches all it starts. With
    /// `closingInherited`, every other descriptor of this process is closed in the child,
    /// not only those marked close-on-exec.
    package static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], ownProcessGroup: Bool, closingInherited: Bool
    ) throws(SpawnError) -> Spawned {
        try spawning.withLock { _ throws(SpawnError) in
            try spawnLocked(
                executable, arguments: arguments, environment: environment, ownProcessGroup: ownProcessGroup,
                closingInherited: closingInherited)
        }
    }

    private static func spawnLocked(
        _ executable: String, arguments words: [String], environment: [String: String], ownProcessGroup: Bool, closingInherited: Bool
    ) throws(SpawnError) -> Spawned {
        var pipes: [Int32] = Array(repeating: -1, count: 6)
        for index in stride(from: 0, to: 6, by: 2) {
            let made = pipes.withUnsafeMutableBufferPointer { pipe($0.baseAddress! + index) }
            guard made == 0 else {
                let error = errno
                for fd in pipes where fd >= 0 { close(fd) }
                throw .pipe(error)
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
        if closingInherited { closeInherited(from: 3, keeping: [stdinRead, stdoutWrite, stderrWrite], in: &actions) }

        // The receiver ignores SIGPIPE, and exec keeps that; where the service lifecycle ignores
        // the stop signals it watches (Darwin), exec would keep that too.
        do throws(SpawnError) {
            let pid = try start(
                executable, words, environment: environment, actions: &actions, defaultSignals: [SIGPIPE, SIGHUP, SIGINT, SIGTERM],
                group: ownProcessGroup ? 0 : nil)
            return Spawned(pid: pid, stdin: stdinWrite, stdout: stdoutRead, stderr: stderrRead)
        } catch {
            for fd in [stdinWrite, stdoutRead, stderrRead] { close(fd) }
            throw error
        }
    }

    /// Adds to `actions` the closing of every descriptor from `lowest` on but `keeping`,
    /// however recently opened; else (an older glibc, or the action refused) of those open
    /// now, listed (glibc ignores a close of one another thread closed meanwhile).
    private static func closeInherited(from lowest: Int32, keeping: [Int32], in actions: inout posix_spawn_file_actions_t) {
        guard !Platform.closeDescriptors(from: lowest, in: &actions) else { return }
        for fd in Platform.openDescriptors() where fd >= lowest && !keeping.contains(fd) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// Runs `executable` with `words` (its `argv`, the name first) and exactly `environment`
    /// under `actions`: `defaultSignals` at their default handling, no signal blocked, and in
    /// process group `group` (0: a new one it leads; nil: ours). Returns its pid; a failure
    /// names it `program`.
    private static func start(
        _ executable: String, _ words: [String], environment: [String: String], actions: inout posix_spawn_file_actions_t,
        defaultSignals: [Int32], group: pid_t?, program: String? = nil
    ) throws(SpawnError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in defaultSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if let group {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, group)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        var variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &arguments, &variables)
        guard spawned == 0 else { throw .spawn(program: program ?? executable, code: spawned) }
        return pid
    }

    /// A watcher in process group `group` and our end of its lifeline.
    package struct Watcher: Sendable {
        package let pid: pid_t
        /// The write end of the lifeline, which only this process holds (close-on-exec).
        package let lifeline: Int32
    }

    /// The watcher's script: it reads its lifeline (descriptor 3) until end of file, which
    /// comes once every process holding the write end is gone, then kills its process group.
    static let watcherScript = "read -r _ <&3; kill -KILL 0"

    /// Starts a watcher in process group `group` (a child of ours that leads it, not reaped
    /// yet): it kills the group once this process is gone, however it ended (SIGKILL, a
    /// crash), since only this process holds its lifeline's write end. It is our child, so
    /// we reap it; the group's leader knows nothing of it. A signal to the group ends it too.
    package static func spawnWatcher(group: pid_t) throws(SpawnError) -> Watcher {
        try spawning.withLock { _ throws(SpawnError) in
            var ends: [Int32] = [-1, -1]
            guard ends.withUnsafeMutableBufferPointer({ pipe($0.baseAddress!) }) == 0 else { throw .pipe(errno) }
            // The read end moves above the descriptors the child's actions name, so its dup2
            // to 3 is never onto itself (which would keep it close-on-exec).
            let read = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
            close(ends[0])
            let write = ends[1]
            _ = fcntl(write, F_SETFD, FD_CLOEXEC)
            guard read >= 0 else {
                let error = errno
                close(write)
                throw .pipe(error)
            }
            defer { close(read) }

            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, read, 3)
            closeInherited(from: 4, keeping: [read], in: &actions)

            // SIGTERM too: a signal to the group ends the watcher, whatever the receiver ignores.
            do throws(SpawnError) {
                let pid = try start(
                    "/bin/sh", ["/bin/sh", "-c", watcherScript], environment: ["PATH": "/usr/bin:/bin"], actions: &actions,
                    defaultSignals: [SIGPIPE, SIGTERM], group: group, program: "/bin/sh (a handler's watcher)")
                return Watcher(pid: pid, lifeline: write)
            } catch {
                close(write)
                throw error
            }
        }
    }
}
