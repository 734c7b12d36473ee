import SilentPushCore
import Testing

/// The device's Live Activities, rule by rule: each test asserts the action and its `why`.
@Suite struct LiveActivityPolicyTests {
    static let t0 = DeviceInstant(secondsSinceEpoch: 1_800_000_000)
    static let app = LiveActivityApp(device: String(repeating: "ab", count: 32), bundleID: "com.example.app")
    static let otherDevice = LiveActivityApp(device: String(repeating: "cd", count: 32), bundleID: "com.example.app")
    static let channel = ChannelID(header: "dHN0LXNyY2gtY2hubA==")!
    static let channelKey = LiveActivityPolicy.ChannelKey(bundleID: "com.example.app", channel: channel)

    static func at(_ seconds: Int64) -> DeviceInstant { t0.advanced(by: .seconds(seconds)) }

    static func payload(
        _ event: LiveActivityPayload.Event = .update, timestamp: Int64 = 100, content: String? = #"{"score":1}"#, stale: Int64? = nil,
        dismissal: Int64? = nil, inputToken: Bool = false, inputChannel: ChannelID? = nil
    ) -> LiveActivityPayload {
        LiveActivityPayload(
            event: event, timestamp: at(timestamp), contentState: content, attributesType: event == .start ? "GameAttributes" : nil,
            attributes: event == .start ? "{}" : nil, hasAlert: event == .start, staleDate: stale.map(at), dismissalDate: dismissal.map(at),
            inputPushToken: inputToken, inputPushChannel: inputChannel)
    }

    static func push(_ source: String, to token: String, _ payload: LiveActivityPayload, priority: APNsPriority = .high) -> LiveActivityPolicy.Push {
        LiveActivityPolicy.Push(
            source: source, token: token, bundleID: app.bundleID, priority: priority, payload: payload, newActivityID: "A-\(source)",
            newToken: "T-\(source)")
    }

    /// The updates among `actions`, by source.
    static func updates(_ actions: [LiveActivityAction]) -> [LiveActivityUpdate] {
        actions.compactMap { if case .update(let update) = $0 { update } else { nil } }
    }

    static func records(_ actions: [LiveActivityAction]) -> [(LiveActivity, String)] {
        actions.compactMap { if case .record(let activity) = $0 { (activity, activity.why) } else { nil } }
    }

    /// A policy with one activity of `app`, started by the app with update token "T1".
    static func withActivity(_ settings: LiveActivitySettings = .unthrottled) throws -> LiveActivityPolicy {
        var policy = LiveActivityPolicy(settings: settings)
        _ = try policy.start(
            id: "A1", app: app, attributesType: "GameAttributes", attributes: "{}", contentState: "{}", subscription: .token("T1"), now: t0)
        return policy
    }

    // MARK: Starting

