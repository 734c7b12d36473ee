/// A background task request as the policy keeps it (`BGTaskRequest` and its subclasses).
public struct TaskRequest<Instant: Sendable & Equatable>: Sendable, Equatable {
    /// What a continued task does when it cannot start at once.
    public enum Strategy: String, Sendable, CaseIterable {
        /// Wait until it can run.
        case queue
        /// Refuse the submission with `immediateRunIneligible`.
        case fail
    }

    /// The store's reference to the request.
    public var id: UInt64
    /// The task identifier, one of the app's permitted identifiers.
    public var identifier: String
    /// What kind of task it asks for (`urlSession`: the system's relaunch for a background session).
    public var kind: BackgroundTaskKind
    /// `earliestBeginDate`: not before this, and not necessarily at it.
    public var earliestBegin: Instant?
    /// Processing only: run only while the device is online.
    public var requiresNetworkConnectivity: Bool
    /// Processing only: run only while the device charges.
    public var requiresExternalPower: Bool
    /// Continued only.
    public var strategy: Strategy

    /// A request.
    public init(
        id: UInt64, identifier: String, kind: BackgroundTaskKind, earliestBegin: Instant? = nil, requiresNetworkConnectivity: Bool = false,
        requiresExternalPower: Bool = false, strategy: Strategy = .queue
    ) {
        self.id = id
        self.identifier = identifier
        self.kind = kind
        self.earliestBegin = earliestBegin
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
        self.requiresExternalPower = requiresExternalPower
        self.strategy = strategy
    }
}
