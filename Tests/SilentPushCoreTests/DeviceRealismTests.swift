import SilentPushCore
import Testing

/// The factors iOS documents beyond the interval: the daily budget, battery, thermal state,
/// the debugger and the profiles, each with the reason the policy gives for a waiting push.
@Suite struct DeviceRealismTests {
    typealias Scenario = WakePolicyTests.Scenario
    typealias App = WakePolicyTests.App
    static let app = WakePolicyTests.app
    static let minute: Int64 = 60
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400

    /// The seed example: pushes at minutes 0, 7, 14, …, 91.
    static func seedPushes(_ scenario: Scenario) -> [Int64: UInt64] {
        var pushes: [Int64: UInt64] = [:]
        for minute in stride(from: Int64(0), through: 91, by: 7) {
            pushes[minute] = scenario.push(app, at: minute * Self.minute)
        }
        scenario.advance(to: 104 * Self.minute)
        return pushes
    }

    @Test func theSeedExampleUnderIOSWaitsOutTheIntervalAndSaysSo() throws {
        let scenario = Scenario(.ios)
        let pushes = Self.seedPushes(scenario)
        #expect(scenario.wakes.map { Scenario.seconds($0.startedAt) / Self.minute } == [0, 15, 30, 45, 60, 75, 90])
        let last = try #require(pushes[91])
        #expect(
            scenario.fates[last]
                == .pending(
                    .minimumInterval(lastWake: Scenario.at(90 * Self.minute), interval: .seconds(15 * 60), until: Scenario.at(105 * Self.minute))))
        #expect(scenario.why(last)?.until == Scenario.at(105 * Self.minute))
    }

    @Test(arguments: ["profile", "device"])
    func withTheDebuggerAttachedEveryPushWakes(_ how: String) {
        let scenario = Scenario(how == "profile" ? .debugger : .ios)
        if how == "device" { scenario.setDevice("d1", DeviceState(lowPowerMode: true, debuggerAttached: true), at: 0) }
        let pushes = Self.seedPushes(scenario)
        #expect(scenario.wakes.count == 14)
        for (minute, push) in pushes { #expect(scenario.fates[push] == .delivered(at: minute * Self.minute), "push of minute \(minute)") }
    }

    @Test func theDailyBudgetSpansTheDevicesAppsOverThreeDays() {
        // 1 s between wakes: only the budget holds pushes back.
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(1), dailyBudget: 3))
        let apps = [App(device: "d1", topic: "com.example.a"), App(device: "d1", topic: "com.example.b")]
        var held: [WaitReason<DeviceInstant>] = []
        // Every hour for three days, a push to each app of the device.
        for hour in 0..<(3 * 24) as Range<Int64> {
            for (index, app) in apps.enumerated() {
                let push = scenario.push(app, at: hour * Self.hour + Int64(index))
                if let why = scenario.why(push) { held.append(why) }
            }
        }
        scenario.advance(to: 3 * Self.day - 1)
        let starts = scenario.wakes.map { Scenario.seconds($0.startedAt) }
        // No 24-hour window holds more than three launches across the device's apps...
        for start in starts {
            #expect(starts.filter { $0 >= start && $0 < start + Self.day }.count <= 3, "window from \(start)")
        }
        // ...and the budget is used, not starved: three launches a day, each 24 h after the one it replaces.
        #expect(starts.count == 9)
        #expect(zip(starts, starts.dropFirst(3)).allSatisfy { $1 - $0 == Self.day })
        // A held push says whose budget and when it refills.
        #expect(held.first == .dailyBudget(used: 3, budget: 3, until: Scenario.at(Self.day)))
        // Another device has its own budget.
        #expect(scenario.fates[scenario.push(App(device: "d2", topic: "com.example.a"), at: 3 * Self.day + 10)] == .delivered(at: 3 * Self.day + 10))
    }

    @Test func aDevicesOwnBudgetOverridesTheProfilesAndZeroHoldsEverything() {
        let scenario = Scenario(.strict)
        scenario.setDevice("d1", DeviceState(dailyBudget: 0), at: 0)
        let push = scenario.push(Self.app, at: 10)
        #expect(scenario.fates[push] == .pending(.dailyBudget(used: 0, budget: 0, until: nil)))
        scenario.setDevice("d1", DeviceState(dailyBudget: 1), at: 20)
        #expect(scenario.fates[push] == .delivered(at: 20))
    }

    /// A budget set on a device counts the launches it made before (read from the record,
    /// as a restart reads them): the fate is the one a restart gives. Of the launches the
    /// device kept, only those from `through` on are added to what was read.
    @Test func aBudgetSetLaterCountsTheLaunchesAlreadyMade() {
        var settings = WakeSettings.fast
        settings.minimumInterval = .seconds(60)
        let live = Scenario(settings)
        let first = live.push(Self.app, at: 0)
        #expect(live.fates[first] == .delivered(at: 0))
        live.stepTimers(before: 100)
        live.apply(
            live.policy.setDeviceState(
                DeviceState(dailyBudget: 1), for: "d1", launches: ([(Self.app, Scenario.at(0))], Scenario.at(100)), now: Scenario.at(100)))
        let second = live.push(Self.app, at: 200)
        #expect(live.fates[second] == .pending(.dailyBudget(used: 1, budget: 1, until: Scenario.at(86_400))))

        let restarted = Scenario(settings)
        restarted.setDevice("d1", DeviceState(dailyBudget: 1), at: 100)
        restarted.policy.restoreLaunch(of: Self.app, at: Scenario.at(0))
        let again = restarted.push(Self.app, at: 200)
        #expect(restarted.fates[again] == live.fates[second])

        // Raised to 2: the launch kept under 1 is before `through`, so only the one read
        // counts; the push wakes.
        live.apply(
            live.policy.setDeviceState(
                DeviceState(dailyBudget: 2), for: "d1", launches: ([(Self.app, Scenario.at(0))], Scenario.at(300)), now: Scenario.at(300)))
        #expect(live.fates[second] == .delivered(at: 300))
        // Raised to 3 with nothing read: the two kept from `through` on still count, once each.
        live.apply(live.policy.setDeviceState(DeviceState(dailyBudget: 3), for: "d1", launches: ([], Scenario.at(0)), now: Scenario.at(400)))
        let third = live.push(Self.app, at: 500)
        #expect(live.fates[third] == .delivered(at: 500))
        let fourth = live.push(Self.app, at: 600)
        #expect(live.fates[fourth] == .pending(.dailyBudget(used: 3, budget: 3, until: Scenario.at(86_400))))
    }

    @Test func aLowBatteryHoldsPriorityFiveUntilCharging() {
        let scenario = Scenario(.ios)
        let other = App(device: "d1", topic: "com.example.other")
        scenario.setDevice("d1", DeviceState(batteryLevel: 15), at: 0)
        let five = scenario.push(Self.app, at: 10, priority: .normal)
        let ten = scenario.push(other, at: 10, priority: .high)
        #expect(scenario.fates[five] == .pending(.battery(level: 15, threshold: 20)))
        #expect(scenario.fates[ten] == .delivered(at: 10))
        scenario.advance(to: 2 * Self.hour)
        #expect(scenario.fates[five] == .pending(.battery(level: 15, threshold: 20)))
        scenario.setDevice("d1", DeviceState(batteryLevel: 15, charging: true), at: 2 * Self.hour)
        #expect(scenario.fates[five] == .delivered(at: 2 * Self.hour))
    }

    @Test func theBatteryThresholdIsASetting() {
        let scenario = Scenario(WakeSettings(batteryThreshold: 50))
        scenario.setDevice("d1", DeviceState(batteryLevel: 40), at: 0)
        let push = scenario.push(Self.app, at: 10, priority: .normal)
        #expect(scenario.fates[push] == .pending(.battery(level: 40, threshold: 50)))
        scenario.setDevice("d1", DeviceState(batteryLevel: 50), at: 20)
        #expect(scenario.fates[push] == .delivered(at: 20))
    }

    /// A battery level is a percentage however it is set: through the initializer or the
    /// property, one outside 0–100 is kept at the nearer end, and a wait names that level.
    @Test func aBatteryLevelSetOutOfRangeIsKeptWithinIt() {
        var state = DeviceState(batteryLevel: 150)
        #expect(state.batteryLevel == 100)
        state.batteryLevel = -5
        #expect(state.batteryLevel == 0)
        state.batteryLevel = Int.max
        #expect(state.batteryLevel == 100)
        state.batteryLevel = -5
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", state, at: 0)
        let push = scenario.push(Self.app, at: 10, priority: .normal)
        #expect(scenario.fates[push] == .pending(.battery(level: 0, threshold: 20)))
    }

    @Test func seriousHeatHoldsPriorityFiveAndCriticalHoldsEverything() {
        let scenario = Scenario(.ios)
        let other = App(device: "d1", topic: "com.example.other")
        scenario.setDevice("d1", DeviceState(thermalState: .serious), at: 0)
        let five = scenario.push(Self.app, at: 10, priority: .normal)
        #expect(scenario.fates[five] == .pending(.thermal(.serious)))
        scenario.setDevice("d1", DeviceState(thermalState: .critical), at: 20)
        #expect(scenario.fates[five] == .pending(.thermal(.critical)))
        let ten = scenario.push(other, at: 30, priority: .high)
        #expect(scenario.fates[ten] == .pending(.thermal(.critical)))
        scenario.setDevice("d1", DeviceState(thermalState: .fair), at: 40)
        #expect(scenario.fates[five] == .delivered(at: 40))
        #expect(scenario.fates[ten] == .delivered(at: 40))
    }

    @Test func strictKeepsToTwoOrThreeAnHour() {
        let scenario = Scenario(.strict)
        for minute in stride(from: Int64(0), to: 120, by: 5) { scenario.push(Self.app, at: minute * Self.minute) }
        scenario.advance(to: 119 * Self.minute)
        let starts = scenario.wakes.map { Scenario.seconds($0.startedAt) / Self.minute }
        #expect(starts == [0, 20, 40, 60, 80, 100])
    }

    @Test func offIgnoresTheDevice() {
        let scenario = Scenario(.off)
        scenario.setDevice("d1", DeviceState(forceQuit: true, lowPowerMode: true, thermalState: .critical), at: 0)
        let first = scenario.push(Self.app, at: 10, priority: .normal)
        let second = scenario.push(Self.app, at: 11, priority: .normal)
        #expect(scenario.fates[first] == .delivered(at: 10))
        #expect(scenario.fates[second] == .delivered(at: 11))
    }

    @Test func aFullFetchCapSaysSo() {
        var settings = WakeSettings.fast
        settings.maximumConcurrentFetches = 1
        let scenario = Scenario(settings)
        scenario.completeImmediately = false
        scenario.push(Self.app, at: 0)
        let waiting = scenario.push(App(device: "d2", topic: "com.example.app"), at: 1)
        #expect(scenario.fates[waiting] == .pending(.fetchSlots(running: 1, cap: 1)))
    }

    @Test func aStoredReasonReadsBack() {
        let reasons: [WaitReason<DeviceInstant>] = [
            .minimumInterval(
                lastWake: DeviceInstant(millisecondsSinceEpoch: 1_000), interval: .seconds(900), until: DeviceInstant(millisecondsSinceEpoch: 901_000)
            ),
            .dailyBudget(used: 3, budget: 3, until: DeviceInstant(millisecondsSinceEpoch: 5)), .dailyBudget(used: 0, budget: 0, until: nil),
            .lowPowerMode, .battery(level: 15, threshold: 20), .thermal(.critical), .priority1, .fetchSlots(running: 64, cap: 64), .fetchRunning,
            .offline, .rebootWarmup(until: DeviceInstant(millisecondsSinceEpoch: 7)),
            .appUsage(lastOpened: DeviceInstant(millisecondsSinceEpoch: 3), threshold: .seconds(14 * 86_400)),
            .appShare(used: 4, share: 4, budget: 8, until: DeviceInstant(millisecondsSinceEpoch: 9)),
            .earliestBegin(until: DeviceInstant(millisecondsSinceEpoch: 11)), .forceQuit, .backgroundRefreshOff, .deviceInUse, .externalPower,
            .taskPenalty(until: DeviceInstant(millisecondsSinceEpoch: 13)), .continuedSlots(running: 2, capacity: 2),
        ]
        for reason in reasons { #expect(WaitReason(stored: reason.stored) == reason, "\(reason.stored)") }
        for text in [
            "", "battery:101:20", "thermal:toasty", "minimumInterval:-5:900", "dailyBudget:x:1:1", "fetchSlots:1", "earliestBegin:-1",
            "continuedSlots:2", "nonsense",
        ] {
            #expect(WaitReason<DeviceInstant>(stored: text) == nil, "\(text)")
        }
    }

    /// The text is what rows already on disk hold: it must not change with how it is made.
    @Test func aStoredReasonKeepsItsText() {
        let cases: [(WaitReason<DeviceInstant>, String)] = [
            (
                .minimumInterval(
                    lastWake: DeviceInstant(millisecondsSinceEpoch: 1_000), interval: .seconds(900),
                    until: DeviceInstant(millisecondsSinceEpoch: 1_763_900_000_123)),
                "minimumInterval:1763900000123:900000"
            ),
            (.dailyBudget(used: 0, budget: 0, until: nil), "dailyBudget::0:0"),
            (.dailyBudget(used: 12, budget: 3_456, until: DeviceInstant(millisecondsSinceEpoch: 0)), "dailyBudget:0:12:3456"),
            (.battery(level: 9, threshold: 100), "battery:9:100"),
            (.thermal(.serious), "thermal:serious"),
            (.fetchSlots(running: .min, cap: .max), "fetchSlots:-9223372036854775808:9223372036854775807"),
            (.appShare(used: -1, share: 10, budget: 1_000_000_000, until: DeviceInstant(millisecondsSinceEpoch: 42)), "appShare:42:-1:10:1000000000"),
            (.appUsage(lastOpened: DeviceInstant(millisecondsSinceEpoch: 7), threshold: .milliseconds(1)), "appUsage:7:1"),
            (.rebootWarmup(until: DeviceInstant(millisecondsSinceEpoch: 9_223_372_036_854)), "rebootWarmup:9223372036854"),
            (.continuedSlots(running: 0, capacity: 10), "continuedSlots:0:10"),
            (.lowPowerMode, "lowPowerMode"),
        ]
        for (reason, text) in cases { #expect(reason.stored == text) }
    }

    @Test func offlineAPNsKeepsTheLatestPushAndDeliversItOnReconnect() {
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", DeviceState(network: .offline), at: 0)
        let first = scenario.push(Self.app, at: 10)
        #expect(scenario.fates[first] == .pending(.offline))
        let second = scenario.push(Self.app, at: 20)
        let third = scenario.push(Self.app, at: 30)
        scenario.advance(to: 2 * Self.hour)
        #expect(scenario.wakes.isEmpty)
        #expect(scenario.fates[third] == .pending(.offline))
        scenario.setDevice("d1", DeviceState(network: .online), at: 2 * Self.hour)
        #expect(scenario.fates[third] == .delivered(at: 2 * Self.hour))
        #expect(scenario.fates[first] == .coalesced(intoWakeAt: 2 * Self.hour, atAPNs: true))
        #expect(scenario.fates[second] == .coalesced(intoWakeAt: 2 * Self.hour, atAPNs: true))
    }

    /// A push that still waits for the same rule when the instant it waited for comes says
    /// its new one: its `until` never stays in the past.
    @Test func aPushStillHeldByTheBudgetSaysTheNextRefill() throws {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(60), dailyBudget: 1))
        let (a, b, c) = (App(device: "d1", topic: "com.a"), App(device: "d1", topic: "com.b"), App(device: "d1", topic: "com.c"))
        #expect(scenario.fates[scenario.push(a, at: 0)] == .delivered(at: 0))
        let first = scenario.push(c, at: 10)
        let second = scenario.push(b, at: 70)
        guard case .pending(.dailyBudget(_, _, let until?))? = scenario.fates[second] else {
            Issue.record("\(String(describing: scenario.fates[second]))")
            return
        }
        #expect(until == Scenario.at(Self.day))
        scenario.advance(to: Self.day + 60)
        #expect(scenario.fates[first] == .delivered(at: Self.day))
        guard case .pending(.dailyBudget(_, _, let later?))? = scenario.fates[second] else {
            Issue.record("\(String(describing: scenario.fates[second]))")
            return
        }
        #expect(later == Scenario.at(2 * Self.day), "it still said \(later)")
    }

    /// A push already expired as it arrives for an offline device is not stored by APNs: the
    /// push APNs holds stays, and wakes the app on reconnect (both had expired together).
    @Test func offlineAnExpiredArrivalReplacesNothingAPNsHolds() {
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", DeviceState(network: .offline), at: 0)
        let held = scenario.push(Self.app, at: 10)
        let expired = scenario.push(Self.app, at: 20, expiresIn: 0)
        #expect(scenario.fates[expired] == .expired)
        #expect(scenario.fates[held] == .pending(.offline))
        scenario.setDevice("d1", DeviceState(network: .online), at: 30)
        #expect(scenario.fates[held] == .delivered(at: 30))
    }

    @Test func aPushExpiresAtAPNsWhileTheDeviceIsOffline() {
        let scenario = Scenario(.ios)
        scenario.setDevice("d1", DeviceState(network: .offline), at: 0)
        let short = scenario.push(Self.app, at: 10, expiresIn: 60)
        scenario.advance(to: 71)
        #expect(scenario.fates[short] == .expired)
        // Without an expiry, APNs keeps it 30 days.
        let kept = scenario.push(Self.app, at: 100)
        scenario.advance(to: 100 + 30 * Self.day - 1)
        #expect(scenario.fates[kept] == .pending(.offline))
        scenario.advance(to: 100 + 30 * Self.day)
        #expect(scenario.fates[kept] == .expired)
        // apns-expiration 0: APNs does not store it at all.
        let now = scenario.push(Self.app, at: 31 * Self.day, expiresIn: 0)
        #expect(scenario.fates[now] == .expired)
        scenario.setDevice("d1", DeviceState(network: .online), at: 31 * Self.day + 1)
        #expect(scenario.wakes.isEmpty)
    }

    @Test func offlineHoldsEvenWithTheDebuggerAttached() {
        let scenario = Scenario(.debugger)
        scenario.setDevice("d1", DeviceState(network: .offline), at: 0)
        let push = scenario.push(Self.app, at: 10)
        #expect(scenario.fates[push] == .pending(.offline))
        scenario.setDevice("d1", DeviceState(network: .online), at: 20)
        #expect(scenario.fates[push] == .delivered(at: 20))
    }

    @Test func theForecastSaysWhenAndWhyAndChangesNothing() {
        let scenario = Scenario(.ios)
        let now = Scenario.at
        #expect(scenario.policy.forecast(for: Self.app, priority: .normal, now: now(0)) == .wakes(at: now(0), after: nil))
        scenario.push(Self.app, at: 0)
        let deadline = scenario.policy.nextDeadline
        let forecast = scenario.policy.forecast(for: Self.app, priority: .normal, now: now(60))
        #expect(
            forecast
                == .wakes(
                    at: now(15 * Self.minute),
                    after: .minimumInterval(lastWake: now(0), interval: .seconds(15 * 60), until: now(15 * Self.minute))))
        #expect(forecast.wakeAt == now(15 * Self.minute))
        // Nothing changed: no slot filled, no timer armed, the same wake comes next.
        #expect(scenario.policy.pendingSlotCount == 0 && scenario.policy.nextDeadline == deadline)
        #expect(scenario.policy.forecast(for: Self.app, priority: .low, now: now(60)) == .waits(.priority1))
        scenario.setDevice("d1", DeviceState(lowPowerMode: true), at: 70)
        #expect(scenario.policy.forecast(for: Self.app, priority: .normal, now: now(80)) == .waits(.lowPowerMode))
        scenario.setDevice("d1", DeviceState(forceQuit: true), at: 90)
        #expect(scenario.policy.forecast(for: Self.app, priority: .high, now: now(100)) == .dropped(.forceQuit))
        #expect(scenario.wakes.count == 1)
    }

    @Test func noLaunchDuringARebootsWarmUp() {
        var settings = WakeSettings.fast
        settings.rebootWarmup = .seconds(10 * 60)
        let scenario = Scenario(settings)
        let other = App(device: "d2", topic: "com.example.app")
        scenario.apply(scenario.policy.reboot("d1", now: Scenario.at(0)))
        let push = scenario.push(Self.app, at: 60, priority: .high)
        #expect(scenario.fates[push] == .pending(.rebootWarmup(until: Scenario.at(600))))
        // Another device did not restart.
        #expect(scenario.fates[scenario.push(other, at: 60)] == .delivered(at: 60))
        scenario.advance(to: 599)
        #expect(scenario.fates[push] == .pending(.rebootWarmup(until: Scenario.at(600))))
        scenario.advance(to: 600)
        #expect(scenario.fates[push] == .delivered(at: 600))
        // A push waiting when the device restarts waits out the warm-up too, and says so.
        scenario.completeImmediately = true
        let waiting = scenario.push(Self.app, at: 700, priority: .low)
        scenario.apply(scenario.policy.reboot("d1", now: Scenario.at(710)))
        #expect(scenario.fates[waiting] == .pending(.priority1))  // priority 1 never wakes anyway
        let next = scenario.push(Self.app, at: 720, priority: .high)
        #expect(scenario.fates[next] == .pending(.rebootWarmup(until: Scenario.at(1_310))))
        #expect(scenario.policy.forecast(for: Self.app, priority: .high, now: Scenario.at(720)).wakeAt == Scenario.at(1_310))
    }

    @Test func appsNotOpenedForAWhileAreLaunchedLessThenNotAtAll() {
        let scenario = Scenario(.ios)
        let start = 20 * Self.day
        let interval = Int64(15 * 60)
        func open(daysAgo: Int64, at seconds: Int64) {
            scenario.stepTimers(before: seconds)
            scenario.apply(scenario.policy.setLastOpened(Scenario.at(seconds - daysAgo * Self.day), for: Self.app, now: Scenario.at(seconds)))
        }
        // Opened today: the interval as set.
        open(daysAgo: 0, at: start)
        scenario.push(Self.app, at: start)
        let today = scenario.push(Self.app, at: start + 60)
        #expect(scenario.why(today)?.until == Scenario.at(start + interval))
        scenario.advance(to: start + interval)
        #expect(scenario.fates[today] == .delivered(at: start + interval))
        // Last opened two days ago: twice the interval after the last wake, and it says so.
        open(daysAgo: 2, at: start + interval + 10)
        let twoDays = scenario.push(Self.app, at: start + interval + 20)
        #expect(
            scenario.fates[twoDays]
                == .pending(
                    .minimumInterval(
                        lastWake: Scenario.at(start + interval), interval: .seconds(2 * interval), until: Scenario.at(start + 3 * interval))))
        // Ten days ago: four times.
        open(daysAgo: 10, at: start + interval + 30)
        #expect(scenario.why(twoDays)?.until == Scenario.at(start + 5 * interval))
        scenario.advance(to: start + 5 * interval)
        #expect(scenario.fates[twoDays] == .delivered(at: start + 5 * interval))
        // Fifteen days ago, past the 14-day threshold: not launched until opened.
        let lastOpened = Scenario.at(start + 5 * interval + 10 - 15 * Self.day)
        open(daysAgo: 15, at: start + 5 * interval + 10)
        let stale = scenario.push(Self.app, at: start + 7 * interval)
        #expect(scenario.fates[stale] == .pending(.appUsage(lastOpened: lastOpened, threshold: .seconds(14 * Self.day))))
        scenario.advance(to: start + 20 * interval)
        #expect(scenario.fates[stale] == .pending(.appUsage(lastOpened: lastOpened, threshold: .seconds(14 * Self.day))))
        open(daysAgo: 0, at: start + 20 * interval)
        #expect(scenario.fates[stale] == .delivered(at: start + 20 * interval))
        // Another app on the device is not affected.
        let other = App(device: "d1", topic: "com.example.other")
        #expect(scenario.fates[scenario.push(other, at: start + 20 * interval + 1)] == .delivered(at: start + 20 * interval + 1))
    }

    /// The threshold is said in days, as it is given (`--app-usage-threshold 14d`), not hours.
    @Test func theAppUsageHoldSaysItsThresholdInDays() {
        let held = WaitReason<Int>.appUsage(lastOpened: 0, threshold: .seconds(14 * Self.day))
        #expect(held.text(time: { _ in "then" }) == "held: the app was last opened at then, more than 14 days ago; it is launched again once opened")
        let day = WaitReason<Int>.appUsage(lastOpened: 0, threshold: .seconds(Self.day))
        #expect(day.text(time: { _ in "then" }).contains("more than 1 day ago"))
        let hours = WaitReason<Int>.appUsage(lastOpened: 0, threshold: .seconds(36 * 3600))
        #expect(hours.text(time: { _ in "then" }).contains("more than 36 h ago"))
    }

    /// `--app-usage-factors 3,5`: two days unopened is three times the interval, ten days five.
    @Test func theAppUsageFactorsAreTheSettings() {
        var settings = WakeSettings.ios
        settings.appUsageFactors = WakeSettings.AppUsageFactors(week: 3, older: 5)
        let scenario = Scenario(settings)
        let start = 20 * Self.day
        let interval = Int64(15 * 60)
        scenario.apply(scenario.policy.setLastOpened(Scenario.at(start), for: Self.app, now: Scenario.at(start)))
        #expect(scenario.fates[scenario.push(Self.app, at: start)] == .delivered(at: start))
        scenario.apply(scenario.policy.setLastOpened(Scenario.at(start - 2 * Self.day), for: Self.app, now: Scenario.at(start + 10)))
        let twoDays = scenario.push(Self.app, at: start + 20)
        #expect(scenario.why(twoDays)?.until == Scenario.at(start + 3 * interval))
        scenario.apply(scenario.policy.setLastOpened(Scenario.at(start - 10 * Self.day), for: Self.app, now: Scenario.at(start + 30)))
        #expect(scenario.why(twoDays)?.until == Scenario.at(start + 5 * interval))
    }

    @Test func anAppUsedLessGetsItsShareOfTheBudget() {
        let scenario = Scenario(WakeSettings(minimumInterval: .seconds(1), dailyBudget: 8))
        let used = App(device: "d1", topic: "com.example.used")
        let idle = App(device: "d1", topic: "com.example.idle")
        // Opened two days ago: half the device's budget, 4 of 8.
        scenario.apply(scenario.policy.setLastOpened(Scenario.at(-2 * Self.day), for: idle, now: Scenario.at(0)))
        var held: WaitReason<DeviceInstant>?
        for minute in 0..<6 as Range<Int64> {
            let push = scenario.push(idle, at: minute * Self.minute)
            if held == nil { held = scenario.why(push) }
        }
        #expect(scenario.wakes.count == 4)
        #expect(held == .appShare(used: 4, share: 4, budget: 8, until: Scenario.at(Self.day)))
        // The device's other app still has the rest of the budget.
        for minute in 10..<14 as Range<Int64> {
            #expect(scenario.fates[scenario.push(used, at: minute * Self.minute)] == .delivered(at: minute * Self.minute))
        }
        let over = scenario.push(used, at: 20 * Self.minute)
        #expect(scenario.fates[over] == .pending(.dailyBudget(used: 8, budget: 8, until: Scenario.at(Self.day))))
    }
}
