import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One process per store file: a POSIX write lock on `<store>.lock`, beside it.
///
/// Two receivers writing one SQLite file answer most pushes 500 (UNIQUE constraint, busy):
/// the second one must not start, in another process or in this one. POSIX locks belong to
/// the process, so within it the lock is this table's: a lock file is held from `acquire`
/// until `release` (the store's close, or its end without one), and may then be taken again
/// (a restart in tests). The table keys the file by device and inode, so a path through a
/// symlink is the same file. `F_GETLK` names another process holding it. Because closing any
/// descriptor of the file drops a POSIX lock, each file keeps one descriptor, closed on release.
final class StoreLock: Sendable {
    let path: String
    private let file: FileID
    private let released = Atomic<Bool>(false)

    /// A file, whatever the path to it.
    private struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    private static let held = Mutex<[FileID: Int32]>([:])

    private init(path: String, file: FileID) {
        self.path = path
        self.file = file
    }

    deinit {
        release()
    }

    /// Lets the path go: another store in this process (or another process) may take it.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.held.withLock { held in
            guard let descriptor = held.removeValue(forKey: file) else { return }
            close(descriptor)
        }
    }

    /// Takes the lock beside `storePath`; throws naming the process that holds it.
    static func acquire(beside storePath: String) throws -> StoreLock {
        let path = URL(fileURLWithPath: storePath).standardizedFileURL.path + ".lock"
        let file = try held.withLock { held -> FileID in
            // Another store of this process has it open: found by `stat`, since opening and
            // closing a descriptor of the file would drop the lock this process holds on it.
            var existing = stat()
            if stat(path, &existing) == 0, held[FileID(existing)] != nil {
                throw PushStoreError.inUse(path: storePath, pid: getpid())
            }
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw PushStoreError.cannotLock(path: storePath, reason: "cannot open its lock file '\(path)': \(String(cString: strerror(errno)))")
            }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw PushStoreError.cannotLock(path: storePath, reason: "cannot read its lock file '\(path)': \(reason)")
            }
            let file = FileID(status)
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            if fcntl(descriptor, F_SETLK, &lock) != 0 {
                let reason = errno
                var holder = flock()
                holder.l_type = Int16(F_WRLCK)
                holder.l_whence = Int16(SEEK_SET)
                let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != Int16(F_UNLCK) ? holder.l_pid : 0
                close(descriptor)
                guard reason == EAGAIN || reason == EACCES else {
                    throw PushStoreError.cannotLock(path: storePath, reason: String(cString: strerror(reason)))
                }
                throw PushStoreError.inUse(path: storePath, pid: pid > 0 ? Int32(pid) : nil)
            }
            // For people and scripts: the pid of the holder, as in a pid file.
            let text = "\(getpid())\n"
            _ = ftruncate(descriptor, 0)
            _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
            held[file] = descriptor
            return file
        }
        return StoreLock(path: path, file: file)
    }
}
