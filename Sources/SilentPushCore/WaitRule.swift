/// The rule that holds a waiting push or task request: the name a ``WaitReason`` goes by,
/// and the admin API's `why.rule` (raw values are those names).
public enum WaitRule: String, Sendable, CaseIterable {
    /// The minimum interval between one app's wakes (doubled after an overrun, scaled by app usage).
    case minimumInterval
    /// The device's daily budget of background launches.
    case dailyBudget
    /// Low Power Mode holds priority-5 wakes.
    case lowPowerMode
    /// A low battery, not charging, holds priority-5 wakes.
    case battery
    /// A hot device holds priority-5 wakes (serious) or all (critical).
    case thermal
    /// Priority 1 never wakes the device.
    case priority1
    /// The fetch slots: the device's cap on concurrent fetches, or the app's own running fetch.
    case fetchSlots
    /// The device is offline: APNs holds the push.
    case offline
    /// The device restarted and is warming up.
    case rebootWarmup
    /// The app is rarely or no longer opened: its share of the budget, or no launch at all.
    case appUsage
    /// A task's `earliestBeginDate` has not come.
    case earliestBegin
    /// A task of a force-quit app.
    case forceQuit
    /// A task while Background App Refresh is off.
    case backgroundRefreshOff
    /// A processing task waits for the device to be idle.
    case idle
    /// A processing task that requires external power waits for charging.
    case externalPower
    /// The app's tasks are deferred after one was terminated.
    case taskPenalty
    /// A continued task is queued behind the device's running ones.
    case continuedSlots
    /// A Live Activity update over its app's hourly priority-10 budget.
    case activityBudget
    /// A priority 5 or 1 Live Activity update waits for its opportunity.
    case opportunistic
    /// A widget or control push over its extension's daily reload budget.
    case reloadBudget
    /// A background transfer without cellular access waits for Wi-Fi.
    case wifiRequired
    /// A discretionary background transfer waits for Wi-Fi and external power.
    case discretionary
    /// A background transfer that was cut off waits to be tried again.
    case transferRetry
}
