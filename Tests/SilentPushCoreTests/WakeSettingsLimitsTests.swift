import SilentPushCore
import Testing

/// Wake settings given through the Swift API are held to the flags' ranges before a
/// receiver starts: a factor past its range would overflow when an interval is multiplied by
/// it (a trap on the event loop), and a negative interval or budget would hold every push.
@Suite struct WakeSettingsLimitsTests {
    @Test func everyProfileIsInRange() {
        for profile in WakeProfile.allCases {
            #expect(profile.settings.problem == nil, "\(profile)")
        }
    }

    @Test func aNumberOutOfItsFlagsRangeIsNamedWithItsFlag() {
        var settings = WakeProfile.ios.settings
        settings.appUsageFactors = .init(week: .max, older: .max)
        #expect(settings.problem?.setting == "appUsageFactors.week")
        #expect(settings.problem.map { "\($0)" } == "wakeSettings.appUsageFactors.week \(Int.max): give from 1 to 64 (--app-usage-factors)")
        settings.appUsageFactors = .init(week: 4, older: 2)
        #expect(settings.problem?.setting == "appUsageFactors.older")
        settings.appUsageFactors = .init()
        #expect(settings.problem == nil)

        let cases: [(String, (inout WakeSettings) -> Void)] = [
            ("overrunFactor", { $0.overrunFactor = .max }),
            ("minimumInterval", { $0.minimumInterval = .seconds(-60) }),
            ("deadline", { $0.deadline = .seconds(-1) }),
            ("deadline", { $0.deadline = .zero }),
            ("dailyBudget", { $0.dailyBudget = -3 }),
            ("maximumConcurrentFetches", { $0.maximumConcurrentFetches = 0 }),
            ("batteryThreshold", { $0.batteryThreshold = 101 }),
            ("taskExpirationGrace", { $0.taskExpirationGrace = .seconds(601) }),
            ("continuedTaskCapacity", { $0.continuedTaskCapacity = 0 }),
        ]
        for (setting, change) in cases {
            var changed = WakeProfile.ios.settings
            change(&changed)
            #expect(changed.problem?.setting == setting, "\(setting): \(String(describing: changed.problem))")
        }
    }
}
