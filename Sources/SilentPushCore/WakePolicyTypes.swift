/// An app on a device, the unit of the wake policy: a device and a topic.
public protocol WakeApp: Hashable, Sendable {
    associatedtype Device: Hashable & Sendable
    /// The device the app is on (its device token, or a compact id for it).
    var device: Device { get }
}

/// How the device throttles background launches: a profile, with every number overridable.
/// `docs/wake-policy.md` gives each number's source.
public struct WakeSettings: Sendable, Equatable {
    /// Which rules apply.
    public enum Throttling: String, Sendable, CaseIterable {
        /// Every rule: interval, budget, Low Power Mode, battery, thermal state.
        case on
        /// None of the throttling rules, as with Xcode's debugger attached. Force-quit and
        /// Background App Refresh off still keep the app from being launched.
        case debugger
        /// The device plays no part: every push that can wake the app wakes it, one fetch at
        /// a time per app (as the Simulator does).
        case off
    }

    /// Two wakes of one app start at least this far apart (wake start to wake start).
    public var minimumInterval: Duration

    /// The interval after a launch: `minimumInterval`, times `overrunFactor` after a wake that
    /// overran its deadline.
    @inlinable package func interval(afterOverrun overran: Bool) -> Duration { overran ? minimumInterval * overrunFactor : minimumInterval }
    /// The interval after a wake that overran its deadline is this many times the minimum
    /// (*assumed*: Apple says only that such apps are launched less), 1 to
    /// `maximumOverrunFactor`.
    public var overrunFactor: Int = 2
    /// The largest `overrunFactor` a flag may set.
    package static let maximumOverrunFactor = 16
    /// A fetch handler still running this long after its wake started is cancelled.
    public var deadline: Duration
    /// Fetches running at once across all devices; nil: no cap.
    public var maximumConcurrentFetches: Int?
    /// Background launches per device per rolling 24 hours (each comes back 24 hours after it); nil: no
    /// budget. A device's own `DeviceState.dailyBudget` overrides it.
    public var dailyBudget: Int?
    /// Below this battery level (%), when not charging, priority-5 wakes wait.
    public var batteryThreshold: Int
    /// Which rules apply.
    public var throttling: Throttling
    /// The longest APNs keeps a push for an offline device (Apple: it "may store the
    /// notification for 30 days or less, depending on the date you specify in the
    /// `apns-expiration` header").
    public var apnsStorageLimit: Duration = WakeSettings.defaultAPNsStorageLimit
    /// After a (simulated) restart, no background launch starts for this long (0: none).
    public var rebootWarmup: Duration = .zero
    /// An app not opened for this long is not launched in the background at all; nil: no
    /// limit. (Opened within a day: the interval as set; less recently: `appUsageFactors`.)
    public var appUsageThreshold: Duration? = .seconds(14 * 86_400)
    /// How much less an app opened less recently is launched (*assumed*: Apple says only that
    /// apps used less get less background time).
    public var appUsageFactors = AppUsageFactors()
    /// How long a refresh task runs before its expiration handler is called (Apple: "up to
    /// 30 seconds").
    public var refreshTaskTime: Duration = .seconds(30)
    /// How long a processing task runs before its expiration handler is called (Apple:
    /// "several minutes"; *assumed* 5 minutes).
    public var processingTaskTime: Duration = .seconds(5 * 60)
    /// How long an app relaunched for a background `URLSession`'s events has to call its
    /// completion handler before its expiration handler is called (*assumed*: Apple gives
    /// no figure; a push's 30 s).
    public var relaunchTime: Duration = .seconds(30)
    /// After its expiration handler is called, how long a task has to complete before it is
    /// terminated (*assumed*: Apple gives no figure).
    public var taskExpirationGrace: Duration = .seconds(5)
    /// After a task is terminated for never completing, the app's later task launches are
    /// deferred this long (*assumed*: Apple says only that they are deferred).
    public var taskTerminationPenalty: Duration = .seconds(60 * 60)
    /// Continued tasks (`BGContinuedProcessingTask`) running at once per device; more queue
    /// or fail (*assumed*: Apple says only that the system limits them).
    public var continuedTaskCapacity: Int = 2
    /// The largest `continuedTaskCapacity` a flag may set.
    package static let maximumContinuedTaskCapacity = 64
    /// How many times each widget or control extension on a device reloads by push in any
    /// 24 hours; nil: no budget (*assumed*: 70, the top of Apple's "from 40 to 70
    /// refreshes" a day for a widget the user views often). Throttling `debugger` and
    /// `off` lift it.
    public var reloadBudget: Int? = 70

