import ArgumentParser
import SilentPushCore
import SilentPushReceiver

extension SilentPushd {
    /// The Live Activity, reload, background transfer and task numbers given as flags, over the profile's.
    func applyLiveActivityOptions(to configuration: inout ReceiverConfiguration) throws {
        func positive(_ text: String, flag: String, atMost limit: Duration) throws -> Duration {
            let span = try Self.duration(text, flag: flag, atMost: limit)
            guard span > .zero else { throw ValidationError("\(flag) must be more than 0 (e.g. 30s)") }
            return span
        }
        func budget(_ text: String, flag: String) throws -> Int? {
            try Self.noneOr(text) { text in
                guard let value = Int(text), WakeSettings.budgetRange.contains(value) else {
                    throw ValidationError("\(flag) must be a whole number from \(WholeNumberProblem.describe(WakeSettings.budgetRange)), or none")
                }
                return value
            }
        }
        if let reloadBudget { configuration.wakeSettings.reloadBudget = try budget(reloadBudget, flag: "--reload-budget") }
        if let activityBudget { configuration.liveActivities.hourlyBudget = try budget(activityBudget, flag: "--activity-budget") }
        if let activityFrequentBudget {
            configuration.liveActivities.frequentHourlyBudget = try budget(activityFrequentBudget, flag: "--activity-frequent-budget")
        }
        if let activityOpportunisticDelay {
            configuration.liveActivities.opportunisticDelay = try Self.duration(
                activityOpportunisticDelay, flag: "--activity-opportunistic-delay", atMost: .seconds(86_400))
        }
        if let activityDismissalWindow {
            configuration.liveActivities.dismissalWindow = try Self.duration(
                activityDismissalWindow, flag: "--activity-dismissal-window", atMost: .seconds(7 * 86_400))
        }
        if let activityMaxActive {
            let span = try Self.duration(activityMaxActive, flag: "--activity-max-active", atMost: .seconds(7 * 86_400))
            guard span > .zero else { throw ValidationError("--activity-max-active must be more than 0 (e.g. 8h)") }
            configuration.liveActivities.maximumActive = span
        }
        if let transferLimit {
            guard (1...TransferPolicy.Settings.maximumCap).contains(transferLimit) else {
                throw ValidationError("--transfer-limit must be a whole number from 1 to \(TransferPolicy.Settings.maximumCap)")
            }
            configuration.transfers.maximumPerApp = transferLimit
        }
        if let transferRetryDelay {
            configuration.transfers.retryDelay = try positive(
                transferRetryDelay, flag: "--transfer-retry-delay", atMost: TransferPolicy.Settings.retryDelayLimit)
        }
        if let transferMaxRetryDelay {
            configuration.transfers.maximumRetryDelay = try positive(
                transferMaxRetryDelay, flag: "--transfer-max-retry-delay", atMost: TransferPolicy.Settings.maximumRetryDelayLimit)
        }
        guard configuration.transfers.maximumRetryDelay >= configuration.transfers.retryDelay else {
            throw ValidationError("--transfer-max-retry-delay must be at least --transfer-retry-delay")
        }
        if let transferTimeout {
            configuration.transfers.resourceTimeout = try positive(
                transferTimeout, flag: "--transfer-timeout", atMost: TransferPolicy.Settings.resourceTimeoutLimit)
        }
        if let relaunchTime {
            configuration.wakeSettings.relaunchTime = try positive(relaunchTime, flag: "--relaunch-time", atMost: WakeSettings.longestRelaunchTime)
        }
        if let transferRequestTimeout {
            configuration.transfers.requestTimeout = try positive(
                transferRequestTimeout, flag: "--transfer-request-timeout", atMost: TransferPolicy.Settings.requestTimeoutLimit)
        }
        if let taskExpirationGrace {
            configuration.wakeSettings.taskExpirationGrace = try positive(
                taskExpirationGrace, flag: "--task-expiration-grace", atMost: WakeSettings.longestTaskExpirationGrace)
        }
        if let taskTerminationPenalty {
            configuration.wakeSettings.taskTerminationPenalty = try Self.duration(
                taskTerminationPenalty, flag: "--task-termination-penalty", atMost: WakeSettings.longestTaskTerminationPenalty)
        }
        if let processingTaskTime {
            configuration.wakeSettings.processingTaskTime = try positive(
                processingTaskTime, flag: "--processing-task-time", atMost: WakeSettings.longestTaskTime)
        }
        if let continuedTaskCapacity {
            let limit = WakeSettings.maximumContinuedTaskCapacity
            guard (1...limit).contains(continuedTaskCapacity) else {
                throw ValidationError("--continued-task-capacity must be a whole number from 1 to \(limit)")
            }
            configuration.wakeSettings.continuedTaskCapacity = continuedTaskCapacity
        }
        if let overrunFactor {
            let limit = WakeSettings.maximumOverrunFactor
            guard (1...limit).contains(overrunFactor) else { throw ValidationError("--overrun-factor must be a whole number from 1 to \(limit)") }
            configuration.wakeSettings.overrunFactor = overrunFactor
        }
        if let appUsageFactors {
            let limit = WakeSettings.AppUsageFactors.maximum
            let parts = appUsageFactors.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let week = parts[0], let older = parts[1], (1...limit).contains(week), (week...limit).contains(older) else {
                throw ValidationError(
                    "--app-usage-factors '\(appUsageFactors)' must be two whole numbers WEEK,OLDER from 1 to \(limit), OLDER at least WEEK (e.g. 2,4)"
                )
            }
            configuration.wakeSettings.appUsageFactors = WakeSettings.AppUsageFactors(week: week, older: older)
        }
        if let channelMessageLifetime {
            configuration.liveActivities.storedMessageLifetime = try Self.duration(
                channelMessageLifetime, flag: "--channel-message-lifetime", atMost: .seconds(30 * 86_400))
        }
    }
}
