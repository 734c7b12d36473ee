import SilentPushCore

/// What a wake hands the app's fetch handler: the push delivered and the pushes
/// coalesced into it.
public struct Wake: Sendable, Equatable {
    /// The wake's id, as the admin API reports it.
    public var id: UInt64
    /// The device woken.
    public var deviceToken: String
    /// The woken app's topic.
    public var topic: String
    /// The delivered push's `apns-id`.
    public var apnsID: String
    /// The delivered push's payload, as sent.
    public var payload: [UInt8]
    /// `apns-priority` of the delivered push.
    public var priority: APNsPriority
    /// The `apns-id`s of the pushes it replaced in the app's slot, oldest first.
    public var coalescedAPNsIDs: [String]
    /// When the wake started, on the device clock.
    public var startedAt: DeviceInstant
    /// Past it, on the device clock, the handler is cancelled.
    public var deadline: DeviceInstant
    /// The time the handler has: from the start to the deadline (about 30 s on iOS).
    public var timeLimit: Duration { startedAt.duration(to: deadline) }

    /// A wake.
    public init(
        id: UInt64, deviceToken: String, topic: String, apnsID: String, payload: [UInt8], priority: APNsPriority,
        coalescedAPNsIDs: [String], startedAt: DeviceInstant, deadline: DeviceInstant
    ) {
        self.id = id
        self.deviceToken = deviceToken
        self.topic = topic
        self.apnsID = apnsID
        self.payload = payload
        self.priority = priority
        self.coalescedAPNsIDs = coalescedAPNsIDs
        self.startedAt = startedAt
        self.deadline = deadline
    }
}

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
