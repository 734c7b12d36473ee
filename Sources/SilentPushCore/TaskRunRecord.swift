/// One run of a background task.
public struct TaskRunRecord: Sendable, Equatable {
    public var id: UInt64
    public var requestID: UInt64
    public var deviceToken: String
    public var topic: String
    public var identifier: String
    public var kind: BackgroundTaskKind
    public var startedAt: DeviceInstant
    /// When its expiration handler is due; nil for a continued task.
    public var deadline: DeviceInstant?
    /// Launched by `simulate-launch`.
    public var simulated: Bool
    /// When its expiration handler was called, if it was.
    public var expiredAt: DeviceInstant?
    public var finishedAt: DeviceInstant?
    /// nil while it runs.
    public var outcome: TaskOutcome?
    /// A continued task's last progress report.
    public var progressCompleted: Int64
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
