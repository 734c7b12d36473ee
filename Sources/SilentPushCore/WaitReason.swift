/// Why a push waits in its app's slot instead of waking the app now: the rule that holds it
/// and that rule's numbers, as the wake policy decided it. ``until`` is when the rule stops
/// holding, when the policy knows (a clock time, not a device change).
public enum WaitReason<Instant: Sendable & Equatable>: Sendable, Equatable {
    /// The app's last wake started at `lastWake`; the next may start `interval` later, at `until`.
    case minimumInterval(lastWake: Instant?, interval: Duration, until: Instant)
    /// The device's budget of background launches is spent: `used` of `budget` in the
    /// last 24 hours; the oldest of them ages out at `until` (nil: a budget of 0).
    case dailyBudget(used: Int, budget: Int, until: Instant?)
    /// Low Power Mode holds priority-5 wakes.
    case lowPowerMode
    /// The battery is below `threshold` % and not charging: priority-5 wakes wait.
    case battery(level: Int, threshold: Int)
    /// The device is hot: serious holds priority-5 wakes, critical every wake.
    case thermal(ThermalState)
    /// Priority 1 never wakes the device; the push rides the app's next wake.
    case priority1
    /// Every fetch slot is taken (`running` of `cap`): the app starts when one frees.
    case fetchSlots(running: Int, cap: Int)
    /// A fetch of this app is running; one fetch at a time per app.
    case fetchRunning
    /// The device is offline: APNs holds the push until it reconnects.
    case offline
    /// The device restarted: no background launch starts before `until`.
    case rebootWarmup(until: Instant)
    /// The user has not opened the app since `lastOpened`, longer than `threshold`: it is
    /// not launched in the background until it is opened again.
    case appUsage(lastOpened: Instant, threshold: Duration)
    /// An app not opened for a day (a week) gets half (a quarter) of the device's daily
    /// budget: it used `used` of its `share` of `budget` in 24 hours; the oldest ages out at `until`.
    case appShare(used: Int, share: Int, budget: Int, until: Instant)
    /// A task: its `earliestBeginDate` is `until`.
    case earliestBegin(until: Instant)
    /// A task: the user force-quit the app; nothing is launched until it is opened.
    case forceQuit
    /// A task: Background App Refresh is off.
    case backgroundRefreshOff
    /// A processing task: it runs only while the device is idle.
    case deviceInUse
    /// A processing task that requires external power: the device is not charging.
    case externalPower
    /// A task: an earlier task of the app never completed and was terminated; its launches
    /// are deferred until `until`.
    case taskPenalty(until: Instant)
    /// A continued task: `running` of the device's `capacity` continued tasks run already.
    case continuedSlots(running: Int, capacity: Int)
    /// A Live Activity update: its app has spent its `budget` of priority-10 updates this
    /// hour; it shows (or gives way to a later one) at `until` (nil: a budget of 0, which
    /// shows none).
    case activityBudget(budget: Int, until: Instant?)
    /// A priority 5 or 1 Live Activity update waits for its opportunity, by `until`.
    case opportunistic(until: Instant)
    /// A widget or control push: its extension reloaded `used` of its `budget` times in
    /// the last 24 hours; it reloads when the oldest of them ages out, at `until` (nil: a
    /// budget of 0).
    case reloadBudget(used: Int, budget: Int, until: Instant?)
    /// A background transfer that does not allow cellular access waits for Wi-Fi.
    case wifiRequired
    /// A discretionary background transfer waits for Wi-Fi, external power and no Low Power
    /// Mode; these are what the device has now.
    case discretionary(wifi: Bool, charging: Bool, lowPowerMode: Bool)
    /// A background transfer that was cut off is tried again (`attempt`) at `until`.
    case transferRetry(attempt: Int, until: Instant)

    /// The rule that holds the push (its name is the admin API's `why.rule`).
    public var rule: WaitRule {
        switch self {
        case .minimumInterval: .minimumInterval
        case .dailyBudget: .dailyBudget
        case .lowPowerMode: .lowPowerMode
        case .battery: .battery
        case .thermal: .thermal
        case .priority1: .priority1
        case .fetchSlots, .fetchRunning: .fetchSlots
        case .offline: .offline
        case .rebootWarmup: .rebootWarmup
        case .appUsage, .appShare: .appUsage
        case .earliestBegin: .earliestBegin
        case .forceQuit: .forceQuit
        case .backgroundRefreshOff: .backgroundRefreshOff
        case .deviceInUse: .idle
        case .externalPower: .externalPower
        case .taskPenalty: .taskPenalty
        case .continuedSlots: .continuedSlots
        case .activityBudget: .activityBudget
        case .opportunistic: .opportunistic
        case .reloadBudget: .reloadBudget
        case .wifiRequired: .wifiRequired
        case .discretionary: .discretionary
        case .transferRetry: .transferRetry
        }
    }

    /// When the rule stops holding by itself; nil when only a change of the device (or
    /// another wake) ends it.
    public var until: Instant? {
        switch self {
        case .minimumInterval(_, _, let until), .rebootWarmup(let until), .appShare(_, _, _, let until), .earliestBegin(let until),
            .taskPenalty(let until), .opportunistic(let until), .transferRetry(_, let until):
            until
        case .dailyBudget(_, _, let until), .reloadBudget(_, _, let until), .activityBudget(_, let until): until
        case .lowPowerMode, .battery, .thermal, .priority1, .fetchSlots, .fetchRunning, .offline, .appUsage, .forceQuit, .backgroundRefreshOff,
            .deviceInUse, .externalPower, .continuedSlots, .wifiRequired, .discretionary:
            nil
        }
    }

