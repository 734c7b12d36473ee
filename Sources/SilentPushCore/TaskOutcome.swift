/// How a task request or run ended (raw values: the admin API's `outcome`).
public enum TaskOutcome: String, Sendable, CaseIterable {
    /// The handler called `setTaskCompleted(success: true)` in time.
    case completed
    /// The handler called `setTaskCompleted(success: false)` in time.
    case failed
    /// Time ran out, the expiration handler was called, and the task then completed.
    case expired
    /// The task never completed, even after its expiration handler: iOS terminated it, and
    /// the app's later launches are deferred.
    case terminated
    /// The receiver stopped while it ran (its shutdown grace ended first): nothing is
    /// deferred, and a relaunch for a `URLSession` runs again, with its files, at the next start.
    case interrupted
    /// The system killed the app while it ran (force-quit, device restart, app deleted): its
    /// handler was stopped, and nothing is deferred.
    case killed
    /// The app cancelled the request before it ran.
    case cancelled
    /// A request with the same identifier replaced it before it ran.
    case replaced

    /// How a run ends when its handler calls `setTaskCompleted(success:)`: `expired` once its
    /// expiration handler was called, else as the handler says.
    @inlinable package static func completion(success: Bool, expired: Bool) -> TaskOutcome {
        expired ? .expired : success ? .completed : .failed
    }
}
