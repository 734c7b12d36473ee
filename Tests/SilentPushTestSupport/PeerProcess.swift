import Foundation
import SilentPushReceiver

/// What an external program did.
public struct PeerResult: Sendable {
    /// Exit status (or 128 + signal when it was killed).
    public var status: Int32
    /// Everything it wrote to standard output.
    public var stdout: [UInt8]
    /// Everything it wrote to standard error.
    public var stderr: [UInt8]
    /// Whether the time limit ended it.
    public var timedOut: Bool

    /// Standard output as text.
    public var output: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as text.
    public var errorOutput: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs independent peers (curl, nghttp, h2load, openssl, silentpushd itself) as real
/// processes, with a time limit, so live tests talk to the receiver the way users do.
///
/// Started by `ProcessSpawner` (not Foundation's `Process`, which crashed a test run), with
/// every other descriptor of the test process closed in the peer: a socket it held open
/// would keep a connection alive that a test expects to see closed.
public final class PeerProcess: @unchecked Sendable {
    /// The process id.
    public let pid: Int32
    private let lock = NSLock()
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    private var reaped: (status: Int32, timedOut: Bool)?
    private let readers = DispatchGroup()

    // A peer that exits before reading its input must not take the test runner with it.
    private static let ignoringSIGPIPE: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    /// Starts `program` (a path, or a name looked up in PATH) with `arguments`, writing
    /// `input` to its standard input and closing it.
    public init(_ program: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil) throws {
        Self.ignoringSIGPIPE
        let executable = program.contains("/") ? program : "/usr/bin/env"
        let words = program.contains("/") ? [program] + arguments : [executable, program] + arguments
        var variables = ProcessInfo.processInfo.environment
        if let environment { variables.merge(environment) { $1 } }

        let spawned = try ProcessSpawner.spawn(
            executable, arguments: words, environment: variables, ownProcessGroup: false, closingInherited: true)
        pid = spawned.pid
        let (stdinWrite, stdoutRead, stderrRead) = (spawned.stdin, spawned.stdout, spawned.stderr)

        for (fd, isStdout) in [(stdoutRead, true), (stderrRead, false)] {
            readers.enter()
            Thread.detachNewThread { [self] in
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                    if count > 0 {
                        bytes += buffer[0..<count]
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                close(fd)
                lock.withLock {
                    if isStdout { stdoutBytes = bytes } else { stderrBytes = bytes }
                }
                readers.leave()
            }
        }
        Thread.detachNewThread {
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(stdinWrite, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
            }
            close(stdinWrite)
        }
    }

    /// Sends `signal` (e.g. SIGTERM), unless the process was already reaped.
    public func signal(_ signal: Int32) {
        lock.withLock {
            if reaped == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits for the exit, killing the process after `timeout`.
    public func wait(timeout: Duration = .seconds(60)) async -> PeerResult {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<(status: Int32, timedOut: Bool), Never>) in
            Thread.detachNewThread { [self] in
                continuation.resume(returning: reap(timeout: timeout))
            }
        }
        readers.wait()
        return lock.withLock {
            PeerResult(status: outcome.status, stdout: stdoutBytes, stderr: stderrBytes, timedOut: outcome.timedOut)
        }
    }

    /// Polls for the exit; past `timeout`, SIGTERM, then SIGKILL half a second later.
    private func reap(timeout: Duration) -> (status: Int32, timedOut: Bool) {
        if let reaped = lock.withLock({ reaped }) { return reaped }
        let clock = ContinuousClock()
        let limit = clock.now.advanced(by: timeout)
        var killedAt: ContinuousClock.Instant?
        var status: Int32 = 0
        while true {
            let done = lock.withLock { () -> Bool in
                let result = waitpid(pid, &status, WNOHANG)
                guard result == pid || (result < 0 && errno != EINTR) else { return false }
                reaped = (Self.exitStatus(status), killedAt != nil)
                return true
            }
            if done { return lock.withLock { reaped! } }
            let now = clock.now
            if let killedAt {
                if now > killedAt.advanced(by: .milliseconds(500)) { _ = kill(pid, SIGKILL) }
            } else if now > limit {
                _ = kill(pid, SIGTERM)
                killedAt = now
            }
            usleep(5000)
        }
    }

    /// The exit code, or 128 + the signal that ended it.
    private static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Runs `program` to completion.
    public static func run(
        _ program: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> PeerResult {
        try await PeerProcess(program, arguments, input: input, environment: environment).wait(timeout: timeout)
    }

    /// Whether `program` is on PATH.
    public static func isInstalled(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }
}
