import Foundation
import GRDB
import SilentPushCore
import Synchronization

/// Why the store cannot be used; the description names the path and the fix.
package enum PushStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// SQLite could not open or migrate the file (or make its directory).
    case cannotOpen(path: String, reason: String)
    /// The lock file beside the store could not be opened or locked.
    case cannotLock(path: String, reason: String)
    /// Another process holds the store (`pid`, when the system says which).
    case inUse(path: String, pid: Int32?)
    /// The store was closed: nothing more is read or written.
    case closed
    /// The database's schema is newer than this version knows: an older receiver would
    /// misread it.
    case newerSchema(path: String, found: Int, supported: Int)
    /// PostgreSQL answered a batch's `COMMIT` with another command (a rollback): nothing of it
    /// was written.
    case notCommitted(String)
    /// A clustered store's writer session ended, and with it the claims on its shards:
    /// nothing is written until the receiver has let them go and joined again.
    case sessionEnded
    /// The cluster's store has `found` shards, and a receiver of it is running; this one was
    /// given `given`.
    case shardCountDiffers(path: String, found: Int, given: Int)
    /// A running cluster of `shards` shards shares the store: a receiver that stands alone
    /// cannot own it.
    case usedByCluster(path: String, shards: Int)
    /// The cluster's running receivers run on the manual clock (`runningManual`) or the
    /// system one, and this one on the other: a cluster has one clock.
    case clockDiffers(path: String, runningManual: Bool)
    /// `table` holds `id`, outside the ids a receiver gives out (1 up to 2^62): a row edited
    /// by hand, or a damaged store. Numbering on from it would overflow.
    case idOutOfRange(table: String, id: Int64)
    /// A running receiver of the cluster has this name (`--cluster-name`): the cluster's
    /// views and refusals would name two receivers alike.
    case clusterNameInUse(path: String, name: String)
    /// PostgreSQL refused a statement of a read or a write, saying `reason` (its message): a
    /// statement timeout, a full disk, a table changed by hand.
    case refused(reason: String)
    /// This receiver's session with PostgreSQL ended (a restart of the server, a network
    /// break) and another receiver owned the store before this one could take it back: what
    /// this one holds of its devices is no longer the store's, so it writes nothing more.
    case takenOver(path: String)
    /// The store had not answered `grace` after the receiver was told to stop (its shutdown
    /// grace and the store's allowance after it), so the receiver gave up on it (`abandon()`).
    case abandoned(after: Duration)
    /// PostgreSQL left a batch unanswered this long and did not say it was running it: the
    /// batch was given up (a server stopped, or a network gone silent).
    case unanswered(after: Duration)
    /// PostgreSQL left a request on a reader's session (a read, or a retention pass's
    /// change) unanswered this long and did not say it was running it: it was given up (a
    /// server stopped, or a network gone silent).
    case readUnanswered(after: Duration)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the store '\(path)': \(reason)"
        case .cannotLock(let path, let reason): "cannot lock the store '\(path)': \(reason)"
        case .inUse(let path, let pid):
            pid == getpid()
                ? "the store '\(path)' is open in this process already (another receiver here uses it); close that one first, or give this one another store"
                : "the store '\(path)' is in use by \(pid.map { "another process (pid \($0))" } ?? "another process"); stop it, or give this receiver another --store"
        case .closed: "the store is closed"
        case .newerSchema(let path, let found, let supported):
            "the store '\(path)' has schema version \(found), newer than this version's \(supported); run the newer silentpushd, or give this one another --store"
        case .notCommitted(let answer): "the store did not commit the write (PostgreSQL answered \(answer))"
        case .sessionEnded: "the store session that held this receiver's shards ended; it joins the cluster again"
        case .shardCountDiffers(let path, let found, let given):
            "the cluster on '\(path)' has \(found) shards and a receiver running; --cluster-shards \(given) differs (give every receiver the same count, or stop them all to change it)"
        case .usedByCluster(let path, let shards):
            "the store '\(path)' is used by a running cluster of \(shards) shards; give this receiver --cluster-shards \(shards) to join it, or another --store"
        case .clockDiffers(let path, let runningManual):
            "the cluster on '\(path)' has receivers running on the \(runningManual ? "manual" : "system") clock, and this one runs on the \(runningManual ? "system" : "manual") one (give every receiver the same --clock: a cluster has one clock)"
        case .idOutOfRange(let table, let id):
            "the store's table '\(table)' holds id \(id), outside the ids a receiver gives out (1 up to 2^62): a row edited by hand, or a damaged store; give this receiver another --store"
        case .clusterNameInUse(let path, let name):
            "a running receiver of the cluster on '\(path)' is named '\(name)' already; give each receiver its own --cluster-name"
        case .refused(let reason): "PostgreSQL refused it: \(reason)"
        case .abandoned(let grace):
            "the store did not answer within \(grace) of the stop, so the receiver stopped without writing what it recorded while stopping (every push answered 200 was written before its answer)"
        case .unanswered(let after):
            "PostgreSQL left a commit unanswered for \(after) and did not say it was running it (a server stopped, or a network gone silent)"
        case .readUnanswered(let after):
            "PostgreSQL left a read (or a retention pass) unanswered for \(after) and did not say it was running it (a server stopped, or a network gone silent)"
        case .takenOver(let path):
            "another receiver owned the store '\(path)' while this one's session with PostgreSQL was gone; this one writes nothing more, as what it held of its devices is no longer the store's (restart it once the other has stopped, or give it another --store)"
        }
    }
}