    /// An app last opened more than a day ago waits `week` times the interval between its
    /// launches and gets 1/`week` of the device's daily budget; more than a week ago, `older`
    /// times and 1/`older`. Each is 1–64, and `older` at least `week`.
    public struct AppUsageFactors: Sendable, Equatable {
        /// Opened within the last week (but not the last day): 2 by default.
        public var week: Int
        /// Opened longer ago: 4 by default.
        public var older: Int
        /// The largest factor taken.
        public static let maximum = 64

        /// The factors for an app opened within the last week, and for one opened longer ago.
        public init(week: Int = 2, older: Int = 4) {
            self.week = week
            self.older = older
        }
    }

    /// The reload budget that applies: none unless throttling is on.
    public var effectiveReloadBudget: Int? { throttling == .on ? reloadBudget : nil }

    /// A profile. The defaults are `ios`'s.
    public init(
        minimumInterval: Duration = .seconds(15 * 60), deadline: Duration = .seconds(30), maximumConcurrentFetches: Int? = 64,
        dailyBudget: Int? = nil, batteryThreshold: Int = 20, throttling: Throttling = .on
    ) {
        self.minimumInterval = minimumInterval
        self.deadline = deadline
        self.maximumConcurrentFetches = maximumConcurrentFetches
        self.dailyBudget = dailyBudget
        self.batteryThreshold = batteryThreshold
        self.throttling = throttling
    }

    /// The profile `ios` (the default): iOS as observed, 15 minutes between an app's wakes,
    /// a 30 s deadline.
    public static let ios = WakeSettings()
    /// The profile `fast`: 1 s between wakes, for tests that should not wait.
    public static let fast = WakeSettings(minimumInterval: .seconds(1))
    /// The profile `debugger`: no throttling, as when the app runs from Xcode.
    public static let debugger = WakeSettings(minimumInterval: .zero, throttling: .debugger)
    /// The profile `strict`: Apple's guidance of two or three silent pushes an hour, as a
    /// 20-minute interval and a budget of 72 launches a day per device.
    public static let strict = WakeSettings(minimumInterval: .seconds(20 * 60), dailyBudget: 72)
    /// The profile `off`: every push that can wake the app wakes it at once.
    public static let off = WakeSettings(minimumInterval: .zero, throttling: .off)
}

/// A device's state, set through the admin API, the Swift API or the config file.
public struct DeviceState: Sendable, Equatable {
    /// The user force-quit the app: no wakes, pushes dropped until it is launched again.
    public var forceQuit: Bool
    /// Background App Refresh: off drops silent pushes.
    public var backgroundRefresh: Bool
    /// Low Power Mode defers priority-5 wakes.
    public var lowPowerMode: Bool
    /// Background launches per 24 hours across the device's apps; nil: the profile's.
    public var dailyBudget: Int?
    /// Battery level, 0–100 %: a level set outside it is kept at the nearer end.
    public var batteryLevel: Int {
        didSet { batteryLevel = min(max(batteryLevel, Self.batteryRange.lowerBound), Self.batteryRange.upperBound) }
    }
    /// Charging: a low battery holds nothing while charging.
    public var charging: Bool
    /// Serious defers priority-5 wakes; critical defers every wake.
    public var thermalState: ThermalState
    /// Xcode's debugger is attached: no throttling for this device.
    public var debuggerAttached: Bool
    /// Whether the device can be reached. Offline, nothing is delivered: APNs keeps the
    /// latest push per app (up to its expiry, or 30 days) and delivers it on reconnect.
    public var network: Network
    /// The device is idle (not in use): processing tasks run only then.
    public var idle: Bool
    /// The network it is on, when online: background transfers that may not use cellular
    /// data, and discretionary ones, wait for Wi-Fi.
    public var networkType: NetworkType

