#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SilentPushCore
import Synchronization

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

    /// Makes this process the one the orphans of its descendants go to (Linux's
    /// `PR_SET_CHILD_SUBREAPER`), as they go to PID 1: what an exec handler leaves when its
    /// shell dies is then reaped by the receiver at once, not whenever the system's init gets
    /// to it (a container's may take a second, or never). False where there is no such call.
    package static func adoptOrphans() -> Bool {
        #if os(Linux)
        // prctl is variadic in C, which Swift does not import; its integer arguments are
        // passed as a plain call's on Linux's ABIs.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return false }
        let prctl = unsafeBitCast(symbol, to: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32).self)
        let setChildSubreaper: Int32 = 36  // PR_SET_CHILD_SUBREAPER, <linux/prctl.h>
        guard prctl(setChildSubreaper, 1, 0, 0, 0) == 0 else { return false }
        adopting.store(true, ordering: .releasing)
        return true
        #else
        return false
        #endif
    }

    /// Whether the orphans of this process's descendants come to it: it runs as PID 1, or
    /// `adoptOrphans()` made it their reaper.
    package static var adoptsOrphans: Bool {
        getpid() == 1 || adopting.load(ordering: .acquiring)
    }

    private static let adopting = Atomic<Bool>(false)

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
