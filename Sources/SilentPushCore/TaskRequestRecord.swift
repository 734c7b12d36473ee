/// A background task request as stored: what the app submitted and where it stands.
public struct TaskRequestRecord: Sendable, Equatable {
    /// Where a request stands.
    public enum State: String, Sendable, CaseIterable {
        /// Waiting to run; ``TaskRequestRecord/why`` says what holds it.
        case pending
        /// It ran (see its run).
        case launched
        /// The app cancelled it.
        case cancelled
        /// A request with the same identifier replaced it.
        case replaced
    }

    /// Its request's id.
    public var id: UInt64 { request.id }
    /// The device the app is on.
    public var deviceToken: String
    /// The app's topic.
    public var topic: String
    /// What the app submitted.
    public var request: TaskRequest<DeviceInstant>
    /// When the app submitted it, on the device clock.
    public var submittedAt: DeviceInstant
    /// Where it stands now.
    public var state: State
    /// What holds a pending request, as the policy last said.
    public var why: WaitReason<DeviceInstant>?
    /// When it left `pending`.
    public var endedAt: DeviceInstant?

    /// A record.
    public init(
        deviceToken: String, topic: String, request: TaskRequest<DeviceInstant>, submittedAt: DeviceInstant, state: State = .pending,
        why: WaitReason<DeviceInstant>? = nil, endedAt: DeviceInstant? = nil
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.request = request
        self.submittedAt = submittedAt
        self.state = state
        self.why = why
        self.endedAt = endedAt
    }
}