    /// A device's network.
    public enum Network: String, Sendable, CaseIterable {
        case online
        case offline
    }

    /// The kind of network a device is on.
    public enum NetworkType: String, Sendable, CaseIterable {
        case wifi
        case cellular
    }

    /// A device as it comes: app running, refresh on, no Low Power Mode, the profile's
    /// budget, a full battery, nominal temperature, no debugger, online on Wi-Fi, in use (not idle).
    public init(
        forceQuit: Bool = false, backgroundRefresh: Bool = true, lowPowerMode: Bool = false, dailyBudget: Int? = nil,
        batteryLevel: Int = 100, charging: Bool = false, thermalState: ThermalState = .nominal, debuggerAttached: Bool = false,
        network: Network = .online, idle: Bool = false, networkType: NetworkType = .wifi
    ) {
        self.networkType = networkType
        self.forceQuit = forceQuit
        self.backgroundRefresh = backgroundRefresh
        self.lowPowerMode = lowPowerMode
        self.dailyBudget = dailyBudget
        self.batteryLevel = min(max(batteryLevel, Self.batteryRange.lowerBound), Self.batteryRange.upperBound)
        self.charging = charging
        self.thermalState = thermalState
        self.debuggerAttached = debuggerAttached
        self.network = network
        self.idle = idle
    }

    /// The battery levels there are, in %.
    package static let batteryRange = 0...100

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
    /// The push waits in its app's slot (generation `generation`), for `why`. Sent again,
    /// for the same push, when what holds it changes.
    case pending(push: UInt64, app: App, generation: UInt32, why: WaitReason<Instant>)
    /// The push was replaced in the slot; it rides whatever closes `generation`. `atAPNs`:
    /// replaced while the device was offline, in APNs's one-slot storage for the app.
    case coalesced(push: UInt64, app: App, generation: UInt32, atAPNs: Bool)
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
    /// The system killed the app at `at` (`cause`) while the wake's handler ran: stop it; it
    /// failed, killed, and nothing is doubled.
    case killWake(wakeID: UInt64, app: App, cause: AppKill, at: Instant)
    /// The task request waits, for `why`. Sent again when what holds it changes.
    case taskPending(request: UInt64, app: App, why: WaitReason<Instant>)
    /// Run a task: call the app's task handler.
    case startTask(TaskStart<App, Instant>)
    /// The task's time is up (at `at`): call its expiration handler. It has
    /// `WakeSettings.taskExpirationGrace` to complete before it is terminated.
    case expireTask(runID: UInt64, app: App, at: Instant)
    /// Stop the task's handler: it never completed after its expiration handler, or the app
    /// was killed (its run ends `terminated` in the `.taskEnded` that follows, or `killed` in
    /// the `.taskKilled`).
    case terminateTask(runID: UInt64, app: App)
    /// The task's run ended so, at `at` (never `killed`: that is `.taskKilled`).
    case taskEnded(runID: UInt64, app: App, outcome: TaskOutcome, at: Instant)
    /// The system killed the app at `at` (`cause`) while the task ran: its run ends `killed`.
    case taskKilled(runID: UInt64, app: App, cause: AppKill, at: Instant)
    /// A pending request ended without running: cancelled, or replaced by a newer one.
    case taskRequestEnded(request: UInt64, app: App, outcome: TaskOutcome, at: Instant)
}
