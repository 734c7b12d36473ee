#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SilentPushCore

/// What the tools ask of the operating system that differs between Linux and macOS, in one
/// place: the running binary's path, the inherited descriptors a child should not keep and
/// the open-file limit. Linux is tested; the macOS branches follow Darwin's documented calls.
package enum Platform {
    /// The running binary's real path (symbolic links resolved); nil when it cannot be known.
    package static var executablePath: String? {
        #if os(Linux)
        // The kernel's own answer, whatever argv[0] and PATH said.
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        guard let path = Bundle.main.executablePath else { return nil }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        #endif
    }

    /// The working directory, absolute.
    package static var workingDirectory: String {
        FileManager.default.currentDirectoryPath
    }

    /// Whether `path` names a file this process can read.
    package static func isReadableFile(_ path: String) -> Bool {
        FileManager.default.isReadableFile(atPath: path)
    }

    /// The development material for this binary, or nil (see `DevelopmentMaterial`).
    package static func developmentMaterial() -> DevelopmentMaterial? {
        DevelopmentMaterial.locate(executable: executablePath, workingDirectory: workingDirectory, isReadable: isReadableFile)
    }

    /// Adds to `actions` the closing of every descriptor from `lowest` on, however recently
    /// opened (glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which its Swift module
    /// does not declare); false where there is none, or it was refused: list
    /// `openDescriptors()` then.
    package static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let closeFrom = closeFromAction else { return false }
        return closeFrom(&actions, lowest) == 0
    }

    private static let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// What is left of process group `group`: nothing, only members that have exited and wait
    /// to be reaped (zombies: what a handler's dead shell left, which the system's init reaps
    /// when it gets to it, a second later in a container, or never), or a member that runs.
    /// `lastRunning`, a member seen running before, is looked at first, so a group that goes
    /// on running costs one read, not a walk of every process. Whatever procfs cannot show
    /// (no procfs, another PID namespace's, a member hidden from this user) counts as running.
    package static func processGroupState(_ group: pid_t, lastRunning: pid_t? = nil) -> ProcessGroupState {
        guard kill(-group, 0) == 0 else { return .empty }
        #if os(Linux)
        if let lastRunning, case .running(group)? = processState(lastRunning) { return .running(member: lastRunning) }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return .running(member: nil) }
        var seen = false
        for entry in entries where entry.utf8.first.map({ (0x30...0x39).contains($0) }) ?? false {
            guard let pid = pid_t(entry), let state = processState(pid) else { continue }  // gone meanwhile, or unreadable
            switch state {
            case .running(group): return .running(member: pid)
            case .exited(group): seen = true
            case .running, .exited: continue
            }
        }
        // The group has a member (the kill above found one) that no entry showed.
        return seen ? .exited : .running(member: nil)
        #else
        return .running(member: nil)
        #endif
    }

    #if os(Linux)
    private enum ProcessState {
        case running(group: pid_t)
        case exited(group: pid_t)
    }

    /// Process `pid`'s group, and whether it has exited, from `/proc/PID/stat` ("PID (COMM)
    /// STATE PPID PGRP …", read as bytes: COMM may hold spaces, parentheses and bytes that are
    /// not UTF-8); nil when it is gone or its line cannot be read (a member of the group the
    /// walk then misses counts as running there). A leader that exited while its other
    /// threads run is running.
    private static func processState(_ pid: pid_t) -> ProcessState? {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"), let close = stat.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 3)
        guard fields.count > 2, let state = fields[0].first, let group = pid_t(String(decoding: fields[2], as: UTF8.self)) else { return nil }
        guard state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") else { return .running(group: group) }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.count ?? 0
        return threads > 1 ? .running(group: group) : .exited(group: group)
    }
    #endif

    /// The descriptors this process has open (for a child to close what it inherits).
    package static func openDescriptors() -> [Int32] {
        #if os(Linux)
        let directory = "/proc/self/fd"
        #else
        let directory = "/dev/fd"
        #endif
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { Int32($0) }
    }

    /// The open-file limit (RLIMIT_NOFILE): soft and hard; nil when it cannot be read.
    package static func openFileLimit() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Sets the soft open-file limit to `soft`; returns whether it took.
    package static func setSoftOpenFileLimit(_ soft: UInt64) -> Bool {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return false }
        #if os(Linux)
        limit.rlim_cur = rlim_t(soft)
        #else
        // Darwin refuses a soft limit above OPEN_MAX, whatever the hard limit says.
        limit.rlim_cur = rlim_t(min(soft, UInt64(OPEN_MAX)))
        #endif
        return setrlimit(resourceNoFile, &limit) == 0
    }

    #if os(Linux)
    private static let resourceNoFile = Int32(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNoFile = RLIMIT_NOFILE
    #endif

    /// Where `developmentMaterial()` looked, for a message when it found nothing.
    package static var developmentMaterialSearched: String {
        DevelopmentMaterial.searched(executable: executablePath, workingDirectory: workingDirectory)
    }
}
