import SilentPushCore
import Testing

/// The fault rules on their own: which request a rule matches, its fraction, count and
/// window, and the order rules are tried in.
@Suite struct FaultTableTests {
    static let request = FaultRequest(device: "aa", topic: "com.example.app", team: "TEAM", keyID: "KEY")
    static func at(_ seconds: Int64) -> DeviceInstant { DeviceInstant(secondsSinceEpoch: 1_000_000 + seconds) }

    @Test func everyGivenFieldMustMatch() {
        var table = FaultTable()
        _ = table.add(FaultRule(match: .init(device: "bb"), action: .reset))
        _ = table.add(FaultRule(match: .init(topic: "com.example.app", team: "OTHER"), action: .reset))
        let wanted = table.add(FaultRule(match: .init(topic: "com.example.app", keyID: "KEY"), action: .reason(.serviceUnavailable)))
        #expect(table.decide(Self.request, now: Self.at(0), draw: 0.5)?.id == wanted)
        // A certificate's request has no team or key: a rule that names one does not match it.
        let certificate = FaultRequest(device: "aa", topic: "com.example.app", team: nil, keyID: nil)
        #expect(table.decide(certificate, now: Self.at(0), draw: 0.5) == nil)
    }

    /// APNs takes a device token in either case: a rule's device matches a request's in
    /// either case, whether the rule came through the admin API (kept in lower case) or the
    /// Swift API (kept as given).
    @Test func aDeviceMatchesInEitherCase() {
        let upper = FaultRequest(device: "AABB", topic: "com.example.app", team: nil, keyID: nil)
        #expect(upper.device == "aabb")
        #expect(FaultRule.Match(device: "AaBb").matches(upper))
        #expect(FaultRule.Match(device: "aabb").matches(upper))
        #expect(!FaultRule.Match(device: "aabc").matches(upper))
    }

    @Test func aCountRunsOutAndTheNextRuleTakesOver() {
        var table = FaultTable()
        let first = table.add(FaultRule(count: 2, action: .reason(.internalServerError)))
        let second = table.add(FaultRule(action: .reason(.tooManyRequests)))
        let decided = (0..<4).map { _ in table.decide(Self.request, now: Self.at(0), draw: 0)?.id }
        #expect(decided == [first, first, second, second])
        #expect(table.rules.first?.isSpent == true && table.rules.first?.applied == 2)
    }

    @Test func aFractionAppliesWhenTheDrawFallsUnderIt() {
        var table = FaultTable()
        _ = table.add(FaultRule(fraction: 0.25, action: .reset))
        #expect(table.decide(Self.request, now: Self.at(0), draw: 0.24) != nil)
        #expect(table.decide(Self.request, now: Self.at(0), draw: 0.25) == nil)
        #expect(table.decide(Self.request, now: Self.at(0), draw: 0.9) == nil)
    }

    @Test func aWindowIsFromInclusiveUntilExclusive() {
        var table = FaultTable()
        _ = table.add(FaultRule(from: Self.at(10), until: Self.at(20), action: .delay(.milliseconds(5))))
        #expect(table.decide(Self.request, now: Self.at(9), draw: 0) == nil)
        #expect(table.decide(Self.request, now: Self.at(10), draw: 0) != nil)
        #expect(table.decide(Self.request, now: Self.at(19), draw: 0) != nil)
        #expect(table.decide(Self.request, now: Self.at(20), draw: 0) == nil)
    }

    @Test func rulesAreRemovedAndTheTableIsBounded() {
        var table = FaultTable()
        let id = table.add(FaultRule(action: .reset))
        #expect(id.map { table.remove($0) } == true)
        #expect(id.map { table.remove($0) } == false)
        for _ in 0..<FaultTable.capacity { #expect(table.add(FaultRule(action: .reset)) != nil) }
        #expect(table.add(FaultRule(action: .reset)) == nil)
    }

    @Test func anActionReadsBackFromItsText() {
        let actions: [FaultAction] = [
            .reason(.unregistered), .goAway(.tooManyRequests, afterStreams: 3), .reset, .delay(.milliseconds(250)),
        ]
        for action in actions { #expect(FaultAction(description: action.description) == action, "\(action)") }
        for text in ["", "reason Nope", "goaway TooManyRequests after -1", "delay 61000ms", "delay 5s", "reset now"] {
            #expect(FaultAction(description: text) == nil, "\(text)")
        }
    }

    /// A cluster's rules replace the table, ids and order kept; a rule already here keeps
    /// its counts, a new one starts at zero, and later local ids do not collide.
    @Test func replacingKeepsTheCountsOfRulesAlreadyHere() {
        var table = FaultTable()
        var counted = FaultRule(id: 7, match: .init(device: "aa"), count: 3, action: .reset)
        table.replace(with: [counted])
        #expect(
            table.decide(FaultRequest(device: "aa", topic: nil, team: nil, keyID: nil), now: DeviceInstant(nanosecondsSinceEpoch: 0), draw: 0)?.id
                == 7)
        counted.action = .reason(.serviceUnavailable)
        table.replace(with: [FaultRule(id: 9, action: .reset), counted])
        #expect(table.rules.map(\.id) == [9, 7])
        #expect(table.rules[1].remaining == 2 && table.rules[1].applied == 1 && table.rules[1].action == .reason(.serviceUnavailable))
        #expect(table.rules[0].applied == 0)
        #expect(table.add(FaultRule(action: .reset)) == 10)
        table.replace(with: [])
        #expect(table.rules.isEmpty)
    }
}
