/// A wake the runtime must run: call the app's fetch handler with `push` and the pushes
/// coalesced into this slot generation, and report back before `deadline`.
public struct WakeStart<App: WakeApp, Instant: Sendable & Equatable>: Sendable, Equatable {
    /// Unique per policy.
    public var wakeID: UInt64
    /// The app woken.
    public var app: App
    /// The push delivered.
    public var push: UInt64
    /// The slot generation it closes: pushes coalesced in it ride this wake.
    public var generation: UInt32
    /// How many pushes were coalesced in that generation.
    public var coalescedCount: Int
    /// When the wake started.
    public var startedAt: Instant
    /// When the handler must have answered: past it, the handler is cancelled.
    public var deadline: Instant

    /// A wake to run.
    @inlinable public init(
        wakeID: UInt64, app: App, push: UInt64, generation: UInt32, coalescedCount: Int, startedAt: Instant, deadline: Instant
    ) {
        self.wakeID = wakeID
        self.app = app
        self.push = push
        self.generation = generation
        self.coalescedCount = coalescedCount
        self.startedAt = startedAt
        self.deadline = deadline
    }
}
