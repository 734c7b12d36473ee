/// What the runtime must do; the policy itself never sleeps or does I/O.
public enum WakeAction<App: WakeApp, Instant: Sendable & Equatable>: Sendable, Equatable {
    /// The push waits in its app's slot (generation `generation`), for `why`. Sent again,
    /// for the same push, when what holds it changes.
    case pending(push: UInt64, app: App, generation: UInt32, why: WaitReason<Instant>)
    /// The push was replaced in the slot; it rides whatever closes `generation`. `atAPNs`:
    /// replaced while the device was offline, in APNs's one-slot storage for the app.
    case coalesced(push: UInt64, app: App, generation: UInt32, atAPNs: Bool)
    /// Run a wake.
    case startWake(WakeStart<App, Instant>)
    /// The slot's push expired before a wake could deliver it; the generation is closed, and
    /// the `coalesced` pushes in it expire too. With no generation, the push expired as it
    /// arrived for an offline device (APNs stores no push already expired) and never took
    /// the slot: what waits there stays.
    case expired(push: UInt64, app: App, generation: UInt32?, coalesced: Int)
    /// The push never reaches the app. With a generation, it was waiting in the slot and
    /// the generation is closed: the `coalesced` pushes in it share its fate.
    case dropped(push: UInt64, app: App, reason: DropReason, generation: UInt32?, coalesced: Int)
    /// The wake's handler passed its deadline: cancel it; it failed with deadlineExceeded,
    /// and the app's next interval is doubled.
    case cancelWake(wakeID: UInt64, app: App)
    /// The system killed the app at `at` (`cause`) while the wake's handler ran: stop it; it
    /// failed, killed, and nothing is doubled.
    case killWake(wakeID: UInt64, app: App, cause: AppKill, at: Instant)
    /// The task request waits, for `why`. Sent again when what holds it changes.
    case taskPending(request: UInt64, app: App, why: WaitReason<Instant>)
    /// Run a task: call the app's task handler.
    case startTask(TaskStart<App, Instant>)
    /// The task's time is up (at `at`): call its expiration handler. It has
    /// `WakeSettings.taskExpirationGrace` to complete before it is terminated.
    case expireTask(runID: UInt64, app: App, at: Instant)
    /// Stop the task's handler: it never completed after its expiration handler, or the app
    /// was killed (its run ends `terminated` in the `.taskEnded` that follows, or `killed` in
    /// the `.taskKilled`).
    case terminateTask(runID: UInt64, app: App)
    /// The task's run ended so, at `at` (never `killed`: that is `.taskKilled`).
    case taskEnded(runID: UInt64, app: App, outcome: TaskOutcome, at: Instant)
    /// The system killed the app at `at` (`cause`) while the task ran: its run ends `killed`.
    case taskKilled(runID: UInt64, app: App, cause: AppKill, at: Instant)
    /// A pending request ended without running: cancelled, or replaced by a newer one.
    case taskRequestEnded(request: UInt64, app: App, outcome: TaskOutcome, at: Instant)
}
