import SilentPushCore
import SilentPushTransport

/// The process's open-file limit (RLIMIT_NOFILE). Every connection takes a descriptor, and
/// the usual soft limit of 1024 is far below what one receiver shared by many teams meets.
package enum FileDescriptorLimit {
    /// Descriptors kept for everything but HTTP/2 connections: the store (a writer, a
    /// checkpointer, readers, their WAL and shared-memory files), event loops, listeners,
    /// admin connections and log files.
    package static let reserved = 128

    /// Raises the soft limit to the hard limit; returns both limits as they are now (the
    /// soft one unchanged when it could not be raised).
    package static func raiseSoftLimit() -> (soft: UInt64, hard: UInt64, raisedFrom: UInt64?) {
        guard let before = Platform.openFileLimit() else { return (1024, 1024, nil) }
        guard before.soft < before.hard, Platform.setSoftOpenFileLimit(before.hard), let after = Platform.openFileLimit() else {
            return (before.soft, before.hard, nil)
        }
        return (after.soft, after.hard, before.soft)
    }

    /// The connections a receiver can serve at once under `soft` descriptors while every
    /// fetch slot may hold a child process's three pipes and its watcher's lifeline, or an
    /// HTTP connection.
    package static func maxConnections(soft: UInt64, maximumConcurrentFetches: Int) -> Int {
        let fetches = max(0, min(maximumConcurrentFetches, WakeSettings.fetchCapRange.upperBound))
        let available = Int(clamping: soft) - reserved - 4 * fetches
        return max(16, min(available, mostConnections))
    }

    /// The most connections a receiver serves at once, whatever the limit: `--max-connections`'s
    /// largest value too.
    package static let mostConnections = 1_000_000
}
