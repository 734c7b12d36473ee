import SilentPushCore

/// Which fetch handler an app gets: the default, or one per topic.
public enum FetchHandlerChoice: Sendable {
    /// Every wake ends at once with `noData` (an app with nothing to fetch).
    case noData
    /// `--fetch-exec`: a shell command per wake.
    case exec(String)
    /// `--fetch-url`: a content fetch from a URL template.
    case url(FetchURLTemplate)
    /// A handler of your own (an embedded receiver).
    case handler(any FetchHandler)

    /// A Swift closure as the handler; task cancellation is its expiration handler.
    public static func swift(_ body: @escaping @Sendable (Wake) async -> FetchResult) -> FetchHandlerChoice {
        .handler(ClosureFetchHandler(body))
    }

    /// A Swift closure as the handler, given what the device offers the wake: hand transfers
    /// to a background session with `context.startBackgroundTransfer(_:)`.
    public static func swift(_ body: @escaping @Sendable (Wake, FetchContext) async -> FetchResult) -> FetchHandlerChoice {
        .handler(ClosureFetchHandler(withContext: body))
    }

    /// Swift closures for wakes and for background tasks. A task's handler calls
    /// `setTaskCompleted(success:)`; on expiry its expiration handler is called and its Swift
    /// task cancelled.
    public static func swift(
        fetch: @escaping @Sendable (Wake) async -> FetchResult = { _ in .noData }, task: @escaping @Sendable (BackgroundTask) async -> Void
    ) -> FetchHandlerChoice {
        .handler(ClosureFetchHandler(fetch, task: task))
    }
}
