import CoreMetrics
import Logging
import ServiceLifecycle
import SilentPushCore
import SilentPushStore

/// Keeps the store within its retention (`--retain`, `--retain-pushes`): a pass every
/// ``interval`` prunes in batches of ``batch`` pushes, each its own short transaction on the
/// store's writer, so the group commit waits for one batch at most; then incremental vacuum
/// gives the freed pages back, a few at a time. With no limit (`keepEverything`) it prunes no
/// record, but still deletes what no record names: superseded fetched bodies, each pass, and
/// unnamed bodies and transfer files, hourly.
final class StorePruner: Service, Sendable {
    /// Pushes (and task runs and requests) per transaction.
    static let batch = 256
    /// Pages per incremental-vacuum step (1 MiB of 4 KiB pages).
    static let vacuumPages = 256
    /// Pause between batches, so commits queued meanwhile go first.
    static let pause = Duration.milliseconds(1)

    private let store: PushStore
    private let retention: ReceiverConfiguration.Retention
    private let now: @Sendable () -> DeviceInstant
    /// What the device holds, kept whatever its age: pushes (`DeviceRecorder.retainedPushes`)
    /// and the broadcasts its channels keep (`retainedBroadcasts`, by record id); and
    /// the first push id not yet stepped when they were read: pushes from it on are not
    /// examined in this pass.
    private let held: @Sendable () -> (pushes: Set<UInt64>, broadcasts: Set<UInt64>, unsteppedFrom: Int64?)
    /// Deletes what the device kept for transfers whose records were pruned.
    private let removeTransferFiles: @Sendable ([TransferRecord]) async -> Void
    /// Deletes the transfers' files no record names any more; returns how many went (nil:
    /// the records could not be read).
    private let sweepTransferFiles: @Sendable () async -> Int?
    /// Forgets, in the device's memory, the Live Activities dismissed before the cutoff.
    private let forgetDismissedActivities: @Sendable (DeviceInstant) -> Void
    private let interval: Duration
    private let logger: Logger
    private let pruned: [String: Counter]
    private let batchDuration: CoreMetrics.Timer

    init(
        store: PushStore, retention: ReceiverConfiguration.Retention, interval: Duration = .seconds(10),
        now: @escaping @Sendable () -> DeviceInstant,
        held: @escaping @Sendable () -> (pushes: Set<UInt64>, broadcasts: Set<UInt64>, unsteppedFrom: Int64?),
        removeTransferFiles: @escaping @Sendable ([TransferRecord]) async -> Void = { _ in },
        forgetDismissedActivities: @escaping @Sendable (DeviceInstant) -> Void = { _ in },
        sweepTransferFiles: @escaping @Sendable () async -> Int? = { 0 }, metrics: any MetricsFactory, logger: Logger
    ) {
        self.sweepTransferFiles = sweepTransferFiles
        self.held = held
        self.removeTransferFiles = removeTransferFiles
        self.forgetDismissedActivities = forgetDismissedActivities
        self.store = store
        self.retention = retention
        self.interval = interval
        self.now = now
        self.logger = logger
        pruned = Dictionary(
            uniqueKeysWithValues: [
                "pushes", "wakes", "task_runs", "task_requests", "broadcasts", "activities", "activity_updates", "transfers",
                "content_bodies",
            ].map {
                ($0, Counter(label: "silentpush_store_pruned_total", dimensions: [("table", $0)], factory: metrics))
            })
        batchDuration = CoreMetrics.Timer(label: "silentpush_store_prune_batch_seconds", dimensions: [], factory: metrics)
    }

