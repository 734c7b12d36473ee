import Foundation
import SilentPushCore
import SilentPushTransport
import Synchronization

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
