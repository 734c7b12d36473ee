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
        /// The write end of its lifeline (`spawn`'s `lifeline`), which only this process holds;
        /// -1 when it has none.
        package var lifeline: Int32 = -1
    }

    /// The descriptor a child spawned with a lifeline reads it on: end of file there means
    /// the process that spawned it is gone (it never writes to it).
    package static let lifelineDescriptor: Int32 = 3

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
    /// not only those marked close-on-exec. With `lifeline`, the child also gets the read end
    /// of a pipe as `lifelineDescriptor`, whose write end (`Spawned.lifeline`) no other
    /// process holds: it reads end of file there once this process is gone, even by SIGKILL.
    package static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], ownProcessGroup: Bool, closingInherited: Bool,
        lifeline: Bool = false
    ) throws(SpawnError) -> Spawned {
        try spawning.withLock { _ throws(SpawnError) in
            try spawnLocked(
                executable, arguments: arguments, environment: environment, ownProcessGroup: ownProcessGroup,
                closingInherited: closingInherited, lifeline: lifeline)
        }
    }

    private static func spawnLocked(
        _ executable: String, arguments words: [String], environment: [String: String], ownProcessGroup: Bool, closingInherited: Bool,
        lifeline: Bool
    ) throws(SpawnError) -> Spawned {
        let count = lifeline ? 8 : 6
        var pipes: [Int32] = Array(repeating: -1, count: count)
        for index in stride(from: 0, to: count, by: 2) {
            let made = pipes.withUnsafeMutableBufferPointer { pipe($0.baseAddress! + index) }
            guard made == 0 else {
                let error = errno
                for fd in pipes where fd >= 0 { close(fd) }
                throw .pipe(error)
            }
        }
        for fd in pipes { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (stdinRead, stdinWrite, stdoutRead, stdoutWrite, stderrRead, stderrWrite) = (pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5])
        let (lifelineRead, lifelineWrite) = lifeline ? (pipes[6], pipes[7]) : (-1, -1)
        defer {
            close(stdinRead)
            close(stdoutWrite)
            close(stderrWrite)
            if lifelineRead >= 0 { close(lifelineRead) }
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinRead, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutWrite, 1)
        posix_spawn_file_actions_adddup2(&actions, stderrWrite, 2)
        if lifeline { posix_spawn_file_actions_adddup2(&actions, lifelineRead, lifelineDescriptor) }
        if closingInherited {
            // After the dup2s, every descriptor above them, however recently opened; else (an
            // older glibc, or the action refused) those open now, listed.
            let lowest: Int32 = lifeline ? lifelineDescriptor + 1 : 3
            if !Platform.closeDescriptors(from: lowest, in: &actions) {
                // glibc ignores a close of a descriptor that another thread closed meanwhile.
                for fd in Platform.openDescriptors() where fd >= lowest && ![stdinRead, stdoutWrite, stderrWrite, lifelineRead].contains(fd) {
                    posix_spawn_file_actions_addclose(&actions, fd)
                }
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling and mask: the receiver ignores SIGPIPE, and exec keeps that.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if ownProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        var variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &arguments, &variables)
        guard spawned == 0 else {
            for fd in [stdinWrite, stdoutRead, stderrRead, lifelineWrite] where fd >= 0 { close(fd) }
            throw .spawn(program: executable, code: spawned)
        }
        return Spawned(pid: pid, stdin: stdinWrite, stdout: stdoutRead, stderr: stderrRead, lifeline: lifelineWrite)
    }
}
