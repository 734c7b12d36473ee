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
    /// What the fetch handler reported (a failure with its reason); nil while it runs.
    public var result: FetchResult?
    /// Why it failed; nil unless it failed.
    public var reason: String? { result?.reason }

    /// A record.
    public init(
        id: UInt64, deviceToken: String, topic: String, pushID: UInt64, generation: UInt32, startedAt: Int64,
        deadline: Int64, finishedAt: Int64? = nil, result: FetchResult? = nil, apnsID: String? = nil
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
    }
}
