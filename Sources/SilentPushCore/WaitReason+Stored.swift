extension WaitReason where Instant == DeviceInstant {
    /// The reason in one short line of text, as the store keeps it: the rule, then its
    /// numbers, `:`-separated (instants in ms since the epoch).
    package var stored: String {
        switch self {
        case .minimumInterval(_, let interval, let until):
            StoredText.make("minimumInterval") {
                $0.field(until.millisecondsSinceEpoch)
                $0.field(interval.nanosecondCount / 1_000_000)
            }
        case .dailyBudget(let used, let budget, let until):
            StoredText.make("dailyBudget") {
                $0.field(until?.millisecondsSinceEpoch)
                $0.field(Int64(used))
                $0.field(Int64(budget))
            }
        case .lowPowerMode: "lowPowerMode"
        case .battery(let level, let threshold):
            StoredText.make("battery") {
                $0.field(Int64(level))
                $0.field(Int64(threshold))
            }
        case .thermal(let state): "thermal:\(state.rawValue)"
        case .priority1: "priority1"
        case .fetchSlots(let running, let cap):
            StoredText.make("fetchSlots") {
                $0.field(Int64(running))
                $0.field(Int64(cap))
            }
        case .fetchRunning: "fetchRunning"
        case .offline: "offline"
        case .rebootWarmup(let until): StoredText.make("rebootWarmup") { $0.field(until.millisecondsSinceEpoch) }
        case .appUsage(let opened, let threshold):
            StoredText.make("appUsage") {
                $0.field(opened.millisecondsSinceEpoch)
                $0.field(threshold.nanosecondCount / 1_000_000)
            }
        case .appShare(let used, let share, let budget, let until):
            StoredText.make("appShare") {
                $0.field(until.millisecondsSinceEpoch)
                $0.field(Int64(used))
                $0.field(Int64(share))
                $0.field(Int64(budget))
            }
        case .earliestBegin(let until): StoredText.make("earliestBegin") { $0.field(until.millisecondsSinceEpoch) }
        case .forceQuit: "forceQuit"
        case .backgroundRefreshOff: "backgroundRefreshOff"
        case .deviceInUse: "deviceInUse"
        case .externalPower: "externalPower"
        case .taskPenalty(let until): StoredText.make("taskPenalty") { $0.field(until.millisecondsSinceEpoch) }
        case .continuedSlots(let running, let capacity):
            StoredText.make("continuedSlots") {
                $0.field(Int64(running))
                $0.field(Int64(capacity))
            }
        case .activityBudget(let budget, let until):
            StoredText.make("activityBudget") {
                $0.field(until?.millisecondsSinceEpoch)
                $0.field(Int64(budget))
            }
        case .opportunistic(let until): StoredText.make("opportunistic") { $0.field(until.millisecondsSinceEpoch) }
        case .reloadBudget(let used, let budget, let until):
            StoredText.make("reloadBudget") {
                $0.field(until?.millisecondsSinceEpoch)
                $0.field(Int64(used))
                $0.field(Int64(budget))
            }
        case .wifiRequired: "wifiRequired"
        case .discretionary(let wifi, let charging, let lowPowerMode):
            StoredText.make("discretionary") {
                $0.field(wifi ? 1 : 0)
                $0.field(charging ? 1 : 0)
                $0.field(lowPowerMode ? 1 : 0)
            }
        case .transferRetry(let attempt, let until):
            StoredText.make("transferRetry") {
                $0.field(until.millisecondsSinceEpoch)
                $0.field(Int64(attempt))
            }
        }
    }

    /// The reason `stored` wrote; nil for text it cannot have written (every number is
    /// range-checked: the text comes from a file).
    package init?(stored text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func number(_ index: Int, in range: ClosedRange<Int64>) -> Int64? {
            guard index < parts.count, let value = Int64(parts[index]), range.contains(value) else { return nil }
            return value
        }
        let milliseconds: ClosedRange<Int64> = 0...(Int64.max / 1_000_000)
        let count: ClosedRange<Int64> = 0...1_000_000_000
        switch (parts.first, parts.count) {
        case ("minimumInterval", 3):
            guard let until = number(1, in: milliseconds), let interval = number(2, in: milliseconds) else { return nil }
            let untilInstant = DeviceInstant(millisecondsSinceEpoch: until)
            let duration = Duration.milliseconds(interval)
            self = .minimumInterval(lastWake: untilInstant.advanced(by: .zero - duration), interval: duration, until: untilInstant)
        case ("dailyBudget", 4):
            let until = parts[1].isEmpty ? nil : number(1, in: milliseconds)
            guard until != nil || parts[1].isEmpty, let used = number(2, in: count), let budget = number(3, in: count) else { return nil }
            self = .dailyBudget(used: Int(used), budget: Int(budget), until: until.map(DeviceInstant.init(millisecondsSinceEpoch:)))
        case ("reloadBudget", 4):
            let until = parts[1].isEmpty ? nil : number(1, in: milliseconds)
            guard until != nil || parts[1].isEmpty, let used = number(2, in: count), let budget = number(3, in: count) else { return nil }
            self = .reloadBudget(used: Int(used), budget: Int(budget), until: until.map(DeviceInstant.init(millisecondsSinceEpoch:)))
        case ("wifiRequired", 1): self = .wifiRequired
        case ("discretionary", 4):
            guard let wifi = number(1, in: 0...1), let charging = number(2, in: 0...1), let lowPower = number(3, in: 0...1) else { return nil }
            self = .discretionary(wifi: wifi == 1, charging: charging == 1, lowPowerMode: lowPower == 1)
        case ("transferRetry", 3):
            guard let until = number(1, in: milliseconds), let attempt = number(2, in: count) else { return nil }
            self = .transferRetry(attempt: Int(attempt), until: DeviceInstant(millisecondsSinceEpoch: until))
        case ("lowPowerMode", 1): self = .lowPowerMode
        case ("battery", 3):
            guard let level = number(1, in: 0...100), let threshold = number(2, in: 0...100) else { return nil }
            self = .battery(level: Int(level), threshold: Int(threshold))
        case ("thermal", 2):
            guard let state = ThermalState(rawValue: String(parts[1])) else { return nil }
            self = .thermal(state)
        case ("priority1", 1): self = .priority1
        case ("fetchSlots", 3):
            guard let running = number(1, in: count), let cap = number(2, in: count) else { return nil }
            self = .fetchSlots(running: Int(running), cap: Int(cap))
        case ("fetchRunning", 1): self = .fetchRunning
        case ("offline", 1): self = .offline
        case ("appUsage", 3):
            guard let opened = number(1, in: milliseconds), let threshold = number(2, in: milliseconds) else { return nil }
            self = .appUsage(lastOpened: DeviceInstant(millisecondsSinceEpoch: opened), threshold: .milliseconds(threshold))
        case ("appShare", 5):
            guard let until = number(1, in: milliseconds), let used = number(2, in: count), let share = number(3, in: count),
                let budget = number(4, in: count)
            else { return nil }
            self = .appShare(used: Int(used), share: Int(share), budget: Int(budget), until: DeviceInstant(millisecondsSinceEpoch: until))
        case ("rebootWarmup", 2):
            guard let until = number(1, in: milliseconds) else { return nil }
            self = .rebootWarmup(until: DeviceInstant(millisecondsSinceEpoch: until))
        case ("earliestBegin", 2):
            guard let until = number(1, in: milliseconds) else { return nil }
            self = .earliestBegin(until: DeviceInstant(millisecondsSinceEpoch: until))
        case ("forceQuit", 1): self = .forceQuit
        case ("backgroundRefreshOff", 1): self = .backgroundRefreshOff
        case ("deviceInUse", 1): self = .deviceInUse
        case ("externalPower", 1): self = .externalPower
        case ("taskPenalty", 2):
            guard let until = number(1, in: milliseconds) else { return nil }
            self = .taskPenalty(until: DeviceInstant(millisecondsSinceEpoch: until))
        case ("activityBudget", 3):
            let until = parts[1].isEmpty ? nil : number(1, in: milliseconds)
            guard until != nil || parts[1].isEmpty, let budget = number(2, in: count) else { return nil }
            self = .activityBudget(budget: Int(budget), until: until.map(DeviceInstant.init(millisecondsSinceEpoch:)))
        case ("opportunistic", 2):
            guard let until = number(1, in: milliseconds) else { return nil }
            self = .opportunistic(until: DeviceInstant(millisecondsSinceEpoch: until))
        case ("continuedSlots", 3):
            guard let running = number(1, in: count), let capacity = number(2, in: count) else { return nil }
            self = .continuedSlots(running: Int(running), capacity: Int(capacity))
        default: return nil
        }
    }
}
