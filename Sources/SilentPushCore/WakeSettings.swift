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
