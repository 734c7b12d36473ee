/// A wake as stored, with its timings and result.
public struct WakeRecord: Sendable, Equatable {
    public var id: UInt64
    public var deviceToken: String
    public var topic: String
    /// The push it delivered.
    public var pushID: UInt64
    /// That push's `apns-id` (filled in by reads).
    public var apnsID: String?
    public var generation: UInt32
    /// Device-clock ms.
    public var startedAt: Int64
    public var deadline: Int64
    public var finishedAt: Int64?
    /// newData, noData or failed; nil while running.
    public var result: String?
    public var reason: String?

    /// A record.
    public init(
        id: UInt64, deviceToken: String, topic: String, pushID: UInt64, generation: UInt32, startedAt: Int64,
        deadline: Int64, finishedAt: Int64? = nil, result: String? = nil, reason: String? = nil, apnsID: String? = nil
    ) {
        self.apnsID = apnsID
        self.id = id
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushID = pushID
        self.generation = generation
        self.startedAt = startedAt
        self.deadline = deadline
        self.finishedAt = finishedAt
        self.result = result
        self.reason = reason
    }
}
