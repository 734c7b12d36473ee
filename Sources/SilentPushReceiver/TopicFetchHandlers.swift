import SilentPushCore

/// Runs each wake with its topic's handler, or the default.
struct TopicFetchHandlers: FetchHandler {
    let byTopic: [String: any FetchHandler]
    let fallback: any FetchHandler

    func fetch(_ wake: Wake) async -> FetchResult {
        await (byTopic[wake.topic] ?? fallback).fetch(wake)
    }

    func immediateResult(topic: String) -> FetchResult? {
        (byTopic[topic] ?? fallback).immediateResult(topic: topic)
    }

    func runTask(_ task: BackgroundTask) async {
        await (byTopic[task.topic] ?? fallback).runTask(task)
    }
}
