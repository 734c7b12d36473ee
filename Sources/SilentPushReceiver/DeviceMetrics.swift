import CoreMetrics
import SilentPushCore
import SilentPushStore

/// The device side's metrics (swift-metrics; `silentpushd` exports them at the admin API's
/// `GET /metrics`). Labels are bounded sets — results, fates, Apple's reasons, drop reasons —
/// never a device token or an apns-id. Counters start at zero with each process.
final class DeviceMetrics: Sendable {
    private let factory: any MetricsFactory
    private let accepted: Counter
    private let fetchResults: [FetchResult.Kind: Counter]
    /// Pushes by final fate: delivered, coalesced (into a wake), expired. One counter each,
    /// not a dictionary looked up by name: the step of every push that replaces one counts.
    private let delivered: Counter
    private let coalesced: Counter
    private let expired: Counter
    private let fetchDuration: CoreMetrics.Timer
    private let wakesStarted: Counter
    private let pendingSlots: Gauge
    private let taskRunsStarted: Counter
    private let taskOutcomes: [TaskOutcome: Counter]
    private let timerWakeups: Counter
    private let reloads: [WakeKind: Counter]
    private let transfersHandedOver: Counter
    private let transferEnds: [TransferRecord.State: Counter]
    private let transferBytes: Counter

    /// Metrics made by `factory` (each receiver has its own registry, so in-process tests
    /// never share one).
    init(factory: any MetricsFactory) {
        self.factory = factory
        accepted = Counter(label: "silentpush_pushes_accepted_total", dimensions: [], factory: factory)
        fetchResults = Dictionary(
            uniqueKeysWithValues: [FetchResult.Kind.newData, .noData, .failed, .deadlineExceeded].map {
                ($0, Counter(label: "silentpush_fetch_results_total", dimensions: [("result", $0.rawValue)], factory: factory))
            })
        (delivered, coalesced, expired) = (
            Counter(label: "silentpush_push_fates_total", dimensions: [("fate", PushFate.Kind.delivered.rawValue)], factory: factory),
            Counter(label: "silentpush_push_fates_total", dimensions: [("fate", PushFate.Kind.coalesced.rawValue)], factory: factory),
            Counter(label: "silentpush_push_fates_total", dimensions: [("fate", PushFate.Kind.expired.rawValue)], factory: factory)
        )
        fetchDuration = CoreMetrics.Timer(label: "silentpush_fetch_duration_seconds", dimensions: [], factory: factory)
        wakesStarted = Counter(label: "silentpush_wakes_started_total", dimensions: [], factory: factory)
        pendingSlots = Gauge(label: "silentpush_pending_slots", dimensions: [], factory: factory)
        taskRunsStarted = Counter(label: "silentpush_task_runs_started_total", dimensions: [], factory: factory)
        timerWakeups = Counter(label: "silentpush_device_timer_wakeups_total", dimensions: [], factory: factory)
        reloads = Dictionary(
            uniqueKeysWithValues: [WakeKind.widgets, .controls].map {
                ($0, Counter(label: "silentpush_reloads_total", dimensions: [("kind", $0.rawValue)], factory: factory))
            })
        transfersHandedOver = Counter(label: "silentpush_transfers_handed_over_total", dimensions: [], factory: factory)
        transferEnds = Dictionary(
            uniqueKeysWithValues: [TransferRecord.State.done, .failed, .cancelled].map {
                ($0, Counter(label: "silentpush_transfers_ended_total", dimensions: [("state", $0.rawValue)], factory: factory))
            })
        transferBytes = Counter(label: "silentpush_transfer_bytes_total", dimensions: [], factory: factory)
        taskOutcomes = Dictionary(
            uniqueKeysWithValues: TaskOutcome.allCases.map {
                ($0, Counter(label: "silentpush_task_outcomes_total", dimensions: [("outcome", $0.rawValue)], factory: factory))
            })
    }

    /// The system-clock timer woke up: a deadline came, an earlier one was armed, or a second
    /// passed with one armed. More than that means the timer spins.
    func timerWokeUp() { timerWakeups.increment() }

    /// A fault rule applied `action` (counted by kind: reason, goaway, reset, delay).
    func faultApplied(_ action: FaultAction) {
        let kind =
            switch action {
            case .reason: "reason"
            case .goAway: "goaway"
            case .reset: "reset"
            case .delay: "delay"
            }
        Counter(label: "silentpush_faults_injected_total", dimensions: [("action", kind)], factory: factory).increment()
    }

