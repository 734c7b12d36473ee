extension WakeSettings {
    /// The span a daily budget counts launches (and reloads) over: the last 24 hours, for the
    /// policies and for a restart reading them back.
    @usableFromInline package static let budgetWindow = Duration.seconds(86_400)
    /// The longest APNs keeps a push for an offline device by default.
    @usableFromInline package static let defaultAPNsStorageLimit = Duration.seconds(30 * 86_400)
    /// The ranges the numbers take, one place for the flags' parse and help and for
    /// `problem` (settings given through the Swift API): fetches running at once.
    package static let fetchCapRange = 1...100_000
    /// A daily budget of launches or of reloads.
    package static let budgetRange = 0...1_000_000
    /// The battery threshold, in percent.
    package static let batteryThresholdRange = DeviceState.batteryRange
    /// The longest minimum interval between wakes.
    package static let longestMinimumInterval = Duration.seconds(365 * 86_400)
    /// The longest fetch deadline.
    package static let longestDeadline = Duration.seconds(86_400)
    /// The longest APNs may keep a push for an offline device.
    package static let longestAPNsStorageLimit = Duration.seconds(365 * 86_400)
    /// The longest wait after a restart.
    package static let longestRebootWarmup = Duration.seconds(86_400)
    /// The longest an app may go unopened and still be launched.
    package static let longestAppUsageThreshold = Duration.seconds(3650 * 86_400)
    /// The longest a refresh or processing task runs before its expiration handler.
    package static let longestTaskTime = Duration.seconds(86_400)
    /// The longest a relaunched app has for its session's events.
    package static let longestRelaunchTime = Duration.seconds(3600)
    /// The longest a task has after its expiration handler.
    package static let longestTaskExpirationGrace = Duration.seconds(600)
    /// The longest a terminated task's app waits for its next task launch.
    package static let longestTaskTerminationPenalty = Duration.seconds(7 * 86_400)
}

extension WakeSettings {
    /// The first number a receiver cannot run with, nil when every one is in its range: the
    /// ranges the flags take, for settings given through the Swift API (a factor past its
    /// range overflows when an interval is multiplied by it; a negative interval, a deadline
    /// of 0 or no fetch slot leaves every push waiting).
    package var problem: WakeSettingsProblem? {
        func span(_ name: String, _ value: Duration, _ range: ClosedRange<Duration>, positive: Bool, flag: String?) -> WakeSettingsProblem? {
            guard !range.contains(value) || (positive && value == .zero) else { return nil }
            let days = range.upperBound.components.seconds / 86_400
            let most = days > 0 ? "\(days) day(s)" : "\(range.upperBound.components.seconds) s"
            return WakeSettingsProblem(
                setting: name, value: "\(value)", expected: (positive ? "more than 0" : "0 or more") + " and at most \(most)", flag: flag)
        }
        func number(_ name: String, _ value: Int?, _ range: ClosedRange<Int>, flag: String?) -> WakeSettingsProblem? {
            guard let value, !range.contains(value) else { return nil }
            return WakeSettingsProblem(setting: name, value: "\(value)", expected: "from \(range.lowerBound) to \(range.upperBound)", flag: flag)
        }
        let checks: [WakeSettingsProblem?] = [
            span("minimumInterval", minimumInterval, .zero...Self.longestMinimumInterval, positive: false, flag: "--min-interval"),
            number("overrunFactor", overrunFactor, 1...Self.maximumOverrunFactor, flag: "--overrun-factor"),
            span("deadline", deadline, .zero...Self.longestDeadline, positive: true, flag: "--deadline"),
            number("maximumConcurrentFetches", maximumConcurrentFetches, Self.fetchCapRange, flag: "--max-fetches"),
            number("dailyBudget", dailyBudget, Self.budgetRange, flag: "--daily-budget"),
            number("batteryThreshold", batteryThreshold, Self.batteryThresholdRange, flag: "--battery-threshold"),
            span("apnsStorageLimit", apnsStorageLimit, .zero...Self.longestAPNsStorageLimit, positive: false, flag: "--apns-storage-limit"),
            span("rebootWarmup", rebootWarmup, .zero...Self.longestRebootWarmup, positive: false, flag: "--reboot-warmup"),
            appUsageThreshold.flatMap {
                span("appUsageThreshold", $0, .zero...Self.longestAppUsageThreshold, positive: true, flag: "--app-usage-threshold")
            },
            number("appUsageFactors.week", appUsageFactors.week, 1...AppUsageFactors.maximum, flag: "--app-usage-factors"),
            number(
                "appUsageFactors.older", appUsageFactors.older, min(max(1, appUsageFactors.week), AppUsageFactors.maximum)...AppUsageFactors.maximum,
                flag: "--app-usage-factors"),
            span("refreshTaskTime", refreshTaskTime, .zero...Self.longestTaskTime, positive: true, flag: nil),
            span("processingTaskTime", processingTaskTime, .zero...Self.longestTaskTime, positive: true, flag: "--processing-task-time"),
            span("relaunchTime", relaunchTime, .zero...Self.longestRelaunchTime, positive: true, flag: "--relaunch-time"),
            span(
                "taskExpirationGrace", taskExpirationGrace, .zero...Self.longestTaskExpirationGrace, positive: true,
                flag: "--task-expiration-grace"),
            span(
                "taskTerminationPenalty", taskTerminationPenalty, .zero...Self.longestTaskTerminationPenalty, positive: false,
                flag: "--task-termination-penalty"),
            number("continuedTaskCapacity", continuedTaskCapacity, 1...Self.maximumContinuedTaskCapacity, flag: "--continued-task-capacity"),
            number("reloadBudget", reloadBudget, Self.budgetRange, flag: "--reload-budget"),
        ]
        return checks.lazy.compactMap { $0 }.first
    }
}
