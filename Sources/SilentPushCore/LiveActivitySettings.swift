/// The numbers a device's Live Activities run by. Apple publishes the lifetimes; the
/// budgets and the opportunistic delay are *assumed* ("The system allows for a certain
/// budget of ActivityKit push notifications per hour"), and each is a flag.
public struct LiveActivitySettings: Sendable, Equatable {
    /// Priority-10 updates an app's activities on one device may take per hour; nil: no
    /// budget (the `debugger` profile). *Assumed*: 10.
    public var hourlyBudget: Int?
    /// The same for an app with `NSSupportsLiveActivitiesFrequentUpdates`. *Assumed*: 120
    /// ("many updates per minute" is what Apple says the key is for).
    public var frequentHourlyBudget: Int?
    /// How long a priority 5 or 1 update waits for its opportunity; zero: at once.
    /// *Assumed*: 15 minutes.
    public var opportunisticDelay: Duration
    /// How long an ended activity stays without a dismissal date, and the latest a
    /// dismissal date can hold it: "for up to four hours after it ends".
    public var dismissalWindow: Duration
    /// How long an activity stays active: "A Live Activity can be active for up to eight hours".
    public var maximumActive: Duration
    /// How long a Most Recent Message Stored channel keeps its message: "a maximum duration of 8 hours".
    public var storedMessageLifetime: Duration

    /// When the system ends an activity begun at `startedAt` (`maximumActive` after it).
    package func activeUntil(startedAt: DeviceInstant) -> DeviceInstant {
        startedAt.advanced(by: maximumActive)
    }

    /// Settings; the defaults are the `realistic` profile's.
    public init(
        hourlyBudget: Int? = 10, frequentHourlyBudget: Int? = 120, opportunisticDelay: Duration = .seconds(900),
        dismissalWindow: Duration = .seconds(4 * 3600), maximumActive: Duration = .seconds(8 * 3600),
        storedMessageLifetime: Duration = .seconds(8 * 3600)
    ) {
        self.hourlyBudget = hourlyBudget
        self.frequentHourlyBudget = frequentHourlyBudget
        self.opportunisticDelay = opportunisticDelay
        self.dismissalWindow = dismissalWindow
        self.maximumActive = maximumActive
        self.storedMessageLifetime = storedMessageLifetime
    }

    /// No throttling: every update applies at once (the `debugger` profile).
    public static let unthrottled = LiveActivitySettings(hourlyBudget: nil, frequentHourlyBudget: nil, opportunisticDelay: .zero)

    /// The hourly budget of an app; nil: none.
    public func budget(frequentUpdates: Bool) -> Int? { frequentUpdates ? frequentHourlyBudget : hourlyBudget }
}