    @Test func theAppStartsOneLocallyWithAnUpdateToken() throws {
        var policy = LiveActivityPolicy()
        let actions = try policy.start(
            id: "A1", app: Self.app, attributesType: "GameAttributes", attributes: "{}", contentState: "{}", subscription: .token("T1"), now: Self.t0)
        let (activity, why) = try #require(Self.records(actions).first)
        #expect(activity.state == .active)
        #expect(why == "started by the app, with an update token")
        #expect(policy.target(ofToken: "T1", bundleID: Self.app.bundleID) == .activity("A1"))
        #expect(throws: LiveActivityIgnored.unknownChannel) {
            try policy.start(
                id: "A2", app: Self.app, attributesType: "G", attributes: "{}", contentState: "{}", subscription: .channel(Self.channel),
                channelExists: false, now: Self.t0)
        }
    }

    @Test func aStartToThePushToStartTokenBeginsOneAndIssuesItsTokenWhenAsked() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        let p2s = Self.app.pushToStartToken
        #expect(p2s.count == 80 && p2s.hasPrefix(Self.app.device) && p2s != Self.otherDevice.pushToStartToken)
        #expect(LiveActivityApp.pushToStart(token: p2s, bundleID: "com.example.other") == nil)
        let actions = policy.receive(Self.push("P1", to: p2s, Self.payload(.start, inputToken: true)), channelExists: { _ in true }, now: Self.t0)
        let update = try #require(Self.updates(actions).first)
        #expect(update.outcome == .applied)
        #expect(update.why == "started by a push to the push-to-start token, with an update token")
        #expect(policy.target(ofToken: "T-P1", bundleID: Self.app.bundleID) == .activity("A-P1"))
        #expect(policy.activities["A-P1"]?.contentState == #"{"score":1}"#)

        let noToken = policy.receive(Self.push("P2", to: p2s, Self.payload(.start)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(noToken).first?.why == "started by a push to the push-to-start token, with no update token (no input-push-token: 1)")
        #expect(policy.activities["A-P2"]?.subscription == LiveActivity.Subscription.none)

        let onChannel = policy.receive(
            Self.push("P3", to: p2s, Self.payload(.start, inputChannel: Self.channel)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(onChannel).first?.outcome == .applied)
        #expect(policy.subscriberCount(Self.channelKey) == 1)
        let unknown = policy.receive(
            Self.push("P4", to: p2s, Self.payload(.start, inputChannel: Self.channel)), channelExists: { _ in false }, now: Self.t0)
        #expect(Self.updates(unknown).first?.outcome == .ignored(.unknownChannel))
    }

    /// In a cluster, an app's push-to-start token lands in its device's shard (so the proxy
    /// sends a start to the device's owner), and reads back to its app; outside one, and
    /// where the plain token lands there already, it is the plain token.
    @Test(arguments: [1, 2, 8, 1024]) func aClusterPushToStartTokenIsInItsDevicesShardAndReadsBack(shards: Int) throws {
        let map = try #require(ShardMap(count: shards))
        var variants = 0
        for n in 0..<200 {
            let app = LiveActivityApp(device: String(format: "%064x", n * 7919 + 1), bundleID: "com.example.app")
            let token = app.pushToStartToken(in: map)
            #expect(map.shard(of: token) == map.shard(of: app.device), "\(token)")
            #expect(token.count == 80 && token.hasPrefix(app.device))
            #expect(LiveActivityApp.pushToStart(token: token, bundleID: app.bundleID) == app)
            #expect(LiveActivityApp.pushToStart(token: token, bundleID: "com.example.other") == nil)
            #expect(app.pushToStartToken(in: nil) == app.pushToStartToken)
            if token != app.pushToStartToken {
                variants += 1
                // A variant whose digits were changed is no one's token.
                var digits = Array(token)
                digits[70] = digits[70] == "0" ? "1" : "0"
                #expect(LiveActivityApp.pushToStart(token: String(digits), bundleID: app.bundleID) == nil)
            }
        }
        // One shard: every plain token is in it. More: most plain tokens land elsewhere.
        #expect(shards == 1 ? variants == 0 : variants > 50)
    }

    @Test func tokensTakeOnlyTheirOwnEvents() throws {
        var policy = try Self.withActivity()
        let p2s = Self.app.pushToStartToken
        let toP2S = policy.receive(Self.push("U1", to: p2s, Self.payload()), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(toP2S).map(\.outcome) == [.ignored(.notAStart)])
        let startToToken = policy.receive(Self.push("S1", to: "T1", Self.payload(.start)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(startToToken).map(\.outcome) == [.ignored(.startToUpdateToken)])
        let unknown = policy.receive(Self.push("X", to: "nobody", Self.payload()), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(unknown).first?.activityID == nil)
        #expect(Self.updates(unknown).map(\.outcome) == [.ignored(.unknownToken)])
    }

    // MARK: Updates and their order

    @Test func updatesApplyInTimestampOrderAndAnOlderOneIsIgnored() throws {
        var policy = try Self.withActivity()
        let first = policy.receive(
            Self.push("U1", to: "T1", Self.payload(timestamp: 200, content: #"{"score":2}"#)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(first).map(\.outcome) == [.applied])
        let older = policy.receive(
            Self.push("U0", to: "T1", Self.payload(timestamp: 150, content: #"{"score":9}"#)), channelExists: { _ in true }, now: Self.t0)
        let ignored = try #require(Self.updates(older).first)
        #expect(ignored.outcome == .ignored(.olderTimestamp))
        #expect(ignored.why.contains("older than the last applied"))
        #expect(policy.activities["A1"]?.contentState == #"{"score":2}"#)
        let same = policy.receive(
            Self.push("U2", to: "T1", Self.payload(timestamp: 200, content: #"{"score":3}"#)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(same).map(\.outcome) == [.applied], "the same timestamp is not older")
    }

    // MARK: End, dismissal, stale, 8 hours

    @Test func anEndStaysFourHoursByDefaultThenIsDismissedAndLaterPushesAreIgnored() throws {
        var policy = try Self.withActivity()
        let end = policy.receive(Self.push("E", to: "T1", Self.payload(.end, content: nil)), channelExists: { _ in true }, now: Self.at(60))
        let (ended, why) = try #require(Self.records(end).first)
        #expect(ended.state == .ended(at: Self.at(60), dismissAt: Self.at(60 + 4 * 3600)))
        #expect(why.contains("on the Lock Screen until"))
        #expect(ended.contentState == "{}", "an end without content-state keeps what it shows")
        let after = policy.receive(Self.push("U", to: "T1", Self.payload(timestamp: 500)), channelExists: { _ in true }, now: Self.at(120))
        #expect(Self.updates(after).map(\.outcome) == [.ignored(.activityEnded)])
        #expect(policy.nextDeadline == Self.at(60 + 4 * 3600))
        let dismissed = policy.advance(to: Self.at(60 + 4 * 3600))
        #expect(Self.records(dismissed).map(\.0.state) == [.dismissed(at: Self.at(60 + 4 * 3600), endedAt: Self.at(60))])
        #expect(Self.records(dismissed).first?.0.endedAt == Self.at(60), "a dismissed activity keeps when it ended")
        #expect(Self.records(dismissed).first?.1.hasPrefix("dismissed from the Lock Screen") == true)
        // Retention forgets it once its dismissal is older than the cutoff, token and all.
        #expect(policy.forgetDismissed(before: Self.at(60 + 4 * 3600)) == 0, "dismissed at the cutoff, not before")
        #expect(policy.forgetDismissed(before: Self.at(61 + 4 * 3600)) == 1)
        #expect(policy.activities.isEmpty && policy.target(ofToken: "T1", bundleID: ended.app.bundleID) == nil)
    }

    @Test(arguments: [
        (Int64(30), LiveActivity.State.dismissed(at: at(60), endedAt: at(60))),  // a date in the past: at once
        (Int64(600), .ended(at: at(60), dismissAt: at(600))),  // within the window: that date
        (Int64(60 + 5 * 3600), .ended(at: at(60), dismissAt: at(60 + 4 * 3600))),  // past it: four hours
    ])
    func theDismissalDateIsHeldWithinFourHours(dismissal: Int64, state: LiveActivity.State) throws {
        var policy = try Self.withActivity()
        let end = policy.receive(
            Self.push("E", to: "T1", Self.payload(.end, dismissal: dismissal)), channelExists: { _ in true }, now: Self.at(60))
        #expect(Self.records(end).first?.0.state == state)
    }

    @Test func aStaleDateMarksItStaleAndALaterOneMakesItActiveAgain() throws {
        var policy = try Self.withActivity()
        _ = policy.receive(Self.push("U1", to: "T1", Self.payload(timestamp: 100, stale: 600)), channelExists: { _ in true }, now: Self.t0)
        let stale = policy.advance(to: Self.at(600))
        #expect(Self.records(stale).map(\.0.state) == [.stale])
        #expect(Self.records(stale).first?.1.hasPrefix("stale at its stale-date") == true)
        _ = policy.receive(Self.push("U2", to: "T1", Self.payload(timestamp: 700, stale: 1200)), channelExists: { _ in true }, now: Self.at(700))
        #expect(policy.activities["A1"]?.state == .active)
        // An update whose stale-date has passed makes it stale at once, and its why says so.
        _ = policy.receive(Self.push("U3", to: "T1", Self.payload(timestamp: 800, stale: 750)), channelExists: { _ in true }, now: Self.at(800))
        #expect(policy.activities["A1"]?.state == .stale)
        #expect(
            policy.activities["A1"]?.why.hasSuffix(
                "; stale at once (its stale-date \(ISO8601Timestamp.string(millisecondsSinceEpoch: Self.at(750).millisecondsSinceEpoch)) has passed)")
                == true)
    }

    /// An update replaces the activity's content whole, its stale-date included: one without a
    /// stale-date leaves a stale activity active, and the earlier date's timer does nothing.
    @Test func anUpdateWithoutAStaleDateClearsTheOneBefore() throws {
        var policy = try Self.withActivity()
        _ = policy.receive(Self.push("U1", to: "T1", Self.payload(timestamp: 100, stale: 600)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.records(policy.advance(to: Self.at(600))).map(\.0.state) == [.stale])
        _ = policy.receive(Self.push("U2", to: "T1", Self.payload(timestamp: 700)), channelExists: { _ in true }, now: Self.at(700))
        #expect(policy.activities["A1"]?.state == .active)
        #expect(policy.activities["A1"]?.staleDate == nil)

        _ = policy.receive(Self.push("U3", to: "T1", Self.payload(timestamp: 800, stale: 900)), channelExists: { _ in true }, now: Self.at(800))
        _ = policy.receive(Self.push("U4", to: "T1", Self.payload(timestamp: 850)), channelExists: { _ in true }, now: Self.at(850))
        #expect(Self.records(policy.advance(to: Self.at(900))).isEmpty, "U3's stale-date was replaced by U4's content")
        #expect(policy.activities["A1"]?.state == .active)
    }

    /// The relevance score is the content's too: an update without one clears the one before.
    @Test func anUpdateWithoutARelevanceScoreClearsTheOneBefore() throws {
        var policy = try Self.withActivity()
        var scored = Self.payload(timestamp: 100)
        scored.relevanceScore = 75
        _ = policy.receive(Self.push("U1", to: "T1", scored), channelExists: { _ in true }, now: Self.t0)
        #expect(policy.activities["A1"]?.relevanceScore == 75)
        _ = policy.receive(Self.push("U2", to: "T1", Self.payload(timestamp: 200)), channelExists: { _ in true }, now: Self.at(1))
        #expect(policy.activities["A1"]?.relevanceScore == nil)
        // An end without content-state keeps what the activity shows, its score too.
        var rescored = Self.payload(timestamp: 250)
        rescored.relevanceScore = 75
        _ = policy.receive(Self.push("U3", to: "T1", rescored), channelExists: { _ in true }, now: Self.at(2))
        _ = policy.receive(Self.push("E", to: "T1", Self.payload(.end, timestamp: 300, content: nil)), channelExists: { _ in true }, now: Self.at(3))
        #expect(policy.activities["A1"]?.relevanceScore == 75 && policy.activities["A1"]?.state.name == "ended")
    }

    @Test func itEndsAfterEightHoursActive() throws {
        var policy = try Self.withActivity()
        let expired = policy.advance(to: Self.at(8 * 3600))
        let (activity, why) = try #require(Self.records(expired).first)
        #expect(activity.state == .ended(at: Self.at(8 * 3600), dismissAt: Self.at(12 * 3600)))
        #expect(why == "ended by the system: a Live Activity is active for at most 8 hours")
    }

    @Test func whyNamesTheActiveSpanAndDismissalWindowSet() throws {
        var settings = LiveActivitySettings.unthrottled
        settings.maximumActive = .seconds(3600)
        settings.dismissalWindow = .seconds(30 * 60)
        var policy = try Self.withActivity(settings)
        let expired = policy.advance(to: Self.at(3600))
        let (activity, why) = try #require(Self.records(expired).first)
        #expect(activity.state == .ended(at: Self.at(3600), dismissAt: Self.at(3600 + 30 * 60)))
        #expect(why == "ended by the system: a Live Activity is active for at most 1 hour")
        var ending = try Self.withActivity(settings)
        let ended = ending.receive(
            Self.push("E", to: "T1", Self.payload(.end, timestamp: 300, content: nil)), channelExists: { _ in true }, now: Self.at(3))
        #expect(
            Self.records(ended).first?.1
                == "ended; on the Lock Screen until \(ISO8601Timestamp.string(millisecondsSinceEpoch: Self.at(3 + 30 * 60).millisecondsSinceEpoch)) (at most 30 min)"
        )
    }

    /// An update held back for its opportunity when the 8 hours end is ignored, saying so: not
    /// left waiting (with its push pending) for ever.
    @Test func anUpdateHeldWhenTheEightHoursEndIsIgnored() throws {
        var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 10, opportunisticDelay: .seconds(3600)))
        let late = 8 * 3600 - 60
        let held = policy.receive(
            Self.push("U", to: "T1", Self.payload(timestamp: 500), priority: .normal), channelExists: { _ in true }, now: Self.at(Int64(late)))
        #expect(Self.updates(held).map(\.outcome.name) == ["waiting"])
        let ended = policy.advance(to: Self.at(8 * 3600))
        let ignored = try #require(Self.updates(ended).first)
        #expect(ignored.source == "U" && ignored.outcome == .ignored(.activityEnded), "\(ignored)")
    }

    // MARK: Budget and priority

    @Test func priority10SpendsTheHourlyBudgetThenWaitsAndCoalescesToTheLatest() throws {
        var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 2, frequentHourlyBudget: 4, opportunisticDelay: .seconds(600)))
        func send(_ source: String, _ timestamp: Int64, at seconds: Int64) -> [LiveActivityUpdate] {
            Self.updates(
                policy.receive(
                    Self.push(source, to: "T1", Self.payload(timestamp: timestamp, content: #"{"n":"\#(source)"}"#)), channelExists: { _ in true },
                    now: Self.at(seconds)))
        }
        #expect(send("U1", 1, at: 0).map(\.why) == ["priority 10, within the hourly budget (1 of 2 this hour)"])
        #expect(send("U2", 2, at: 60).map(\.outcome) == [.applied])
        let third = send("U3", 3, at: 120)
        #expect(third.map(\.outcome) == [.waiting(until: Self.at(3600))])
        #expect(third.first?.why.hasPrefix("over the hourly budget of 2 priority-10 updates") == true)
        let fourth = send("U4", 4, at: 180)
        #expect(fourth.map(\.source) == ["U3", "U4"])
        #expect(fourth.first?.outcome == .coalesced(into: "U4"))
        #expect(policy.heldUpdate(of: "A1")?.source == "U4")
        let released = Self.updates(policy.advance(to: Self.at(3600)))
        #expect(released.map(\.source) == ["U4"])
        #expect(released.first?.outcome == .applied)
        #expect(policy.activities["A1"]?.contentState == #"{"n":"U4"}"#, "only the latest content-state shows")

        // With frequent updates the app takes more.
        policy.setFrequentUpdates(true, for: Self.app)
        // U1 and U2 have left the hour; U4 (applied at 3600) is in it.
        #expect(send("U5", 5, at: 3700).first?.why == "priority 10, within the hourly budget (2 of 4 this hour)")
    }

    /// APNs may reorder messages: an update older than the one waiting to show is ignored, and
    /// the waiting one stays (whether it waits for budget or for its opportunity).
    @Test func anOlderUpdateDoesNotReplaceANewerOneThatWaits() throws {
        var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 1, opportunisticDelay: .seconds(600)))
        _ = policy.receive(Self.push("U1", to: "T1", Self.payload(timestamp: 100)), channelExists: { _ in true }, now: Self.t0)
        let newer = policy.receive(
            Self.push("U3", to: "T1", Self.payload(timestamp: 300, content: #"{"n":3}"#)), channelExists: { _ in true }, now: Self.at(10))
        #expect(Self.updates(newer).map(\.outcome) == [.waiting(until: Self.at(3600))])
        for (source, priority) in [("U2", APNsPriority.high), ("L2", .normal)] {
            let older = Self.updates(
                policy.receive(
                    Self.push(source, to: "T1", Self.payload(timestamp: 200, content: #"{"n":2}"#), priority: priority),
                    channelExists: { _ in true }, now: Self.at(20)))
            #expect(older.map(\.outcome) == [.ignored(.olderTimestamp)], "\(source)")
            #expect(older.first?.why == "timestamp 1800000200 is older than that of U3, which waits to show: ignored")
            #expect(policy.heldUpdate(of: "A1")?.source == "U3")
        }
        #expect(Self.updates(policy.advance(to: Self.at(3600))).map(\.source) == ["U3"])
        #expect(policy.activities["A1"]?.contentState == #"{"n":3}"#)
    }

    @Test func anEndIsNotHeldForTheBudget() throws {
        var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 0, opportunisticDelay: .zero))
        let update = policy.receive(Self.push("U", to: "T1", Self.payload(timestamp: 1)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(update).map(\.outcome) == [.waiting(until: .distantFuture)], "a budget of 0 admits none")
        // Its why names no time (it said it waited until the year 2262), nor does the push's.
        #expect(Self.updates(update).first?.why == "an hourly budget of 0 priority-10 updates shows none: held until a later update replaces it")
        let held = WaitReason<DeviceInstant>.activityBudget(budget: 0, until: nil)
        #expect(WaitReason(stored: held.stored) == held && held.until == nil, "\(held.stored)")
        #expect(held.text(time: { _ in "" }).hasPrefix("held: an hourly budget of 0"))
        // Held for good names no time, also as the store reads it back (to the millisecond).
        let stored = DeviceInstant(millisecondsSinceEpoch: DeviceInstant.distantFuture.millisecondsSinceEpoch)
        #expect(Self.updates(update).first?.outcome.showsAt == nil && LiveActivityUpdate.Outcome.waiting(until: stored).showsAt == nil)
        #expect(LiveActivityUpdate.Outcome.waiting(until: Self.t0).showsAt == Self.t0)
        let end = policy.receive(Self.push("E", to: "T1", Self.payload(.end, timestamp: 2)), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(end).map(\.source) == ["U", "E"])
        #expect(Self.updates(end).map(\.outcome) == [.coalesced(into: "E"), .applied])
    }

    /// An end without content-state that replaces an update waiting for the budget ends with
    /// that update's content, the latest sent; an end with its own content shows its own.
    @Test func anEndWithoutContentEndsWithTheContentOfTheUpdateItReplaced() throws {
        for (endContent, shown) in [(nil, #"{"s":30}"#), (#"{"s":40}"#, #"{"s":40}"#)] as [(String?, String)] {
            var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 1, opportunisticDelay: .zero))
            _ = policy.receive(
                Self.push("U1", to: "T1", Self.payload(timestamp: 1, content: #"{"s":21}"#)), channelExists: { _ in true }, now: Self.t0)
            let held = policy.receive(
                Self.push("U2", to: "T1", Self.payload(timestamp: 2, content: #"{"s":30}"#)), channelExists: { _ in true }, now: Self.at(1))
            #expect(Self.updates(held).map(\.outcome) == [.waiting(until: Self.at(3600))])
            let end = policy.receive(
                Self.push("E", to: "T1", Self.payload(.end, timestamp: 3, content: endContent)), channelExists: { _ in true }, now: Self.at(2))
            #expect(Self.updates(end).map(\.outcome) == [.coalesced(into: "E"), .applied])
            #expect(policy.activities["A1"]?.contentState == shown)
            let why = try #require(policy.activities["A1"]?.why)
            #expect(why.contains("it shows the content-state of U2") == (endContent == nil), "\(why)")
        }
    }

    /// A reinstall deletes the app: its activities leave the device at once (dismissed, an ended
    /// one keeping when it ended), what one held back is ignored, a channel's subscriber
    /// listens no more, and another device's activity stays.
    @Test func theAppDeletedDismissesItsActivitiesAndIgnoresWhatTheyHeld() throws {
        var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 1, opportunisticDelay: .seconds(900)))
        _ = try Self.subscribe(&policy, "A2", Self.app)
        _ = try Self.subscribe(&policy, "B1", Self.otherDevice)
        let low = policy.receive(Self.push("L", to: "T1", Self.payload(timestamp: 1), priority: .normal), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(low).map(\.outcome) == [.waiting(until: Self.at(900))])

        let deleted = policy.appDeleted(device: Self.app.device, now: Self.at(60))
        #expect(Self.records(deleted).map(\.0.id) == ["A1", "A2"])
        #expect(Self.records(deleted).allSatisfy { $0.0.state == .dismissed(at: Self.at(60), endedAt: Self.at(60)) })
        #expect(Self.records(deleted).first?.1 == "dismissed: the app was deleted (uninstalled or reinstalled)")
        #expect(Self.updates(deleted).map(\.source) == ["L"] && Self.updates(deleted).first?.outcome == .ignored(.appDeleted))
        #expect(policy.subscriberCount(Self.channelKey) == 1, "only the other device's activity listens")
        #expect(policy.activities["B1"]?.state == .active)
        // Nothing fires later for it, and a push to its token is ignored as after the end.
        #expect(policy.advance(to: Self.at(900)).isEmpty)
        let after = policy.receive(Self.push("U", to: "T1", Self.payload(timestamp: 500)), channelExists: { _ in true }, now: Self.at(901))
        #expect(Self.updates(after).map(\.outcome) == [.ignored(.activityEnded)])
        #expect(Self.records(policy.appDeleted(device: Self.app.device, now: Self.at(902))).isEmpty, "a dismissed activity stays as it was")
    }

    /// What APNs kept for the deleted install's offline device (an update to its activity,
    /// a start to its push-to-start token) is ignored with the app, and nothing starts when
    /// the device is back; a broadcast then finds the dismissed activity over at once.
    @Test func theAppDeletedIgnoresWhatAPNsKeptForItsOfflineDevice() throws {
        var policy = try Self.withActivity()
        _ = try Self.subscribe(&policy, "A2", Self.app)
        _ = policy.setOffline(device: Self.app.device, now: Self.t0)
        let update = Self.updates(policy.receive(Self.push("U", to: "T1", Self.payload(timestamp: 5)), channelExists: { _ in true }, now: Self.at(1)))
        let start = Self.updates(
            policy.receive(
                Self.push("S", to: Self.app.pushToStartToken, Self.payload(.start, timestamp: 6)), channelExists: { _ in true }, now: Self.at(2)))
        #expect((update + start).map(\.outcome.name) == ["waiting", "waiting"])
        let deleted = Self.updates(policy.appDeleted(device: Self.app.device, now: Self.at(3)))
        #expect(deleted.map(\.source) == ["U", "S"] && deleted.allSatisfy { $0.outcome == .ignored(.appDeleted) }, "\(deleted)")
        #expect(!policy.isKeptForOffline("U") && !policy.isKeptForOffline("S"))
        let back = policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(4))
        #expect(Self.records(back).isEmpty && Self.updates(back).isEmpty, "\(back)")
        #expect(policy.activities.values.allSatisfy { $0.state.isOver })
    }

    /// One apns-id sent to two devices' activities, one device offline: APNs keeps it for that
    /// device's activity alone; the other's copy waits for its own reason.
    @Test func oneAPNsIDToTwoDevicesIsKeptOnlyForTheOfflineOnesActivity() throws {
        var policy = try Self.withActivity(LiveActivitySettings())
        _ = try policy.start(
            id: "B1", app: Self.otherDevice, attributesType: "GameAttributes", attributes: "{}", contentState: "{}", subscription: .token("T2"),
            now: Self.t0)
        _ = policy.setOffline(device: Self.app.device, now: Self.t0)
        let kept = Self.updates(
            policy.receive(Self.push("SAME", to: "T1", Self.payload(timestamp: 5)), channelExists: { _ in true }, now: Self.at(1)))
        #expect(kept.map(\.outcome.name) == ["waiting"])
        #expect(policy.isKeptForOffline("SAME", activityID: "A1"))
        #expect(!policy.isKeptForOffline("SAME", activityID: "B1"))
        #expect(!policy.isKeptForOffline("SAME", activityID: nil))
        _ = policy.receive(Self.push("SAME", to: "T2", Self.payload(timestamp: 5)), channelExists: { _ in true }, now: Self.at(2))
        #expect(!policy.isKeptForOffline("SAME", activityID: "B1"), "the online device's copy is not APNs's to keep")
    }

    /// A subscriber that ended while its broadcast fanned out, on an offline device, is judged
    /// at once (ignored: it ended) rather than left waiting for the device.
    @Test func aFanOutJudgesAnEndedSubscriberOnAnOfflineDeviceAtOnce() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "B1", Self.otherDevice)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = policy.setOffline(device: Self.app.device, now: Self.at(1))
        let first = policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(3600)), now: Self.at(10), limit: 1)
        #expect(Self.updates(first).map(\.activityID) == ["B1"], "the first slice has yet to reach A1")
        _ = policy.appDeleted(device: Self.app.device, now: Self.at(11))
        let rest = Self.updates(policy.continueBroadcast("R1", now: Self.at(12)))
        #expect(rest.map(\.outcome) == [.ignored(.activityEnded)], "\(rest)")
    }

    @Test func priority5IsOpportunisticAndSpendsNoBudget() throws {
        var policy = try Self.withActivity(LiveActivitySettings(hourlyBudget: 1, opportunisticDelay: .seconds(900)))
        let low = policy.receive(Self.push("L", to: "T1", Self.payload(timestamp: 1), priority: .normal), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(low).map(\.outcome) == [.waiting(until: Self.at(900))])
        #expect(Self.updates(low).first?.why.contains("opportunistic and spends no budget") == true)
        #expect(Self.updates(policy.advance(to: Self.at(900))).map(\.outcome) == [.applied])
        let high = policy.receive(Self.push("H", to: "T1", Self.payload(timestamp: 2)), channelExists: { _ in true }, now: Self.at(901))
        #expect(Self.updates(high).map(\.outcome) == [.applied], "the budget of 1 was not spent by priority 5")

        var unthrottled = try Self.withActivity()
        let at = unthrottled.receive(Self.push("L", to: "T1", Self.payload(), priority: .normal), channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(at).map(\.outcome) == [.applied])
    }

    // MARK: Broadcast

    static func subscribe(
        _ policy: inout LiveActivityPolicy, _ id: String, _ app: LiveActivityApp, at seconds: Int64 = 0
    ) throws -> [LiveActivityAction] {
        try policy.start(
            id: id, app: app, attributesType: "GameAttributes", attributes: "{}", contentState: "{}", subscription: .channel(channel),
            now: at(seconds))
    }

    static func broadcast(
        _ source: String, timestamp: Int64, storedUntil: DeviceInstant? = nil, event: LiveActivityPayload.Event = .update
    ) -> LiveActivityPolicy.Broadcast {
        LiveActivityPolicy.Broadcast(
            source: source, channel: channelKey, priority: .high, payload: payload(event, timestamp: timestamp), receivedAt: at(timestamp),
            storedUntil: storedUntil)
    }

    @Test func aBroadcastFansOutToEverySubscribedActivity() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        for (id, app) in [("A1", Self.app), ("A2", Self.app), ("B1", Self.otherDevice)] { _ = try Self.subscribe(&policy, id, app) }
        let actions = policy.broadcast(Self.broadcast("R1", timestamp: 10), now: Self.at(10))
        #expect(Self.updates(actions).map(\.activityID) == ["A1", "A2", "B1"])
        #expect(Self.updates(actions).allSatisfy { $0.outcome == .applied && $0.source == "R1" })
        let start = policy.broadcast(Self.broadcast("R2", timestamp: 11, event: .start), now: Self.at(11))
        #expect(Self.updates(start).map(\.outcome) == [.ignored(.broadcastStart)])
        // A broadcast end ends them all, and an ended activity listens no more.
        let end = policy.broadcast(Self.broadcast("R3", timestamp: 20, event: .end), now: Self.at(20))
        #expect(Self.records(end).map(\.0.state.name) == ["ended", "ended", "ended"])
        #expect(policy.subscriberCount(Self.channelKey) == 0)
        #expect(Self.updates(policy.broadcast(Self.broadcast("R4", timestamp: 30), now: Self.at(30))).isEmpty)
    }

    /// A broadcast a cluster accepted while no receiver held an activity's device (its shard
    /// changing owner) reaches that activity when the new owner puts the device back, as its
    /// fan-out would have, and says so; a start, or an activity that no longer listens, is left alone.
    @Test func aBroadcastMissedWhileNoReceiverHeldTheDeviceReachesItWhenItIsPutBack() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = try Self.subscribe(&policy, "B1", Self.otherDevice)
        let caught = Self.updates(policy.catchUp(Self.broadcast("R1", timestamp: 10), activityID: "A1", now: Self.at(12)))
        #expect(caught.map(\.activityID) == ["A1"] && caught.first?.outcome == .applied && caught.first?.source == "R1")
        #expect(
            caught.first?.why.contains("arrived at 2027-01-15T08:00:10.000Z, while no receiver of the cluster held this device") == true, "\(caught)")
        #expect(policy.activities["A1"]?.timestamp == Self.at(10) && policy.activities["A1"]?.contentState == #"{"score":1}"#)
        #expect(policy.activities["B1"]?.timestamp == nil, "only the activity named")
        #expect(Self.updates(policy.catchUp(Self.broadcast("R2", timestamp: 11, event: .start), activityID: "A1", now: Self.at(12))).isEmpty)
        // An offline device's activity is treated as in a fan-out: a channel that stores nothing loses it.
        _ = policy.setOffline(device: Self.otherDevice.device, now: Self.at(13))
        let offline = Self.updates(policy.catchUp(Self.broadcast("R3", timestamp: 12), activityID: "B1", now: Self.at(14)))
        #expect(offline.map(\.outcome) == [.ignored(.offlineNotStored)])
        // An activity that ended listens no more.
        _ = policy.broadcast(Self.broadcast("R4", timestamp: 20, event: .end), now: Self.at(20))
        #expect(policy.activities["A1"]?.state.isOver == true)
        #expect(Self.updates(policy.catchUp(Self.broadcast("R5", timestamp: 30), activityID: "A1", now: Self.at(31))).isEmpty)
    }

    /// An offline device's activity put back waiting for its channel's kept message, which a
    /// cluster's catch-up then brings it too, waits once: back online it takes it, and the
    /// channel's next message finds it waiting for nothing.
    @Test func aCaughtUpActivityAlreadyWaitingForTheKeptMessageWaitsOnce() throws {
        var before = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&before, "A1", Self.app)
        let activity = try #require(before.activities["A1"])
        var policy = LiveActivityPolicy(settings: .unthrottled)
        let kept = Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(3600))
        policy.restoreMessage(kept, now: Self.at(100))
        _ = policy.setOffline(device: Self.app.device, now: Self.at(100))
        policy.restore(activity, now: Self.at(100))
        policy.resumeWaits()
        let caught = Self.updates(policy.catchUp(kept, activityID: "A1", now: Self.at(101)))
        #expect(caught.map(\.outcome) == [.waiting(until: Self.at(3600))], "\(caught)")
        let back = Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(200)))
        #expect(back.map(\.source) == ["R1"] && back.first?.outcome == .applied, "\(back)")
        #expect(!policy.isWaiting(source: "R1", activityID: "A1"))
        let next = Self.updates(policy.broadcast(Self.broadcast("R2", timestamp: 20, storedUntil: Self.at(3600)), now: Self.at(300)))
        #expect(next.map(\.source) == ["R2"] && next.first?.outcome == .applied, "\(next)")
    }

    /// A channel the app deleted while the device was offline gives its activities nothing
    /// when the device is back: the one that waited for its kept message is told why, and
    /// the caller is asked to look the channel up.
    @Test func aDeletedChannelGivesNothingWhenTheDeviceIsBack() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = policy.setOffline(device: Self.app.device, now: Self.at(1))
        let waiting = Self.updates(policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(3600)), now: Self.at(10)))
        #expect(waiting.map(\.outcome) == [.waiting(until: Self.at(3600))], "\(waiting)")
        #expect(policy.channelsToLookUp(device: Self.app.device) == [Self.channelKey])
        #expect(policy.keptMessageRecords.isEmpty, "a broadcast with no record id keeps none")
        let back = Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in false }, now: Self.at(20)))
        #expect(back.map(\.outcome) == [.ignored(.unknownChannel)], "\(back)")
        #expect(policy.activities["A1"]?.contentState == "{}", "nothing shown")
    }

    /// A cluster member that joins again takes its channels' latest broadcasts from the store:
    /// a newer one replaces the message held (its offline waiters wait for it instead) and
    /// reaches later subscribers; an older one leaves the held one; a newer one its channel
    /// does not keep leaves none, and the waiters miss it.
    @Test func aMessageTakenFromTheStoreReplacesOnlyAnOlderOne() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = policy.setOffline(device: Self.app.device, now: Self.at(1))
        _ = policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(8 * 3600)), now: Self.at(10))
        #expect(Self.updates(policy.takeMessage(Self.broadcast("R0", timestamp: 5, storedUntil: Self.at(8 * 3600)), now: Self.at(20))).isEmpty)
        #expect(Self.updates(policy.takeMessage(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(8 * 3600)), now: Self.at(20))).isEmpty)
        let taken = Self.updates(policy.takeMessage(Self.broadcast("R2", timestamp: 15, storedUntil: Self.at(8 * 3600)), now: Self.at(20)))
        #expect(taken.map(\.source) == ["R1", "R2"])
        #expect(taken.map(\.outcome) == [.coalesced(into: "R2"), .waiting(until: Self.at(8 * 3600))])
        let later = Self.updates(try Self.subscribe(&policy, "B1", Self.otherDevice, at: 30))
        #expect(later.contains { $0.source == "R2" && $0.activityID == "B1" && $0.outcome == .applied }, "\(later)")

        let unkept = Self.updates(policy.takeMessage(Self.broadcast("R3", timestamp: 40), now: Self.at(40)))
        #expect(unkept.map(\.source) == ["R2", "R3"])
        #expect(unkept.map(\.outcome) == [.coalesced(into: "R3"), .ignored(.offlineNotStored)])
        #expect(Self.updates(try Self.subscribe(&policy, "B2", Self.otherDevice, at: 50)).allSatisfy { $0.source != "R3" && $0.source != "R2" })
    }

    @Test func aBroadcastReachesItsSubscribersASliceAtATime() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        for id in ["A1", "A2", "A3"] { _ = try Self.subscribe(&policy, id, Self.app) }
        let first = policy.broadcast(Self.broadcast("R1", timestamp: 10), now: Self.at(10), limit: 2)
        #expect(Self.updates(first).map(\.activityID) == ["A1", "A2"])
        #expect(policy.isFanningOut("R1"))
        // One that subscribes meanwhile is not among the broadcast's subscribers.
        _ = try Self.subscribe(&policy, "A4", Self.app, at: 11)
        let rest = policy.continueBroadcast("R1", now: Self.at(11), limit: 2)
        #expect(Self.updates(rest).map(\.activityID) == ["A3"])
        #expect(!policy.isFanningOut("R1"))
        #expect(Self.updates(policy.continueBroadcast("R1", now: Self.at(12))).isEmpty)
    }

    @Test func anAbandonedFanOutReachesNoMore() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        for id in ["A1", "A2", "A3"] { _ = try Self.subscribe(&policy, id, Self.app) }
        #expect(Self.updates(policy.broadcast(Self.broadcast("R1", timestamp: 10), now: Self.at(10), limit: 1)).map(\.activityID) == ["A1"])
        // A slice could not be recorded: the provider is answered 503 and sends it again.
        policy.abandonBroadcast("R1")
        #expect(!policy.isFanningOut("R1"))
        #expect(Self.updates(policy.continueBroadcast("R1", now: Self.at(11))).isEmpty)
        let again = policy.broadcast(Self.broadcast("R1", timestamp: 10), now: Self.at(12))
        #expect(Self.updates(again).map(\.activityID) == ["A1", "A2", "A3"], "the retry reaches every subscriber")
        #expect(Self.updates(again).allSatisfy { $0.outcome == .applied }, "an equal timestamp applies")
    }

    @Test func aStoredMessageReachesALaterSubscriberWithinItsLifetime() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(8 * 3600)), now: Self.at(10))
        let later = try Self.subscribe(&policy, "A1", Self.app, at: 3600)
        #expect(Self.updates(later).map(\.source) == ["R1"])
        #expect(Self.updates(later).first?.outcome == .applied)
        let tooLate = try Self.subscribe(&policy, "A2", Self.app, at: 8 * 3600)
        #expect(Self.updates(tooLate).isEmpty, "kept 8 hours, no longer")
        _ = policy.broadcast(Self.broadcast("R2", timestamp: 20), now: Self.at(8 * 3600 + 1))
        let none = try Self.subscribe(&policy, "A3", Self.app, at: 8 * 3600 + 2)
        #expect(Self.updates(none).isEmpty, "a broadcast with no storage replaces nothing later subscribers get")
    }

    /// A start that subscribes to a channel gets the channel's kept message judged as any
    /// update: one as new as the start applies, one older is ignored; both decisions say
    /// it was the channel's kept message.
    @Test(arguments: [(Int64(70), LiveActivityUpdate.Outcome.applied), (Int64(10), .ignored(.olderTimestamp))])
    func aStartOnAChannelIsGivenItsKeptMessageJudgedAsAnyUpdate(kept: Int64, outcome: LiveActivityUpdate.Outcome) throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = policy.broadcast(Self.broadcast("R1", timestamp: kept, storedUntil: Self.at(8 * 3600)), now: Self.at(kept))
        let start = policy.receive(
            Self.push("P1", to: Self.app.pushToStartToken, Self.payload(.start, timestamp: 70, inputChannel: Self.channel)),
            channelExists: { _ in true }, now: Self.at(100))
        let updates = Self.updates(start)
        #expect(updates.map(\.source) == ["P1", "R1"], "\(updates)")
        #expect(updates.last?.outcome == outcome, "\(updates)")
        #expect(updates.last?.why.contains("the channel's kept message, received at") == true, "\(updates)")
    }

    /// A broadcast start reaches no activity, for a reason the broadcast's record can show.
    @Test func everyDeviceIgnoresABroadcastStart() {
        #expect(LiveActivityPolicy.ignores(broadcast: Self.payload(.start)) == .broadcastStart)
        #expect(LiveActivityPolicy.ignores(broadcast: Self.payload(.update)) == nil)
    }

    @Test func forgettingADeviceForgetsItsActivitiesAndTheirTokensOnly() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try policy.start(
            id: "A1", app: Self.app, attributesType: "A", attributes: "{}", contentState: "{}", subscription: .token("T1"), now: Self.t0)
        _ = try Self.subscribe(&policy, "A2", Self.app)
        _ = try Self.subscribe(&policy, "B1", Self.otherDevice)
        policy.forget(device: Self.app.device)
        #expect(policy.activities(of: Self.app).isEmpty)
        #expect(policy.activities(of: Self.otherDevice).map(\.id) == ["B1"])
        #expect(policy.target(ofToken: "T1", bundleID: Self.app.bundleID) == nil)
        #expect(policy.subscriberCount(Self.channelKey) == 1)
        let after = policy.broadcast(Self.broadcast("R1", timestamp: 10), now: Self.at(10))
        #expect(Self.updates(after).map(\.activityID) == ["B1"])

        // Forgetting every device keeps what the apps declare.
        policy.setFrequentUpdates(true, bundleID: Self.app.bundleID)
        policy.forget(device: nil)
        #expect(policy.activities(of: Self.otherDevice).isEmpty)
        #expect(policy.hasFrequentUpdates(Self.app))
    }

    /// APNs keeps the latest push to each token of an offline device, to its expiry, and the
    /// device takes them in the order they were sent when it comes back.
    @Test func anOfflineDevicesPushesWaitTheLatestPerTokenAndArriveWhenItIsBack() throws {
        var policy = try Self.withActivity()
        _ = policy.setOffline(device: Self.app.device, now: Self.t0)
        func send(_ push: LiveActivityPolicy.Push, at seconds: Int64) -> [LiveActivityUpdate] {
            Self.updates(policy.receive(push, channelExists: { _ in true }, now: Self.at(seconds)))
        }
        func keptUntil(_ push: LiveActivityPolicy.Push, _ seconds: Int64) -> LiveActivityPolicy.Push {
            var push = push
            push.storedUntil = Self.at(seconds)
            return push
        }
        let first = send(keptUntil(Self.push("U1", to: "T1", Self.payload(timestamp: 100, content: #"{"n":1}"#)), 3600), at: 10)
        #expect(first.map(\.outcome) == [.waiting(until: Self.at(3600))])
        #expect(first.first?.why.hasPrefix("the device is offline: APNs keeps the latest push to this token until") == true)
        #expect(policy.isKeptForOffline("U1"))
        let second = send(keptUntil(Self.push("U2", to: "T1", Self.payload(timestamp: 200, content: #"{"n":2}"#)), 3600), at: 20)
        #expect(second.map(\.source) == ["U1", "U2"])
        #expect(second.map(\.outcome) == [.coalesced(into: "U2"), .waiting(until: Self.at(3600))])
        let start = LiveActivityApp(device: Self.app.device, bundleID: Self.app.bundleID).pushToStartToken
        #expect(
            send(keptUntil(Self.push("S", to: start, Self.payload(.start, timestamp: 300)), 3600), at: 30).map(\.outcome) == [
                .waiting(until: Self.at(3600))
            ])
        #expect(
            send(keptUntil(Self.push("Z", to: "T1", Self.payload(timestamp: 400)), 30), at: 30).map(\.outcome) == [
                .ignored(.offlineNotStored)
            ], "apns-expiration 0: nothing kept")
        #expect(policy.activities["A1"]?.contentState == "{}", "nothing reached the device")
        #expect(policy.activities(of: Self.app).count == 1)

        let back = Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(60)))
        #expect(back.map(\.source) == ["U2", "S"])
        #expect(back.allSatisfy { $0.outcome == .applied })
        #expect(policy.activities["A1"]?.contentState == #"{"n":2}"#)
        #expect(policy.activities(of: Self.app).count == 2, "the kept start began its activity")
        #expect(!policy.isKeptForOffline("U2"))
    }

    /// A start APNs kept for an offline device subscribes to its `input-push-channel` when it
    /// reaches the device, so the channel is looked up then: one the app deleted meanwhile
    /// fails the start, one it created meanwhile is subscribed to.
    @Test func aKeptStartLooksItsChannelUpWhenItReachesTheDevice() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        let other = try #require(ChannelID(header: "b3RoZXItY2hhbm5lbA=="))
        let start = LiveActivityApp(device: Self.app.device, bundleID: Self.app.bundleID).pushToStartToken
        _ = policy.setOffline(device: Self.app.device, now: Self.t0)
        _ = policy.receive(
            Self.push("S1", to: start, Self.payload(.start, timestamp: 10, inputChannel: Self.channel)), channelExists: { _ in true },
            now: Self.at(10))
        #expect(policy.keptStartChannels(device: Self.app.device) == [Self.channelKey])
        #expect(policy.keptStartChannels(device: Self.otherDevice.device).isEmpty)
        let deleted = Self.updates(policy.setOnline(device: Self.app.device, channelExists: { $0 != Self.channelKey }, now: Self.at(20)))
        #expect(deleted.map(\.outcome) == [.ignored(.unknownChannel)], "\(deleted)")
        #expect(policy.activities(of: Self.app).isEmpty)

        _ = policy.setOffline(device: Self.app.device, now: Self.at(30))
        _ = policy.receive(
            Self.push("S2", to: start, Self.payload(.start, timestamp: 40, inputChannel: other)), channelExists: { _ in false }, now: Self.at(40))
        let created = Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(50)))
        #expect(created.map(\.outcome) == [.applied], "\(created)")
        #expect(policy.activities(of: Self.app).first?.channel == other)
    }

    @Test func aPushKeptForAnOfflineDeviceExpiresAtItsStoredUntil() throws {
        var policy = try Self.withActivity()
        _ = policy.setOffline(device: Self.app.device, now: Self.t0)
        var push = Self.push("U1", to: "T1", Self.payload(timestamp: 100))
        push.storedUntil = Self.at(600)
        _ = policy.receive(push, channelExists: { _ in true }, now: Self.t0)
        #expect(Self.updates(policy.advance(to: Self.at(599))).isEmpty)
        let expired = Self.updates(policy.advance(to: Self.at(600)))
        #expect(expired.map(\.outcome) == [.ignored(.offlineExpired)])
        #expect(expired.first?.activityID == "A1")
        #expect(expired.first?.why.hasPrefix("APNs kept it for the offline device until") == true)
        #expect(Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(700))).isEmpty)
        #expect(policy.activities["A1"]?.timestamp == nil, "it never reached the activity")
    }

    /// Every broadcast that waited for an offline device ends: replaced by the channel's next
    /// message, delivered when the device is back, or let go when the channel stops keeping it.
    @Test func aBroadcastThatWaitsForAnOfflineDeviceIsReplacedDeliveredOrLetGo() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = try Self.subscribe(&policy, "B1", Self.otherDevice)
        _ = policy.setOffline(device: Self.app.device, now: Self.at(1))
        let first = Self.updates(policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(8 * 3600)), now: Self.at(10)))
        #expect(first.map(\.activityID) == ["A1", "B1"])
        #expect(first.map(\.outcome) == [.waiting(until: Self.at(8 * 3600)), .applied])
        let second = Self.updates(policy.broadcast(Self.broadcast("R2", timestamp: 20, storedUntil: Self.at(8 * 3600)), now: Self.at(20)))
        #expect(second.map(\.source) == ["R1", "R2", "R2"])
        #expect(second.first?.outcome == .coalesced(into: "R2") && second.first?.activityID == "A1")
        #expect(second.first?.why.hasPrefix("replaced on the channel by R2 while the device was offline") == true)
        let back = Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(30)))
        #expect(back.map(\.source) == ["R2"] && back.first?.outcome == .applied)

        _ = policy.setOffline(device: Self.app.device, now: Self.at(40))
        _ = policy.broadcast(Self.broadcast("R3", timestamp: 50, storedUntil: Self.at(600)), now: Self.at(50))
        let letGo = Self.updates(policy.advance(to: Self.at(600)))
        #expect(letGo.map(\.source) == ["R3"] && letGo.first?.outcome == .ignored(.offlineExpired))
        #expect(letGo.first?.why.hasPrefix("the channel kept it until") == true)
        #expect(Self.updates(policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(700))).isEmpty)
        #expect(policy.activities["A1"]?.timestamp == Self.at(20))
    }

    /// A broadcast replaced on its channel while it still fans out says so to the offline
    /// subscribers it reaches after: they wait for the newer one, not for it.
    @Test func aBroadcastReplacedWhileItFansOutSaysSoToTheOfflineItReachesLater() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = try Self.subscribe(&policy, "B1", Self.otherDevice)
        _ = policy.setOffline(device: Self.otherDevice.device, now: Self.at(1))
        let first = Self.updates(policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(3600)), now: Self.at(10), limit: 1))
        #expect(first.map(\.activityID) == ["A1"] && policy.isFanningOut("R1"))
        _ = policy.broadcast(Self.broadcast("R2", timestamp: 20, storedUntil: Self.at(3600)), now: Self.at(11))
        let rest = Self.updates(policy.continueBroadcast("R1", now: Self.at(12)))
        #expect(rest.map(\.source) == ["R1"] && rest.first?.activityID == "B1")
        #expect(rest.first?.outcome == .coalesced(into: "R2"), "\(rest)")
        let back = Self.updates(policy.setOnline(device: Self.otherDevice.device, channelExists: { _ in true }, now: Self.at(20)))
        #expect(back.map(\.source) == ["R2"] && back.first?.outcome == .applied)
    }

    /// After a restart, an offline device's activity that does not show its channel's stored
    /// message waits for it again: the wait ends when the channel lets it go.
    @Test func aRestartResumesTheWaitsOfOfflineDevicesForTheStoredMessage() throws {
        var before = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&before, "A1", Self.app)
        let activity = try #require(before.activities["A1"])
        var policy = LiveActivityPolicy(settings: .unthrottled)
        policy.restoreMessage(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(600)), now: Self.at(100))
        _ = policy.setOffline(device: Self.app.device, now: Self.at(100))
        policy.restore(activity, now: Self.at(100))
        policy.resumeWaits()
        let letGo = Self.updates(policy.advance(to: Self.at(600)))
        #expect(letGo.map(\.source) == ["R1"] && letGo.first?.activityID == "A1" && letGo.first?.outcome == .ignored(.offlineExpired))
    }

    @Test func anOfflineDeviceGetsTheStoredMessageWhenItComesBackAndLosesAnUnstoredOne() throws {
        var policy = LiveActivityPolicy(settings: .unthrottled)
        _ = try Self.subscribe(&policy, "A1", Self.app)
        _ = policy.setOffline(device: Self.app.device, now: Self.at(1))
        let lost = policy.broadcast(Self.broadcast("R0", timestamp: 5), now: Self.at(5))
        #expect(Self.updates(lost).map(\.outcome) == [.ignored(.offlineNotStored)])
        let kept = policy.broadcast(Self.broadcast("R1", timestamp: 10, storedUntil: Self.at(8 * 3600)), now: Self.at(10))
        #expect(Self.updates(kept).map(\.outcome) == [.waiting(until: Self.at(8 * 3600))])
        #expect(Self.updates(kept).first?.why.hasPrefix("the device is offline") == true)
        let back = policy.setOnline(device: Self.app.device, channelExists: { _ in true }, now: Self.at(100))
        #expect(Self.updates(back).map(\.source) == ["R1"])
        #expect(Self.updates(back).first?.outcome == .applied)
    }
}
