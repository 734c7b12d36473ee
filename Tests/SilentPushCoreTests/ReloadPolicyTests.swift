import SilentPushCore
import Testing

/// Widget and control reloads by push, rule by rule: each test asserts the actions and their `why`.
@Suite struct ReloadPolicyTests {
    static let t0 = DeviceInstant(secondsSinceEpoch: 1_800_000_000)
    static let device = String(repeating: "ab", count: 32)
    static let widgets = ReloadPolicy.Target(device: device, topic: "com.example.app.push-type.widgets")
    static let controls = ReloadPolicy.Target(device: device, topic: "com.example.app.push-type.controls")
    static let day = Duration.seconds(86_400)

    static func at(_ seconds: Int64) -> DeviceInstant { t0.advanced(by: .seconds(seconds)) }

    static func push(_ id: UInt64, _ target: ReloadPolicy.Target = widgets, expiresAt: DeviceInstant? = nil) -> ReloadPolicy.Push {
        ReloadPolicy.Push(id: id, target: target, expiresAt: expiresAt)
    }

    @Test func aPushReloadsAtOnceAndCountsAgainstTheBudget() {
        var policy = ReloadPolicy(dailyBudget: 3)
        #expect(
            policy.receive(Self.push(1), online: true, now: Self.at(0)) == [
                .reload(push: 1, target: Self.widgets, at: Self.at(0), coalesced: 0, used: 1, budget: 3)
            ])
        #expect(
            policy.receive(Self.push(2), online: true, now: Self.at(10)) == [
                .reload(push: 2, target: Self.widgets, at: Self.at(10), coalesced: 0, used: 2, budget: 3)
            ])
        #expect(policy.reloadsUsed(Self.widgets, now: Self.at(10)) == 2)
        #expect(policy.nextDeadline == nil)
    }

    @Test func overTheBudgetAPushWaitsForTheOldestReloadToAgeOut() {
        var policy = ReloadPolicy(dailyBudget: 2)
        _ = policy.receive(Self.push(1), online: true, now: Self.at(0))
        _ = policy.receive(Self.push(2), online: true, now: Self.at(60))
        let refill = Self.at(0).advanced(by: Self.day)
        let held = policy.receive(Self.push(3), online: true, now: Self.at(120))
        #expect(held == [.wait(push: 3, why: .reloadBudget(used: 2, budget: 2, until: refill))])
        #expect(WaitReason.reloadBudget(used: 2, budget: 2, until: refill).rule == .reloadBudget)
        #expect(policy.held(Self.widgets) == 3)
        #expect(policy.nextDeadline == refill)
        // Nothing before the refill; at it, the held push reloads, at its instant.
        #expect(policy.advance(to: refill.advanced(by: .seconds(-1))).isEmpty)
        #expect(
            policy.advance(to: refill.advanced(by: .seconds(5))) == [
                .reload(push: 3, target: Self.widgets, at: refill, coalesced: 0, used: 2, budget: 2)
            ])
        #expect(policy.held(Self.widgets) == nil)
    }

    @Test func aLaterPushReplacesTheHeldOneAndRidesItsReload() {
        var policy = ReloadPolicy(dailyBudget: 1)
        _ = policy.receive(Self.push(1), online: true, now: Self.at(0))
        _ = policy.receive(Self.push(2), online: true, now: Self.at(10))
        let refill = Self.at(0).advanced(by: Self.day)
        #expect(
            policy.receive(Self.push(3), online: true, now: Self.at(20)) == [
                .replaced(held: 2, by: 3, atAPNs: false), .wait(push: 3, why: .reloadBudget(used: 1, budget: 1, until: refill)),
            ])
        // One reload, for the latest push; the stale timer of the replaced one fires nothing more.
        #expect(policy.advance(to: refill) == [.reload(push: 3, target: Self.widgets, at: refill, coalesced: 1, used: 1, budget: 1)])
        #expect(policy.advance(to: refill.advanced(by: Self.day)).isEmpty)
    }

    @Test func eachExtensionHasItsOwnBudget() {
        var policy = ReloadPolicy(dailyBudget: 1)
        _ = policy.receive(Self.push(1), online: true, now: Self.at(0))
        #expect(
            policy.receive(Self.push(2, Self.controls), online: true, now: Self.at(1)) == [
                .reload(push: 2, target: Self.controls, at: Self.at(1), coalesced: 0, used: 1, budget: 1)
            ])
        let other = ReloadPolicy.Target(device: String(repeating: "cd", count: 32), topic: Self.widgets.topic)
        #expect(
            policy.receive(Self.push(3, other), online: true, now: Self.at(2)) == [
                .reload(push: 3, target: other, at: Self.at(2), coalesced: 0, used: 1, budget: 1)
            ])
    }

    @Test func noBudgetReloadsEveryPush() {
        var policy = ReloadPolicy(dailyBudget: nil)
        for id in UInt64(1)...200 {
            #expect(
                policy.receive(Self.push(id), online: true, now: Self.at(Int64(id))) == [
                    .reload(push: id, target: Self.widgets, at: Self.at(Int64(id)), coalesced: 0, used: 0, budget: nil)
                ])
        }
        // Nothing to count: no extension is kept in memory, however many devices push.
        for n in 0..<100 {
            _ = policy.receive(
                Self.push(UInt64(300 + n), ReloadPolicy.Target(device: String(n), topic: Self.widgets.topic)), online: true, now: Self.at(300))
        }
        #expect(policy.trackedExtensions == 0)
    }

    @Test func aBudgetOfZeroHoldsWithoutEnd() {
        var policy = ReloadPolicy(dailyBudget: 0)
        #expect(policy.receive(Self.push(1), online: true, now: Self.at(0)) == [.wait(push: 1, why: .reloadBudget(used: 0, budget: 0, until: nil))])
        #expect(policy.nextDeadline == nil)
        #expect(
            WaitReason<DeviceInstant>.reloadBudget(used: 0, budget: 0, until: nil).text(time: { _ in "" }) == "waiting: a daily reload budget of 0")
    }

    @Test func offlineAPNsHoldsTheLatestPushUntilTheDeviceReconnects() {
        var policy = ReloadPolicy(dailyBudget: 5)
        #expect(policy.receive(Self.push(1), online: false, now: Self.at(0)) == [.wait(push: 1, why: .offline)])
        #expect(
            policy.receive(Self.push(2), online: false, now: Self.at(5)) == [.replaced(held: 1, by: 2, atAPNs: true), .wait(push: 2, why: .offline)])
        #expect(
            policy.deviceOnline(Self.device, now: Self.at(100)) == [
                .reload(push: 2, target: Self.widgets, at: Self.at(100), coalesced: 1, used: 1, budget: 5)
            ])
        #expect(policy.deviceOnline(Self.device, now: Self.at(200)).isEmpty)
    }

    /// A push already expired as it arrives for an offline device is not stored by APNs:
    /// the push APNs holds stays, and reloads the extension once the device is back.
    @Test func offlineAnExpiredArrivalReplacesNothingHeld() {
        var policy = ReloadPolicy(dailyBudget: 5)
        #expect(policy.receive(Self.push(1), online: false, now: Self.at(0)) == [.wait(push: 1, why: .offline)])
        #expect(policy.receive(Self.push(2, expiresAt: Self.at(5)), online: false, now: Self.at(5)) == [.expired(push: 2, coalesced: 0)])
        #expect(
            policy.deviceOnline(Self.device, now: Self.at(100)) == [
                .reload(push: 1, target: Self.widgets, at: Self.at(100), coalesced: 0, used: 1, budget: 5)
            ])
    }

    @Test func offlineAPushExpiresWhenItsExpirationPasses() {
        var policy = ReloadPolicy(dailyBudget: 5)
        // apns-expiration 0 (the arrival instant): not stored at all.
        #expect(policy.receive(Self.push(1, expiresAt: Self.at(0)), online: false, now: Self.at(0)) == [.expired(push: 1, coalesced: 0)])
        #expect(policy.receive(Self.push(2, expiresAt: Self.at(60)), online: false, now: Self.at(1)) == [.wait(push: 2, why: .offline)])
        #expect(policy.nextDeadline == Self.at(60))
        #expect(
            policy.receive(Self.push(3, expiresAt: Self.at(60)), online: false, now: Self.at(2)) == [
                .replaced(held: 2, by: 3, atAPNs: true), .wait(push: 3, why: .offline),
            ])
        // It and the push it replaced expire together.
        #expect(policy.advance(to: Self.at(90)) == [.expired(push: 3, coalesced: 1)])
        #expect(policy.deviceOnline(Self.device, now: Self.at(100)).isEmpty)
    }

    /// With no expiry (or a later one), APNs keeps it for an offline device up to its storage
    /// limit, as it does a background push: it was kept for ever.
    @Test func offlineAPushExpiresAtTheStorageLimitAtLatest() {
        var policy = ReloadPolicy(dailyBudget: 5, apnsStorageLimit: .seconds(30 * 86_400))
        #expect(policy.receive(Self.push(1), online: false, now: Self.at(0)) == [.wait(push: 1, why: .offline)])
        #expect(policy.nextDeadline == Self.at(30 * 86_400))
        #expect(policy.advance(to: Self.at(30 * 86_400)) == [.expired(push: 1, coalesced: 0)])
        _ = policy.receive(Self.push(2, expiresAt: Self.at(90 * 86_400)), online: false, now: Self.at(40 * 86_400))
        #expect(policy.nextDeadline == Self.at(70 * 86_400))
        #expect(
            policy.deviceOnline(Self.device, now: Self.at(75 * 86_400)) == [.expired(push: 2, coalesced: 0)], "expired at the limit, not reloaded")
    }

    /// A push put back by a restart counts APNs's storage limit from when APNs took it, not
    /// from the restart: one taken 29 days ago has a day left, one taken 31 days ago is gone.
    @Test func aRestoredOfflinePushCountsTheStorageLimitFromItsArrival() {
        var policy = ReloadPolicy(dailyBudget: 5, apnsStorageLimit: .seconds(30 * 86_400))
        let now = Self.at(31 * 86_400)
        var recent = Self.push(1)
        recent.receivedAt = Self.at(2 * 86_400)
        #expect(policy.receive(recent, online: false, now: now) == [.wait(push: 1, why: .offline)])
        #expect(policy.nextDeadline == Self.at(32 * 86_400))
        var old = Self.push(2, ReloadPolicy.Target(device: String(repeating: "cd", count: 32), topic: Self.widgets.topic))
        old.receivedAt = Self.at(0)
        #expect(policy.receive(old, online: false, now: now) == [.expired(push: 2, coalesced: 0)])
    }

    /// A reinstall: what the deleted install's extensions held never reloads it.
    @Test func whatAnExtensionHeldIsDroppedWhenItsAppIsDeleted() {
        var policy = ReloadPolicy(dailyBudget: 1)
        _ = policy.receive(Self.push(1), online: true, now: Self.at(0))
        _ = policy.receive(Self.push(2), online: true, now: Self.at(10))
        _ = policy.receive(Self.push(3), online: true, now: Self.at(20))
        #expect(policy.appDeleted(device: Self.device) == [.appDeleted(push: 3, coalesced: 1)])
        #expect(policy.advance(to: Self.at(2 * 86_400)).isEmpty, "no reload a day later")
        #expect(policy.held(Self.widgets) == nil)
    }

    @Test func backOnlineAHeldPushStillMeetsTheBudget() {
        var policy = ReloadPolicy(dailyBudget: 1)
        _ = policy.receive(Self.push(1), online: true, now: Self.at(0))
        _ = policy.receive(Self.push(2), online: false, now: Self.at(10))
        #expect(
            policy.deviceOnline(Self.device, now: Self.at(20)) == [
                .wait(push: 2, why: .reloadBudget(used: 1, budget: 1, until: Self.at(0).advanced(by: Self.day)))
            ])
    }

    @Test func aRestartPutsBackTheDaysReloads() {
        var policy = ReloadPolicy(dailyBudget: 2)
        let now = Self.at(0).advanced(by: Self.day)
        // One reload is older than a day and no longer counts.
        policy.restore(reloads: [Self.at(-10), Self.at(3600), Self.at(7200)], of: Self.widgets, now: now)
        #expect(policy.reloadsUsed(Self.widgets, now: now) == 2)
        #expect(
            policy.receive(Self.push(9), online: true, now: now) == [
                .wait(push: 9, why: .reloadBudget(used: 2, budget: 2, until: Self.at(3600).advanced(by: Self.day)))
            ])
    }

    @Test func forgettingADeviceDropsWhatItHeld() {
        var policy = ReloadPolicy(dailyBudget: 1)
        _ = policy.receive(Self.push(1), online: true, now: Self.at(0))
        _ = policy.receive(Self.push(2), online: true, now: Self.at(1))
        policy.forget(device: Self.device)
        #expect(policy.held(Self.widgets) == nil)
        #expect(policy.advance(to: Self.at(0).advanced(by: Self.day)).isEmpty)
        #expect(
            policy.receive(Self.push(3), online: true, now: Self.at(2)) == [
                .reload(push: 3, target: Self.widgets, at: Self.at(2), coalesced: 0, used: 1, budget: 1)
            ])
    }

    @Test func theWaitReasonSurvivesTheStore() {
        let reasons: [WaitReason<DeviceInstant>] = [
            .reloadBudget(used: 70, budget: 70, until: Self.at(5)), .reloadBudget(used: 0, budget: 0, until: nil),
        ]
        for reason in reasons { #expect(WaitReason(stored: reason.stored) == reason) }
        #expect(WaitReason<DeviceInstant>(stored: "reloadBudget:x:1:2") == nil)
        #expect(WakeKind(reloading: .widgets) == .widgets)
        #expect(WakeKind(reloading: .controls) == .controls)
        #expect(WakeKind(reloading: .background) == nil)
    }
}