    /// A wake's handler ran for `duration` (real time). Its result is counted by the step
    /// that recorded it (`Events.wakesEnded`), at its deadline when the handler overran.
    func handlerRan(_ duration: Duration) {
        fetchDuration.recordNanoseconds(duration.nanosecondCount)
    }

    func accepted(_ count: Int = 1) { accepted.increment(by: count) }

    /// A try of a background transfer received `bytes` of its origin's answer over the
    /// network (a resumed try only the rest, a 304 none).
    func transferred(bytes: Int64) {
        if bytes > 0 { transferBytes.increment(by: Int(clamping: bytes)) }
    }

    /// APNs refused a push for `reason`.
    func rejected(_ reason: APNsReason) {
        Counter(label: "silentpush_pushes_rejected_total", dimensions: [("reason", reason.rawValue)], factory: factory).increment()
    }

    /// Pushes dropped for `reason` (a short fixed set: force-quit, refresh off, never wakes).
    func dropped(_ reason: DropReason, count: Int = 1) {
        guard count > 0 else { return }
        Counter(label: "silentpush_push_drops_total", dimensions: [("reason", reason.description)], factory: factory).increment(by: count)
    }

    /// Counts what one step of the device side did.
    func record(_ events: Events) {
        if events.wakesStarted > 0 { wakesStarted.increment(by: events.wakesStarted) }
        if events.delivered > 0 { delivered.increment(by: events.delivered) }
        if events.coalesced > 0 { coalesced.increment(by: events.coalesced) }
        if events.expired > 0 { expired.increment(by: events.expired) }
        for (reason, count) in events.dropped { dropped(reason, count: count) }
        if let slots = events.pendingSlots { pendingSlots.record(slots) }
        if events.taskRunsStarted > 0 { taskRunsStarted.increment(by: events.taskRunsStarted) }
        for outcome in events.taskOutcomes { taskOutcomes[outcome]?.increment() }
        for kind in events.reloads { reloads[kind]?.increment() }
        if events.transfersHandedOver > 0 { transfersHandedOver.increment(by: events.transfersHandedOver) }
        for state in events.transferEnds { transferEnds[state]?.increment() }
        for result in events.wakesEnded { fetchResults[result.countedAs]?.increment() }
    }

    /// What one step of the device side did, counted after its lock is released.
    struct Events {
        var wakesStarted = 0
        var delivered = 0
        var coalesced = 0
        var expired = 0
        var dropped: [(reason: DropReason, count: Int)] = []
        /// The pending-slots gauge's new value, when it moved.
        var pendingSlots: Int?
        var taskRunsStarted = 0
        /// Task runs and requests that ended, by outcome.
        var taskOutcomes: [TaskOutcome] = []
        /// Widget and control reloads, by kind.
        var reloads: [WakeKind] = []
        /// Background transfers handed over, and those that ended, by state.
        var transfersHandedOver = 0
        var transferEnds: [TransferRecord.State] = []
        /// Wakes whose result the step recorded while this process ran, by result (a
        /// restart's repair of wakes it found interrupted is not counted).
        var wakesEnded: [FetchResult] = []

        var isEmpty: Bool {
            wakesStarted == 0 && delivered == 0 && coalesced == 0 && expired == 0 && dropped.isEmpty && pendingSlots == nil
                && taskRunsStarted == 0 && taskOutcomes.isEmpty && reloads.isEmpty && transfersHandedOver == 0 && transferEnds.isEmpty
                && wakesEnded.isEmpty
        }

        /// Adds what a later step did (a restart's many steps, counted as one).
        mutating func add(_ later: Events) {
            wakesStarted += later.wakesStarted
            delivered += later.delivered
            coalesced += later.coalesced
            expired += later.expired
            dropped += later.dropped
            pendingSlots = later.pendingSlots ?? pendingSlots
            taskRunsStarted += later.taskRunsStarted
            taskOutcomes += later.taskOutcomes
            reloads += later.reloads
            transfersHandedOver += later.transfersHandedOver
            transferEnds += later.transferEnds
            wakesEnded += later.wakesEnded
        }

        mutating func transferEnded(_ state: TransferRecord.State) {
            transferEnds.append(state)
        }

        mutating func reloaded(_ kind: WakeKind) {
            reloads.append(kind)
        }

        mutating func taskEnded(_ outcome: TaskOutcome) {
            taskOutcomes.append(outcome)
        }

        mutating func dropped(_ reason: DropReason, count: Int = 1) {
            dropped.append((reason, count))
        }
    }
}
