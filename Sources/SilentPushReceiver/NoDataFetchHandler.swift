import SilentPushCore

/// The handler of an app that has nothing to fetch: every wake ends at once with `noData`.
public struct NoDataFetchHandler: FetchHandler {
    /// The handler.
    public init() {}

    /// `noData`.
    public func fetch(_ wake: Wake) async -> FetchResult { .noData }

    /// `noData`, with no task: each wake would otherwise cost a task, a thread hop and the
    /// runtime's lock taken from another thread.
    public func immediateResult(topic: String) -> FetchResult? { .noData }
}
