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
/// the second one must not start. POSIX locks belong to the process, so a process may open
/// its own store again (a restart in tests), and `F_GETLK` names the process holding it.
/// Because closing any descriptor of the file drops a POSIX lock, each path keeps one
/// descriptor per process, closed when the last store using it goes.
final class StoreLock: Sendable {
    let path: String

    private static let held = Mutex<[String: (descriptor: Int32, users: Int)]>([:])

    private init(path: String) {
        self.path = path
    }

    deinit {
        Self.held.withLock { held in
            guard var entry = held[path] else { return }
            entry.users -= 1
            if entry.users == 0 {
                close(entry.descriptor)
                held[path] = nil
            } else {
                held[path] = entry
            }
        }
    }

    /// Takes the lock beside `storePath`; throws naming the process that holds it.
    static func acquire(beside storePath: String) throws -> StoreLock {
        let path = URL(fileURLWithPath: storePath).standardizedFileURL.path + ".lock"
        try held.withLock { held in
            if var entry = held[path] {
                entry.users += 1
                held[path] = entry
                return
            }
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw PushStoreError.cannotLock(path: storePath, reason: "cannot open its lock file '\(path)': \(String(cString: strerror(errno)))")
            }
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
            held[path] = (descriptor, 1)
        }
        return StoreLock(path: path)
    }
}
