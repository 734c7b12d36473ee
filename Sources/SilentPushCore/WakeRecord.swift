/// A wake as stored, with its timings and result.
public struct WakeRecord: Sendable, Equatable {
    /// The wake's id, as the admin API reports it.
    public var id: UInt64
    /// The device woken.
    public var deviceToken: String
    /// The woken app's topic.
    public var topic: String
    /// What it ran: a fetch, or a widget or control reload (which starts and ends at once).
    public var kind: WakeKind
    /// The push it delivered.
    public var pushID: UInt64
    /// That push's `apns-id` (filled in by reads).
    public var apnsID: String?
    /// The app slot's generation the wake closed: pushes coalesced into it share the wake's fate.
    public var generation: UInt32
    /// When the wake started, on the device clock (stored to the millisecond).
    public var startedAt: DeviceInstant
    /// When its fetch handler is cancelled.
    public var deadline: DeviceInstant
    /// When its fetch handler answered, or was cancelled; nil while it runs.
    public var finishedAt: DeviceInstant?
    /// What the fetch handler reported (a failure with its reason); nil while it runs.
    public var result: FetchResult?
    /// Why it failed; nil unless it failed.
    public var reason: String? { result?.reason }
    /// What the fetch handler wrote to stderr (an exec handler's last 4 KB); nil for none.
    public var errorOutput: String?
    /// How long the fetch handler ran; nil while it runs.
    public var duration: Duration? { finishedAt.map { startedAt.duration(to: $0) } }

    /// A record.
    public init(
        id: UInt64, deviceToken: String, topic: String, pushID: UInt64, generation: UInt32, startedAt: DeviceInstant,
        deadline: DeviceInstant, finishedAt: DeviceInstant? = nil, result: FetchResult? = nil, apnsID: String? = nil,
        errorOutput: String? = nil, kind: WakeKind = .fetch
    ) {
        self.kind = kind
        self.apnsID = apnsID
        self.errorOutput = errorOutput
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
