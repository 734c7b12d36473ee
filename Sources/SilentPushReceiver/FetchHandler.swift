import SilentPushCore

/// The app's side of a wake: fetch content and say how it went. Task cancellation plays
/// iOS's expiration handler: at the deadline the task is cancelled, the wake is recorded
/// `failed` (`deadlineExceeded`) and whatever the handler returns later is ignored. The same
/// cancellation stops it when the device kills the app (a force-quit, a restart, the app
/// deleted): the wake is recorded `failed`, `killed: …`.
public protocol FetchHandler: Sendable {
    /// Runs one wake.
    func fetch(_ wake: Wake) async -> FetchResult

    /// The result each wake of `topic` ends with at once, for a handler with nothing to run
    /// (nil, the default: call `fetch`). The device side then ends the wake as it starts it,
    /// with no task and no read of its push.
    func immediateResult(topic: String) -> FetchResult?

    /// Runs one background task (BackgroundTasks framework): call
    /// `task.setTaskCompleted(success:)` when done. The default completes it at once, with
    /// success: an app with nothing to do in the background.
    func runTask(_ task: BackgroundTask) async
}

extension FetchHandler {
    /// By default nil: every wake calls `fetch`.
    public func immediateResult(topic: String) -> FetchResult? { nil }

    /// By default the task completes at once, with success.
    public func runTask(_ task: BackgroundTask) async {
        task.setTaskCompleted(success: true)
    }
}
