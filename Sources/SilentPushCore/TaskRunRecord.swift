/// One run of a background task.
public struct TaskRunRecord: Sendable, Equatable {
    /// The run's id, as the admin API's `/v1/task-runs` reports it.
    public var id: UInt64
    /// The task request it launched for.
    public var requestID: UInt64
    /// The device the app is on.
    public var deviceToken: String
    /// The app's topic.
    public var topic: String
    /// The task identifier the request was submitted with.
    public var identifier: String
    /// The request's kind (`urlSession` for a relaunch).
    public var kind: BackgroundTaskKind
    /// When it started, on the device clock.
    public var startedAt: DeviceInstant
    /// When its expiration handler is due; nil for a continued task.
    public var deadline: DeviceInstant?
    /// Launched by `simulate-launch`.
    public var simulated: Bool
    /// When its expiration handler was called, if it was.
    public var expiredAt: DeviceInstant?
    /// When it ended; nil while it runs.
    public var finishedAt: DeviceInstant?
    /// nil while it runs.
    public var outcome: TaskOutcome?
    /// A continued task's last progress report.
    public var progressCompleted: Int64
    /// The units that report counts `progressCompleted` out of (0 until one comes).
    public var progressTotal: Int64
    /// What killed the app, when `outcome` is `killed` (nil for a run a store of an older
    /// version recorded killed).
    public var killedBy: AppKill?

    /// A record.
    public init(
        id: UInt64, requestID: UInt64, deviceToken: String, topic: String, identifier: String, kind: BackgroundTaskKind,
        startedAt: DeviceInstant, deadline: DeviceInstant?, simulated: Bool, expiredAt: DeviceInstant? = nil, finishedAt: DeviceInstant? = nil,
        outcome: TaskOutcome? = nil, progressCompleted: Int64 = 0, progressTotal: Int64 = 0, killedBy: AppKill? = nil
    ) {
        self.id = id
        self.requestID = requestID
        self.deviceToken = deviceToken
        self.topic = topic
        self.identifier = identifier
        self.kind = kind
        self.startedAt = startedAt
        self.deadline = deadline
        self.simulated = simulated
        self.expiredAt = expiredAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.progressCompleted = progressCompleted
        self.progressTotal = progressTotal
        self.killedBy = killedBy
    }
}
