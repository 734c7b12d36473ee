import Foundation

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
public final class PeerProcess: @unchecked Sendable {
    private let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let lock = NSLock()
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    private let readers = DispatchGroup()

    /// Starts `program` (a path, or a name looked up in PATH) with `arguments`, writing
    /// `input` to its standard input and closing it.
    public init(_ program: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil) throws {
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let stdinPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        try process.run()
        for (pipe, isStdout) in [(stdoutPipe, true), (stderrPipe, false)] {
            readers.enter()
            Thread.detachNewThread { [self] in
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                lock.withLock {
                    if isStdout { stdoutBytes = Array(data) } else { stderrBytes = Array(data) }
                }
                readers.leave()
            }
        }
        Thread.detachNewThread {
            if !input.isEmpty { try? stdinPipe.fileHandleForWriting.write(contentsOf: Data(input)) }
            try? stdinPipe.fileHandleForWriting.close()
        }
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (e.g. SIGTERM).
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the exit, killing the process after `timeout`.
    public func wait(timeout: Duration = .seconds(60)) async -> PeerResult {
        let process = self.process
        let timedOut = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread.detachNewThread {
                let limit = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
                var killed = false
                while process.isRunning {
                    if Date() > limit {
                        process.terminate()
                        Thread.sleep(forTimeInterval: 0.5)
                        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                        killed = true
                        break
                    }
                    Thread.sleep(forTimeInterval: 0.005)
                }
                process.waitUntilExit()
                continuation.resume(returning: killed)
            }
        }
        readers.wait()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return lock.withLock {
            PeerResult(status: status, stdout: stdoutBytes, stderr: stderrBytes, timedOut: timedOut)
        }
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
