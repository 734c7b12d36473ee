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
        let day = Duration.seconds(86_400)
        let checks: [WakeSettingsProblem?] = [
            span("minimumInterval", minimumInterval, .zero...(day * 365), positive: false, flag: "--min-interval"),
            number("overrunFactor", overrunFactor, 1...Self.maximumOverrunFactor, flag: "--overrun-factor"),
            span("deadline", deadline, .zero...day, positive: true, flag: "--deadline"),
            number("maximumConcurrentFetches", maximumConcurrentFetches, 1...100_000, flag: "--max-fetches"),
            number("dailyBudget", dailyBudget, 0...1_000_000, flag: "--daily-budget"),
            number("batteryThreshold", batteryThreshold, 0...100, flag: "--battery-threshold"),
            span("apnsStorageLimit", apnsStorageLimit, .zero...(day * 365), positive: false, flag: "--apns-storage-limit"),
            span("rebootWarmup", rebootWarmup, .zero...day, positive: false, flag: "--reboot-warmup"),
            appUsageThreshold.flatMap { span("appUsageThreshold", $0, .zero...(day * 3650), positive: true, flag: "--app-usage-threshold") },
            number("appUsageFactors.week", appUsageFactors.week, 1...AppUsageFactors.maximum, flag: "--app-usage-factors"),
            number(
                "appUsageFactors.older", appUsageFactors.older, min(max(1, appUsageFactors.week), AppUsageFactors.maximum)...AppUsageFactors.maximum,
                flag: "--app-usage-factors"),
            span("refreshTaskTime", refreshTaskTime, .zero...day, positive: true, flag: nil),
            span("processingTaskTime", processingTaskTime, .zero...day, positive: true, flag: "--processing-task-time"),
            span("relaunchTime", relaunchTime, .zero...Duration.seconds(3600), positive: true, flag: "--relaunch-time"),
            span("taskExpirationGrace", taskExpirationGrace, .zero...Duration.seconds(600), positive: true, flag: "--task-expiration-grace"),
            span("taskTerminationPenalty", taskTerminationPenalty, .zero...(day * 7), positive: false, flag: "--task-termination-penalty"),
            number("continuedTaskCapacity", continuedTaskCapacity, 1...Self.maximumContinuedTaskCapacity, flag: "--continued-task-capacity"),
            number("reloadBudget", reloadBudget, 0...1_000_000, flag: "--reload-budget"),
        ]
        return checks.lazy.compactMap { $0 }.first
    }
}