    /// What waits for a reason: a push, or what shares the push's rules (a background task
    /// request, a background transfer), whose words differ where a push's would be wrong.
    package enum Waiter: Sendable {
        case push
        /// A Live Activity push: APNs keeps one per activity token, not one per app.
        case liveActivity
        case task(BackgroundTaskKind)
        case transfer
    }

    /// One line for people, with the numbers, for `waiter`; `time` writes an instant.
    package func text(time: (Instant) -> String, for waiter: Waiter) -> String {
        switch (self, waiter) {
        // Nothing is held at APNs for a task or a transfer, and a task is no priority-5 wake.
        case (.offline, .task(.refresh)): "waiting: the device is offline, and a refresh waits for the network"
        case (.offline, .task): "waiting: the task requires network connectivity and the device is offline"
        case (.offline, .transfer): "waiting: the device is offline; the transfer resumes when the network returns"
        case (.offline, .liveActivity): "held at APNs: the device is offline; APNs delivers the latest push for this activity token on reconnect"
        case (.lowPowerMode, .task): "deferred: Low Power Mode holds background tasks"
        default: text(time: time)
        }
    }

    /// One line for people, with the numbers; `time` writes an instant.
    public func text(time: (Instant) -> String) -> String {
        switch self {
        case .minimumInterval(let last, let interval, let until):
            let after = last.map { " (\(Self.words(interval)) after the wake at \(time($0)))" } ?? ""
            return "waiting: next wake at \(time(until))\(after)"
        case .dailyBudget(let used, let budget, let until?):
            return "waiting: budget \(used)/\(budget) used in 24 h, next refill at \(time(until))"
        case .dailyBudget:
            return "waiting: a daily budget of 0 launches"
        case .lowPowerMode: return "deferred: Low Power Mode holds priority-5 wakes"
        case .battery(let level, let threshold): return "deferred: battery \(level) % and not charging (below \(threshold) %)"
        case .thermal(let state): return "deferred: thermal state \(state.rawValue)"
        case .priority1: return "waiting: priority 1 never wakes the device; it rides the next wake"
        case .fetchSlots(let running, let cap): return "waiting: all \(cap) fetch slots busy (\(running) running)"
        case .fetchRunning: return "waiting: the app's previous fetch is still running"
        case .offline: return "held at APNs: the device is offline; APNs delivers its latest push for the app on reconnect"
        case .rebootWarmup(let until): return "waiting: the device restarted; no background launch before \(time(until))"
        case .appUsage(let opened, let threshold):
            return
                "held: the app was last opened at \(time(opened)), more than \(Self.dayWords(threshold)) ago; it is launched again once opened"
        case .appShare(let used, let share, let budget, let until):
            return
                "waiting: the app, little used, has had \(used) of its \(share) launches (of the device's \(budget)) in 24 h; next at \(time(until))"
        case .earliestBegin(let until): return "waiting: earliestBeginDate is \(time(until))"
        case .forceQuit: return "held: the app was force-quit; nothing is launched until the user opens it"
        case .backgroundRefreshOff: return "held: Background App Refresh is off"
        case .deviceInUse: return "waiting: processing tasks run only while the device is idle"
        case .externalPower: return "waiting: the task requires external power and the device is not charging"
        case .taskPenalty(let until): return "deferred: an earlier task never completed and was terminated; launches wait until \(time(until))"
        case .continuedSlots(let running, let capacity):
            return "queued: \(running) of the device's \(capacity) continued tasks are running"
        case .activityBudget(let budget, let until?):
            return "waiting: the app's \(budget) priority-10 Live Activity updates this hour are spent; shown at \(time(until))"
        case .activityBudget:
            return "held: an hourly budget of 0 priority-10 Live Activity updates shows none; a later update replaces it"
        case .opportunistic(let until): return "waiting: a priority 5 or 1 Live Activity update is shown at its opportunity, by \(time(until))"
        case .reloadBudget(let used, let budget, let until?):
            return "waiting: reload budget \(used)/\(budget) used in 24 h, reloads at \(time(until))"
        case .reloadBudget: return "waiting: a daily reload budget of 0"
        case .wifiRequired: return "waiting: the transfer does not allow cellular access and the device is not on Wi-Fi"
        case .discretionary(let wifi, let charging, let lowPowerMode):
            let missing = [wifi ? nil : "Wi-Fi", charging ? nil : "external power", lowPowerMode ? "Low Power Mode off" : nil].compactMap { $0 }
            return "waiting: a discretionary transfer waits for " + missing.joined(separator: ", ")
        case .transferRetry(let attempt, let until):
            return "waiting: the last try did not finish (lastError says why); try \(attempt) at \(time(until))"
        }
    }

    /// A span of days (a threshold of weeks) in days when whole, else as `words` says it.
    static func dayWords(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        guard seconds >= 86_400, seconds % 86_400 == 0 else { return words(duration) }
        return seconds == 86_400 ? "1 day" : "\(seconds / 86_400) days"
    }

    static func words(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds >= 3600, seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