    /// Passes until graceful shutdown; a store that fails is logged and tried again next pass.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            // The first sweeps at start-up: what a previous run left.
            var nextSweeps = (bodies: ContinuousClock.now, files: ContinuousClock.now)
            // Said once at warning until a pass succeeds again (each pass of an outage at debug).
            var failing = false
            while !Task.isCancelled {
                do {
                    _ = try await self.pass()
                    failing = false
                } catch is CancellationError {
                    return
                } catch {
                    // A pass the stop cut short (the store closed under it when the receiver
                    // failed as it started) is no failure to report.
                    if Task.isCancelled { return }
                    self.logger.log(
                        level: failing ? .debug : .warning, "cannot prune the store", metadata: ["error": "\(PushStore.describe(error))"])
                    failing = true
                }
                // Each due again an hour after it succeeded; after a failure, the next pass.
                let now = ContinuousClock.now
                if now >= nextSweeps.bodies, await self.sweepBodies(quietly: failing) { nextSweeps.bodies = now + Self.sweepInterval }
                if now >= nextSweeps.files, await self.sweepFiles() { nextSweeps.files = now + Self.sweepInterval }
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    /// How often every fetched body (`PushStore.dropUnnamedContents`) and every transfer file
    /// is looked at: the sweep reads all their names.
    static let sweepInterval = Duration.seconds(3600)

    /// Deletes the fetched bodies and the transfers' files no record names, whoever left them
    /// (a previous run, a cluster peer). Returns whether both parts succeeded.
    func sweep() async -> Bool {
        let bodies = await sweepBodies()
        let files = await sweepFiles()
        return bodies && files
    }

    /// Deletes the fetched bodies no content row names; returns whether it could. `quietly`
    /// (the pass failed already, and said so): a failure is logged at debug.
    func sweepBodies(quietly: Bool = false) async -> Bool {
        do {
            let dropped = try await store.dropUnnamedContents()
            if dropped > 0 { pruned["content_bodies"]?.increment(by: Int64(dropped)) }
            return true
        } catch {
            if !(error is CancellationError) {
                logger.log(
                    level: quietly ? .debug : .warning, "cannot sweep the fetched bodies", metadata: ["error": "\(PushStore.describe(error))"])
            }
            return false
        }
    }

    /// Deletes the transfers' files no record names; returns whether it could.
    func sweepFiles() async -> Bool {
        guard let swept = await sweepTransferFiles() else { return false }
        if swept > 0 { logger.debug("swept the transfers' files no record names", metadata: ["files": "\(swept)"]) }
        return true
    }

    /// Prunes the records past a limit (none without one) and the superseded bodies, then
    /// vacuums; returns what went.
    func pass() async throws -> PushStore.Pruned {
        var total = PushStore.Pruned()
        if retention.maximumAge != nil || retention.maximumPushes != nil { try await pruneRecords(into: &total) }
        total.contentBodies = try await store.dropSupersededContents()
        if total.contentBodies > 0 { pruned["content_bodies"]?.increment(by: Int64(total.contentBodies)) }
        if total.total > 0 {
            while try await store.vacuumIncrementally(pages: Self.vacuumPages) > 0 {
                try await Task.sleep(for: Self.pause)
            }
            await store.checkpointAndTruncate()
            logger.debug(
                "pruned the store",
                metadata: [
                    "pushes": "\(total.pushes)", "wakes": "\(total.wakes)", "task_runs": "\(total.taskRuns)",
                    "task_requests": "\(total.taskRequests)", "broadcasts": "\(total.broadcasts)", "activities": "\(total.activities)",
                    "activity_updates": "\(total.activityUpdates)", "transfers": "\(total.transfers.count)",
                    "content_bodies": "\(total.contentBodies)",
                ])
        }
        return total
    }

    /// Prunes the records past a limit, batch by batch until nothing more goes, into `total`.
    private func pruneRecords(into total: inout PushStore.Pruned) async throws {
        // Read once a pass: a push replaced meanwhile is pruned by the next, one that arrives
        // meanwhile is not examined before it.
        let (held, keptBroadcasts, unsteppedFrom) = held()
        var after: Int64 = 0
        // The store prunes dismissed activities by age; the device's memory keeps no more.
        if let age = retention.maximumAge {
            let at = now().millisecondsSinceEpoch
            forgetDismissedActivities(DeviceInstant(millisecondsSinceEpoch: at - min(age.nanosecondCount / 1_000_000, at)))
        }
        while true {
            let at = now().millisecondsSinceEpoch
            let cutoff = retention.maximumAge.map { at - min($0.nanosecondCount / 1_000_000, at) }
            let started = ContinuousClock.now
            let batch = try await store.prune(
                olderThan: cutoff, maximumCount: retention.maximumPushes, held: held, keptBroadcasts: keptBroadcasts, before: unsteppedFrom,
                after: after, batch: Self.batch)
            after = batch.lastExamined
            batchDuration.recordNanoseconds((ContinuousClock.now - started).nanosecondCount)
            total.pushes += batch.pushes
            total.wakes += batch.wakes
            total.taskRuns += batch.taskRuns
            total.taskRequests += batch.taskRequests
            total.broadcasts += batch.broadcasts
            total.activities += batch.activities
            total.activityUpdates += batch.activityUpdates
            total.transfers += batch.transfers
            if !batch.transfers.isEmpty { await removeTransferFiles(batch.transfers) }
            for (table, count) in [
                ("pushes", batch.pushes), ("wakes", batch.wakes), ("task_runs", batch.taskRuns), ("task_requests", batch.taskRequests),
                ("broadcasts", batch.broadcasts), ("activities", batch.activities), ("activity_updates", batch.activityUpdates),
                ("transfers", batch.transfers.count),
            ]
            where count > 0 {
                pruned[table]?.increment(by: Int64(count))
            }
            guard
                batch.examined == Self.batch || batch.taskRuns == Self.batch || batch.taskRequests == Self.batch
                    || batch.broadcasts == Self.batch || batch.activities == Self.batch || batch.activityUpdates == Self.batch
                    || batch.transfers.count == Self.batch
            else { break }
            try await Task.sleep(for: Self.pause)
        }
    }
}
