/// A task run the runtime must start: call the app's handler for `request`, and report back
/// with `taskCompleted`. At `deadline` the policy asks for the expiration handler.
public struct TaskStart<App: WakeApp, Instant: Sendable & Equatable>: Sendable, Equatable {
    /// Unique per policy.
    public var runID: UInt64
    /// The app whose task handler runs.
    public var app: App
    /// The request the run is for.
    public var request: TaskRequest<Instant>
    /// When the run starts.
    public var startedAt: Instant
    /// When the expiration handler is called; nil for a continued task, which runs until it
    /// ends or the device needs its resources.
    public var deadline: Instant?
    /// Launched by a debugger command (`simulate-launch`), not by the scheduler.
    public var simulated: Bool

    /// A run to start.
    public init(runID: UInt64, app: App, request: TaskRequest<Instant>, startedAt: Instant, deadline: Instant?, simulated: Bool) {
        self.runID = runID
        self.app = app
        self.request = request
        self.startedAt = startedAt
        self.deadline = deadline
        self.simulated = simulated
    }
}
