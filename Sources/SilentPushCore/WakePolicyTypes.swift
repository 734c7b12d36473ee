/// An app on a device, the unit of the wake policy: a device and a topic.
public protocol WakeApp: Hashable, Sendable {
    associatedtype Device: Hashable & Sendable
    /// The device the app is on (its device token, or a compact id for it).
    var device: Device { get }
}

/// How long things take on the device (SPEC §4).
public struct WakeSettings: Sendable, Equatable {
    /// Two wakes of one app start at least this far apart (wake start to wake start).
    public var minimumInterval: Duration
    /// A fetch handler still running this long after its wake started is cancelled.
    public var deadline: Duration
    /// Fetches running at once across all devices; nil: no cap.
    public var maximumConcurrentFetches: Int?

    /// iOS-like defaults: 15 minutes between wakes, a 30 s deadline.
    public init(minimumInterval: Duration = .seconds(15 * 60), deadline: Duration = .seconds(30), maximumConcurrentFetches: Int? = 64) {
        self.minimumInterval = minimumInterval
        self.deadline = deadline
        self.maximumConcurrentFetches = maximumConcurrentFetches
    }

    /// The profile `fast`: 1 s between wakes, for tests that should not wait.
    public static let fast = WakeSettings(minimumInterval: .seconds(1))
}

/// A device's state (SPEC §4, §6), set through the admin API.
public struct DeviceState: Sendable, Equatable {
    /// The user force-quit the app: no wakes, pushes dropped until it is launched again.
    public var forceQuit: Bool
    /// Background App Refresh: off drops silent pushes.
    public var backgroundRefresh: Bool
    /// Low Power Mode defers priority-5 wakes.
    public var lowPowerMode: Bool
    /// At most this many wakes per rolling hour across the device's apps; nil: no budget.
    public var hourlyBudget: Int?

    /// A device as it comes: app running, refresh on, no Low Power Mode, no budget.
    public init(forceQuit: Bool = false, backgroundRefresh: Bool = true, lowPowerMode: Bool = false, hourlyBudget: Int? = nil) {
        self.forceQuit = forceQuit
        self.backgroundRefresh = backgroundRefresh
        self.lowPowerMode = lowPowerMode
        self.hourlyBudget = hourlyBudget
    }

    @inlinable var isDefault: Bool { self == DeviceState() }
}

/// A push as the policy sees it: a reference (the payload lives in the store), its
/// priority and when it stops being deliverable.
public struct IncomingPush<Instant: Sendable & Equatable>: Sendable, Equatable {
    /// The store's reference to the push.
    public var id: UInt64
    /// `apns-priority`.
    public var priority: APNsPriority
    /// When it expires on the device clock; nil: never. `apns-expiration: 0` is the
    /// arrival instant itself: delivered now or never.
    public var expiresAt: Instant?

    /// A push.
    public init(id: UInt64, priority: APNsPriority, expiresAt: Instant? = nil) {
        self.id = id
        self.priority = priority
        self.expiresAt = expiresAt
    }
}

/// A wake the runtime must run: call the app's fetch handler with `push` and the pushes
/// coalesced into this slot generation, and report back before `deadline`.
public struct WakeStart<App: WakeApp, Instant: Sendable & Equatable>: Sendable, Equatable {
    /// Unique per policy.
    public var wakeID: UInt64
    public var app: App
    /// The push delivered.
    public var push: UInt64
    /// The slot generation it closes: pushes coalesced in it ride this wake.
    public var generation: UInt32
    /// How many pushes were coalesced in that generation.
    public var coalescedCount: Int
    public var startedAt: Instant
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

/// What the runtime must do; the policy itself never sleeps or does I/O.
public enum WakeAction<App: WakeApp, Instant: Sendable & Equatable>: Sendable, Equatable {
    /// The push waits in its app's slot (generation `generation`).
    case pending(push: UInt64, app: App, generation: UInt32)
    /// The push was replaced in the slot; it rides whatever closes `generation`.
    case coalesced(push: UInt64, app: App, generation: UInt32)
    /// Run a wake.
    case startWake(WakeStart<App, Instant>)
    /// The slot's push expired before a wake could deliver it; the generation is closed, and
    /// the `coalesced` pushes in it expire too.
    case expired(push: UInt64, app: App, generation: UInt32, coalesced: Int)
    /// The push never reaches the app. With a generation, it was waiting in the slot and
    /// the generation is closed: the `coalesced` pushes in it share its fate.
    case dropped(push: UInt64, app: App, reason: DropReason, generation: UInt32?, coalesced: Int)
    /// The wake's handler passed its deadline: cancel it; it failed with deadlineExceeded,
    /// and the app's next interval is doubled.
    case cancelWake(wakeID: UInt64, app: App)
}
