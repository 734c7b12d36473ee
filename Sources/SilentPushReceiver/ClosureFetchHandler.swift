import SilentPushCore

/// A fetch handler made of closures, for tests and embedders.
public struct ClosureFetchHandler: FetchHandler {
    private let body: @Sendable (Wake, FetchContext) async -> FetchResult
    private let task: (@Sendable (BackgroundTask) async -> Void)?

    /// A handler that runs `body` for each wake, and `task` for each background task (nil:
    /// each completes at once, with success).
    public init(_ body: @escaping @Sendable (Wake) async -> FetchResult, task: (@Sendable (BackgroundTask) async -> Void)? = nil) {
        self.body = { wake, _ in await body(wake) }
        self.task = task
    }

    /// A handler that runs `body` for each wake with what the device offers it (handing
    /// transfers to a background session), and `task` for each background task.
    public init(
        withContext body: @escaping @Sendable (Wake, FetchContext) async -> FetchResult, task: (@Sendable (BackgroundTask) async -> Void)? = nil
    ) {
        self.body = body
        self.task = task
    }

    /// Runs `body`; outside a device's wake its context refuses every transfer (`notRunning`).
    public func fetch(_ wake: Wake) async -> FetchResult {
        // Outside a device's wake (a test calling it directly) transfers are refused.
        let context =
            FetchContext.current
            ?? FetchContext { _ throws(TransferRefusal) in
                throw .notRunning
            } refuse: { _, _ in
            }
        return await body(wake, context)
    }

    /// Runs `task`; with none, the task completes at once, with success.
    public func runTask(_ task: BackgroundTask) async {
        guard let body = self.task else { return task.setTaskCompleted(success: true) }
        await body(task)
    }
}
