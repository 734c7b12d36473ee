import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Synchronization
import Testing

/// The device side in-process: a receiver on port 0 with a manual clock, pushed to over
/// HTTP/2, its clock moved and its wakes and fates asserted through the Swift test API.
@Suite struct DeviceRuntimeTests {
    static let minute = Duration.seconds(60)

    static func apnsID(_ n: Int) -> String {
        let digits = String(n)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    static func minutes(from start: Int64, to instant: DeviceInstant) -> Int64 { (instant.millisecondsSinceEpoch - start) / 60_000 }

    @Test func theExampleOfSpecSection4() async throws {
        try await Receiver.withTesting({ $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60)) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let minutes = Array(stride(from: 0, through: 91, by: 7))
            for (index, minute) in minutes.enumerated() {
                if index > 0 { try await receiver.advanceClock(by: Self.minute * 7) }
                let answer = try await client.push(apnsID: Self.apnsID(minute))
                #expect(answer.status == 200 && answer.apnsID == Self.apnsID(minute))
            }
            await receiver.settle()
            let start = try #require(try await receiver.device.push(apnsID: Self.apnsID(0))).receivedAt
            let wakes = try await receiver.wakes()
            #expect(wakes.map { Self.minutes(from: start, to: $0.startedAt) } == [0, 15, 30, 45, 60, 75, 90])
            #expect(wakes.map(\.apnsID) == [0, 14, 28, 42, 56, 70, 84].map(Self.apnsID))
            #expect(wakes.allSatisfy { $0.result == .noData })
            for (coalesced, wake) in zip([7, 21, 35, 49, 63, 77], wakes.dropFirst()) {
                #expect(try await receiver.fate(of: Self.apnsID(coalesced)) == .coalesced)
                #expect(try await receiver.fate(of: Self.apnsID(coalesced))?.wakeID == wake.id)
                #expect(try await receiver.coalesced(into: wake.id) == [Self.apnsID(coalesced)])
            }
            #expect(try await receiver.fate(of: Self.apnsID(91)) == .pending)
            let why = try #require(try await receiver.fate(of: Self.apnsID(91))?.waitReason)
            #expect(why.rule == .minimumInterval && why.until.map { Self.minutes(from: start, to: $0) } == 105)
            try await receiver.advanceClock(by: Self.minute * 13)  // minute 104
            #expect(try await receiver.fate(of: Self.apnsID(91)) == .pending)
            #expect(try await receiver.fate(of: Self.apnsID(91))?.waitReason == why)
            try await receiver.advanceClock(by: Self.minute)  // minute 105
            await receiver.settle()
            let last = try #require(try await receiver.wakes().last)
            #expect(Self.minutes(from: start, to: last.startedAt) == 105)
            #expect(try await receiver.fate(of: Self.apnsID(91)) == .delivered)
            #expect(try await receiver.fate(of: Self.apnsID(91))?.wakeID == last.id)
        }
    }

    @Test func aHangingHandlerIsCancelledAtTheDeadlineAndItsLateAnswerIgnored() async throws {
        let cancelled = Atomic(false)
        let handler = ClosureFetchHandler { wake in
            guard wake.id == 1 else { return .noData }
            try? await Task.sleep(for: .seconds(3600))  // hangs until cancelled
            cancelled.store(Task.isCancelled, ordering: .relaxed)
            return .newData  // late: must be ignored
        }
        try await Receiver.withTesting({
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60), deadline: .seconds(1))
            $0.fetchHandler = .handler(handler)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            #expect(receiver.device.runningWakeCount == 1)
            // Crossing the deadline: the handler gets its deadline's length of real time, then is cancelled.
            try await receiver.advanceClock(by: Self.minute)
            await receiver.settle()
            let sawCancellation = cancelled.load(ordering: .relaxed)
            #expect(sawCancellation)
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.result?.name == "failed")
            #expect(wake.reason == "deadlineExceeded")
            #expect(wake.finishedAt == wake.deadline)
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .delivered)
            #expect(try await receiver.fate(of: Self.apnsID(1))?.wakeID == wake.id)

            // The overrun doubles the next interval: 30 minutes from the first wake, not 15.
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)
            try await receiver.advanceClock(by: Self.minute * 28)  // minute 29
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .pending)
            #expect(try await receiver.fate(of: Self.apnsID(2))?.waitReason?.rule == .minimumInterval)
            try await receiver.advanceClock(by: Self.minute)  // minute 30
            #expect(try await receiver.wakes().count == 2)
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .delivered)
            let secondWake = try await receiver.wakes()[1]
            #expect(try await receiver.fate(of: Self.apnsID(2))?.wakeID == secondWake.id)
        }
    }

    /// A move short of the deadline gives a running handler its deadline's length of real
    /// time; one that has not answered then is cancelled, and its wake ends at its deadline
    /// `failed` (`deadlineExceeded`), not with what the handler says after.
    @Test func aHandlerPastItsRealTimeInAShortMoveIsCancelledAndItsWakeEndsAtTheDeadline() async throws {
        let cancelled = Atomic(false)
        let handler = ClosureFetchHandler { _ in
            try? await Task.sleep(for: .seconds(5))  // past its second of real time
            cancelled.store(Task.isCancelled, ordering: .relaxed)
            return .newData  // late: must be ignored
        }
        try await Receiver.withTesting({
            $0.wakeSettings = WakeSettings(deadline: .seconds(1))
            $0.fetchHandler = .handler(handler)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            try await receiver.advanceClock(by: .milliseconds(100))
            for _ in 0..<100 where !cancelled.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(20)) }
            let sawCancellation = cancelled.load(ordering: .relaxed)
            #expect(sawCancellation)
            #expect(receiver.device.runningWakeCount == 1, "it runs on until its deadline")
            #expect(try await receiver.wakes().first?.result == nil)
            try await receiver.advanceClock(by: .seconds(1))
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.result?.name == "failed")
            #expect(wake.reason == "deadlineExceeded")
            #expect(wake.finishedAt == wake.deadline)
        }
    }

    @Test func theExecHandlerGetsThePayloadAndTheWakeAndItsLastLineIsTheResult() async throws {
        let directory = Scratch.directory.appendingPathComponent("exec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let command =
            #"cat > "$DIR/payload"; echo "$SILENTPUSH_APNS_ID $SILENTPUSH_PRIORITY $SILENTPUSH_COALESCED" > "$DIR/env"; echo fetching; echo newData"#
        try await Receiver.withTesting({
            $0.wakeSettings = .fast
            $0.fetchHandler = .handler(ExecFetchHandler(command: "DIR='\(directory)'; " + command))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let payload = #"{"aps":{"content-available":1},"feed":"news"}"#
            #expect(try await client.push(payload, apnsID: Self.apnsID(1)).status == 200)
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.result == .newData, "\(wake)")
            #expect(FileManager.default.contents(atPath: directory + "/payload") == Data(payload.utf8))
            #expect(String(decoding: FileManager.default.contents(atPath: directory + "/env") ?? Data(), as: UTF8.self) == "\(Self.apnsID(1)) 5 \n")
        }
    }

    @Test func aHangingCommandIsKilledAtTheDeadline() async throws {
        let pidFile = Scratch.directory.appendingPathComponent("exec-\(UUID().uuidString).pid").path
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        try await Receiver.withTesting({
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(1), deadline: .seconds(1))
            $0.fetchHandler = .handler(
                ExecFetchHandler(command: "sleep 60 & echo $! > '\(pidFile)'; wait; echo newData", killGrace: .milliseconds(200)))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            try await receiver.advanceClock(by: .seconds(5))
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.result?.name == "failed" && wake.reason == "deadlineExceeded")
            let pid = try #require(
                Int32(
                    String(decoding: FileManager.default.contents(atPath: pidFile) ?? Data(), as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)))
            var gone = false
            for _ in 0..<100 where !gone {
                gone = kill(pid, 0) != 0
                if !gone { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(gone, "the command's child \(pid) outlived the deadline")
        }
    }

    /// The launches of the last day outlive a restart: a push the daily budget holds is still
    /// held after it (it was woken as the receiver started, the budget forgotten).
    @Test func aRestartKeepsTheDailyBudgetSpent() async throws {
        let path = Scratch.directory.appendingPathComponent("budget-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(path)
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(1), dailyBudget: 1)
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // wakes at once: the day's one launch
            await receiver.settle()
            try await receiver.advanceClock(by: .seconds(60))
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)  // waits for tomorrow
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(2))?.waitReason?.rule == .dailyBudget)
            await client.close()
        }
        try await Receiver.withTesting(configure) { receiver in
            await receiver.settle()
            let restored = try #require(try await receiver.fate(of: Self.apnsID(2)))
            #expect(restored == .pending && restored.waitReason?.rule == .dailyBudget, "\(restored)")
            #expect(try await receiver.wakes().count == 1)
        }
    }

    /// The interval an overrun doubled outlives a restart: a push after it waits 30 minutes
    /// from the overrun wake, not 15.
    @Test func aRestartKeepsTheIntervalAnOverrunDoubled() async throws {
        let path = Scratch.directory.appendingPathComponent("overrun-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let handler = ClosureFetchHandler { _ in
            try? await Task.sleep(for: .seconds(3600))  // hangs until cancelled
            return .newData
        }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(path)
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60), deadline: .seconds(1))
            $0.fetchHandler = .handler(handler)
        }
        let woke = try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            try await receiver.advanceClock(by: Self.minute)
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.reason == "deadlineExceeded")
            return wake.startedAt
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)
            let why = try #require(try await receiver.fate(of: Self.apnsID(2))?.waitReason)
            #expect(why == .minimumInterval(lastWake: woke, interval: .seconds(30 * 60), until: woke.advanced(by: .seconds(30 * 60))), "\(why)")
        }
    }

    /// APNs keeps a push for an offline device up to its storage limit from its arrival, and a
    /// restart does not lengthen that: the push restored expires when it would have without it.
    @Test func aPushHeldAtAPNsExpiresAtTheStorageLimitAfterARestart() async throws {
        let path = Scratch.directory.appendingPathComponent("storage-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(path)
            $0.wakeSettings.apnsStorageLimit = .seconds(3600)
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            try await receiver.setDeviceState(DeviceState(network: .offline), for: SamplePush.deviceToken)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // no apns-expiration
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1))?.waitReason?.rule == .offline)
            try await receiver.advanceClock(by: Self.minute * 30)
        }
        try await Receiver.withTesting(configure) { receiver in
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .pending)
            try await receiver.advanceClock(by: Self.minute * 30)  // an hour after it arrived
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .expired)
        }
    }

    @Test func aRestartPutsBackPendingPushesDeviceStateAndTheClock() async throws {
        let path = Scratch.directory.appendingPathComponent("restart-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(path)
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60))
        }
        let other = String(repeating: "ab", count: 32)
        let clockBefore = try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // wakes at once
            try await receiver.advanceClock(by: Self.minute * 5)
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)  // waits until minute 15
            #expect(try await client.push(apnsID: Self.apnsID(3)).status == 200)  // replaces it
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true), for: other)
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .coalesced)
            #expect(try await receiver.fate(of: Self.apnsID(2))?.wakeID == nil)
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .pending)
            #expect(try await receiver.fate(of: Self.apnsID(3))?.waitReason?.rule == .minimumInterval)
            #expect(try await receiver.device.counts().pushes == ["delivered": 1, "coalescedWaiting": 1, "pending": 1])
            return receiver.device.clock.now
        }
        try await Receiver.withTesting(configure) { receiver in
            #expect(receiver.device.clock.now.millisecondsSinceEpoch == clockBefore.millisecondsSinceEpoch)
            #expect(receiver.device.deviceState(of: other) == DeviceState(lowPowerMode: true))
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .coalesced)
            #expect(try await receiver.fate(of: Self.apnsID(2))?.wakeID == nil)
            #expect(try await receiver.fate(of: Self.apnsID(2))?.coalescedByAPNs == false)
            // The restored push says again what holds it: the interval from the wake before the restart.
            let restored = try #require(try await receiver.fate(of: Self.apnsID(3)))
            #expect(restored == .pending)
            #expect(restored.waitReason?.rule == .minimumInterval)
            #expect(restored.waitReason?.until?.millisecondsSinceEpoch == clockBefore.advanced(by: Self.minute * 10).millisecondsSinceEpoch)
            try await receiver.advanceClock(by: Self.minute * 9)  // minute 14
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .pending)
            #expect(try await receiver.fate(of: Self.apnsID(3))?.waitReason == restored.waitReason)
            try await receiver.advanceClock(by: Self.minute)  // minute 15
            await receiver.settle()
            let wakes = try await receiver.wakes()
            #expect(wakes.map(\.id) == [1, 2])
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .delivered)
            #expect(try await receiver.fate(of: Self.apnsID(3))?.wakeID == 2)
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .coalesced)
            #expect(try await receiver.fate(of: Self.apnsID(2))?.wakeID == 2)
            #expect(try await receiver.coalesced(into: 2) == [Self.apnsID(2)])
        }
    }

    @Test func theDefaultHandlerEndsEachWakeAtOnceAndFreesItsFetchSlotForTheNext() async throws {
        // noData needs no task: its wakes end as they start, and those waiting for one of the
        // two fetch slots start in turn, in one pass (not one nested call per wake).
        let apps = 3_000
        try await Receiver.withTesting({
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60), maximumConcurrentFetches: 2)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let tokens = (0..<apps).map { String(format: "%064x", $0) }
            for token in tokens { #expect(try await client.push(to: token).status == 200) }  // wakes at once
            try await receiver.advanceClock(by: Self.minute)
            for token in tokens { #expect(try await client.push(to: token).status == 200) }  // waits until minute 15
            #expect(receiver.device.runningWakeCount == 0)
            try await receiver.advanceClock(by: Self.minute * 14)  // all 3,000 due at once
            #expect(receiver.device.runningWakeCount == 0)
            await receiver.settle()
            let wakes = try await receiver.device.wakes(limit: 2 * apps)
            #expect(wakes.count == 2 * apps)
            #expect(wakes.allSatisfy { $0.result == .noData && $0.finishedAt == $0.startedAt })
            #expect(try await receiver.device.counts().pushes == ["delivered": 2 * apps])
        }
    }

    @Test func rejectedAndNeverWakingPushesHaveTheirFates() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let rejected = try await client.push(apnsID: Self.apnsID(1), rawHeaders: ["apns-priority": "7"])
            #expect(rejected.status == 400 && rejected.reason == .badPriority)
            #expect(try await client.push(#"{"aps":{"alert":"hi"}}"#, pushType: .alert, apnsID: Self.apnsID(2)).status == 200)
            #expect(try await client.push(#"{"aps":{}}"#, apnsID: Self.apnsID(3)).status == 200)
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .rejected(.badPriority))
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .dropped(.noContentAvailable))
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .dropped(.backgroundWithoutContentAvailable))
            #expect(try await receiver.wakes().isEmpty)
        }
    }

    @Test func forceQuitDropsWhatWaitsAndWhatComes() async throws {
        try await Receiver.withTesting({ $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60)) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)
            try await receiver.setDeviceState(DeviceState(forceQuit: true))
            #expect(try await client.push(apnsID: Self.apnsID(3)).status == 200)
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .dropped(.forceQuit))
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .dropped(.forceQuit))
        }
    }

    @Test func offlineAPNsKeepsTheLatestPushDeliversItOnReconnectAndExpiresWhatRunsOut() async throws {
        try await Receiver.withTesting({ $0.fetchHandler = .swift { _ in .newData } }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            try await receiver.setDeviceState(DeviceState(network: .offline))
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)
            #expect(try await client.push(apnsID: Self.apnsID(3)).status == 200)
            await receiver.settle()
            let held = try #require(try await receiver.fate(of: Self.apnsID(3)))
            #expect(held == .pending && held.waitReason == .offline)
            try await receiver.advanceClock(by: .seconds(3600))
            #expect(try await receiver.wakes().isEmpty)

            try await receiver.setDeviceState(DeviceState(network: .online))
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().first)
            let delivered = try #require(try await receiver.fate(of: Self.apnsID(3)))
            #expect(delivered == .delivered && delivered.wakeID == wake.id)
            for id in [1, 2] {
                let fate = try #require(try await receiver.fate(of: Self.apnsID(id)))
                #expect(fate == .coalesced && fate.coalescedByAPNs && fate.wakeID == wake.id, "push \(id): \(fate)")
            }

            // A push whose expiry passes while the device is offline expires at APNs.
            // (apns-expiration is read on the system clock, as a time-to-live: 60 s.)
            try await receiver.setDeviceState(DeviceState(network: .offline))
            let inAMinute = Int64(DeviceClock.systemNow.millisecondsSinceEpoch / 1000) + 60
            #expect(try await client.push(expiration: inAMinute, apnsID: Self.apnsID(4)).status == 200)
            try await receiver.advanceClock(by: .seconds(120))
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(4)) == .expired)
            try await receiver.setDeviceState(DeviceState(network: .online))
            await receiver.settle()
            #expect(try await receiver.wakes().count == 1)
        }
    }

    @Test func theForecastFollowsTheDevice() async throws {
        try await Receiver.withTesting { receiver in
            let start = receiver.device.clock.now
            #expect(receiver.forecast() == .wakes(at: start, after: nil))
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().first)
            #expect(receiver.forecast().wakeAt?.millisecondsSinceEpoch == wake.startedAt.advanced(by: .seconds(15 * 60)).millisecondsSinceEpoch)
            try await receiver.setDeviceState(DeviceState(batteryLevel: 10))
            #expect(receiver.forecast() == .waits(.battery(level: 10, threshold: 20)))
            #expect(receiver.forecast(priority: .high).wakeAt != nil)
        }
    }

    /// Three days on the manual clock, a push every two hours, a budget of 3 a day: three
    /// launches, then each held push says when the oldest launch ages out, and goes then.
    @Test func theDailyBudgetOverThreeDaysOnTheManualClock() async throws {
        try await Receiver.withTesting({ $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60), dailyBudget: 3) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let start = receiver.device.clock.now
            let hour = Duration.seconds(3600)
            func hours(_ instant: DeviceInstant?) -> Int64? { instant.map { ($0.millisecondsSinceEpoch - start.millisecondsSinceEpoch) / 3_600_000 } }
            var held: [Int: WaitReason<DeviceInstant>] = [:]
            for push in 0..<36 {
                if push > 0 { try await receiver.advanceClock(by: hour * 2) }
                #expect(try await client.push(apnsID: Self.apnsID(push)).status == 200)
                await receiver.settle()
                let fate = try #require(try await receiver.fate(of: Self.apnsID(push)))
                if fate == .pending {
                    let why = try #require(fate.waitReason)
                    held[push] = why
                }
            }
            let wakes = try await receiver.wakes()
            #expect(wakes.map { hours($0.startedAt) } == [0, 2, 4, 24, 26, 28, 48, 50, 52])
            // The push at hour 6 waited for the launch of hour 0 to age out, at hour 24...
            guard case .dailyBudget(used: 3, budget: 3, let until)? = held[3] else { Issue.record("\(String(describing: held[3]))"); return }
            #expect(hours(until) == 24)
            // ...was replaced by later pushes; the one of hour 22 went at hour 24, the others rode it.
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .coalesced)
            #expect(try await receiver.fate(of: Self.apnsID(3))?.wakeID == wakes[3].id)
            #expect(try await receiver.fate(of: Self.apnsID(11)) == .delivered)
            #expect(try await receiver.fate(of: Self.apnsID(11))?.wakeID == wakes[3].id)
            // The last, at hour 70, waits for hour 72, as its reason says.
            let last = try #require(try await receiver.fate(of: Self.apnsID(35)))
            #expect(last == .pending)
            guard case .dailyBudget(used: 3, budget: 3, let until)? = last.waitReason else { Issue.record("\(last)"); return }
            #expect(hours(until) == 72)
        }
    }

    @Test func aRebootHoldsLaunchesForTheWarmUp() async throws {
        try await Receiver.withTesting({ $0.wakeSettings.rebootWarmup = .seconds(300) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let until = try await receiver.reboot()
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            await receiver.settle()
            let held = try #require(try await receiver.fate(of: Self.apnsID(1)))
            #expect(held == .pending && held.waitReason?.rule == .rebootWarmup)
            #expect(held.waitReason?.until?.millisecondsSinceEpoch == until.millisecondsSinceEpoch)
            try await receiver.advanceClock(by: .seconds(300))
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .delivered)
        }
    }

    @Test func anAppNotOpenedForWeeksIsNotLaunchedUntilOpened() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            try await receiver.openApp(at: receiver.device.clock.now.advanced(by: .seconds(-15 * 86_400)))
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            await receiver.settle()
            let held = try #require(try await receiver.fate(of: Self.apnsID(1)))
            #expect(held == .pending && held.waitReason?.rule == .appUsage)
            try await receiver.openApp()
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .delivered)
            #expect(receiver.device.lastOpened(device: SamplePush.deviceToken, topic: SamplePush.topic) != nil)
        }
    }

    /// A manual clock keeps whole milliseconds, as the store and a cluster's members do: a
    /// time due on one member is then reached exactly by an advance another chose.
    @Test func theManualClockKeepsWholeMilliseconds() async throws {
        #expect(DeviceClock(.manual, start: DeviceInstant(nanosecondsSinceEpoch: 1_000_999_999)).now == DeviceInstant(millisecondsSinceEpoch: 1_000))
        _ = try await Receiver.withTesting({ $0.clock = .manual }) { receiver in
            let start = receiver.device.clock.now
            #expect(start.nanosecondsSinceEpoch % 1_000_000 == 0, "\(start.nanosecondsSinceEpoch)")
            let moved = try await receiver.device.advance(by: .nanoseconds(2_500_000))
            #expect(moved == start.advanced(by: .milliseconds(2)) && receiver.device.clock.now == moved)
        }
    }

    @Test func advancingTheSystemClockIsRefused() async throws {
        _ = try await Receiver.withTesting({ $0.clock = .system }) { receiver in
            await #expect(throws: DeviceClockError.notManual) { try await receiver.device.advance(by: .seconds(1)) }
        }
    }

    @Test func onTheSystemClockTimersFireByThemselves() async throws {
        let handler = ClosureFetchHandler { wake in
            if wake.id == 2 { try? await Task.sleep(for: .seconds(3600)) }  // the second wake hangs
            return .noData
        }
        try await Receiver.withTesting({
            $0.clock = .system
            // 2 s: the second push surely waits, however loaded the machine.
            $0.wakeSettings = WakeSettings(minimumInterval: .seconds(2), deadline: .milliseconds(300))
            $0.fetchHandler = .handler(handler)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)
            #expect(try await receiver.fate(of: Self.apnsID(2)) == .pending)
            // While the first fetch runs the push waits for it; after, for the interval.
            let rule = try await receiver.fate(of: Self.apnsID(2))?.waitReason?.rule
            #expect(rule == .fetchSlots || rule == .minimumInterval, "\(String(describing: rule))")
            let fate = try await receiver.waitForFate(of: Self.apnsID(2)) { $0 != .pending }
            #expect(fate == .delivered)
            #expect(fate?.wakeID == 2)
            var wake: WakeRecord?
            for _ in 0..<300 where wake?.result == nil {
                wake = try await receiver.wakes().last
                if wake?.result == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(wake?.id == 2)
            #expect(wake?.result == .deadlineExceeded)
            let startedAt = try #require(wake?.startedAt)
            #expect(wake?.finishedAt == startedAt.advanced(by: .milliseconds(300)))
        }
    }

    /// The timer sleeps until the next deadline (or a second at most) and fires it. A timer
    /// that woke a little before its deadline once re-armed itself, woke again at once, and
    /// spun from then on: a core busy and memory growing with every sleep it cut short.
    @Test func onTheSystemClockTheTimerSleepsBetweenDeadlines() async throws {
        try await Receiver.withTesting({
            $0.clock = .system
            $0.wakeSettings = WakeSettings(minimumInterval: .milliseconds(500))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            // Each push after the first waits half a second for the interval: three deadlines.
            for n in 1...4 {
                #expect(try await client.push(apnsID: Self.apnsID(n)).status == 200)
                if n > 1 {
                    let fate = try await receiver.waitForFate(of: Self.apnsID(n)) { $0 != .pending }
                    #expect(fate == .delivered)
                }
            }
            let before = try #require(receiver.metric("silentpush_device_timer_wakeups_total"))
            try await Task.sleep(for: .seconds(2))
            let after = try #require(receiver.metric("silentpush_device_timer_wakeups_total"))
            // Nothing is due: at most one look at the clock a second (and one for the slack).
            #expect(before <= 20, "the timer woke \(before) times for three deadlines")
            #expect(after - before <= 3, "the timer woke \(after - before) times in 2 s with nothing due")
        }
    }

    /// A receiver whose fetches hang until cancelled, with `grace` to shut down, on a file
    /// store at `store` when given.
    static func hangingFetches(grace: Duration, store: String? = nil) -> @Sendable (inout ReceiverConfiguration) -> Void {
        { configuration in
            if let store { configuration.store = .file(store) }
            configuration.shutdownGrace = grace
            configuration.wakeSettings = .fast
            configuration.fetchHandler = .swift { _ in
                try? await Task.sleep(for: .seconds(3600))
                return .newData
            }
        }
    }

    /// On the system clock a fetch gets no more of the grace than is left to its deadline: a
    /// handler hanging past a 1 s deadline holds the stop 1 s, not the 20 s grace, and its
    /// wake ends `deadlineExceeded`.
    @Test func aFetchIsGivenNoMoreOfTheGraceThanItsDeadline() async throws {
        let path = try Scratch.newDirectory("grace-deadline") + "/store.sqlite"
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let clock = ContinuousClock()
        var stopping = clock.now
        try await Receiver.withTesting({
            Self.hangingFetches(grace: .seconds(20), store: path)(&$0)
            $0.clock = .system
            $0.wakeSettings.deadline = .seconds(1)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // its fetch hangs
            for _ in 0..<100 where try await receiver.wakes().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            await client.close()
            stopping = clock.now
        }
        let took = stopping.duration(to: clock.now)
        #expect(took < .seconds(5), "the stop waited \(took) for a fetch past its deadline")
        let store = try await PushStore.open(.file(path))
        let wake = try #require(try await store.wakes().first)
        #expect(wake.result == .deadlineExceeded, "\(wake)")
        try await store.close()
    }

    /// On the manual clock, which stands still, a fetch gets its deadline's length of the
    /// grace in real time, as a move of the clock gives it: a handler hanging past a 1 s
    /// deadline holds the stop 1 s, not the 20 s grace, and its wake ends `shutdown` (the
    /// device never reached its deadline).
    @Test func onTheManualClockAFetchIsGivenNoMoreOfTheGraceThanItsDeadlinesLength() async throws {
        let path = try Scratch.newDirectory("grace-deadline-manual") + "/store.sqlite"
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let clock = ContinuousClock()
        var stopping = clock.now
        try await Receiver.withTesting({
            Self.hangingFetches(grace: .seconds(20), store: path)(&$0)
            $0.clock = .manual
            $0.wakeSettings.deadline = .seconds(1)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // its fetch hangs
            for _ in 0..<100 where try await receiver.wakes().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            await client.close()
            stopping = clock.now
        }
        let took = stopping.duration(to: clock.now)
        #expect(took >= .milliseconds(900) && took < .seconds(5), "the stop waited \(took) for a fetch with a 1 s deadline")
        let store = try await PushStore.open(.file(path))
        let wake = try #require(try await store.wakes().first)
        #expect(wake.result == .shutdown, "\(wake)")
        try await store.close()
    }

    /// An exec handler that ignores SIGTERM, cut when the shutdown grace ends, is killed then,
    /// not after its kill grace: the receiver stops within its grace, and the wake says `shutdown`.
    @Test func anExecHandlerCutAtTheGracesEndIsKilledThen() async throws {
        let path = try Scratch.newDirectory("grace-exec") + "/store.sqlite"
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let clock = ContinuousClock()
        var stopping = clock.now
        try await Receiver.withTesting({
            $0.store = .file(path)
            $0.shutdownGrace = .seconds(1)
            $0.wakeSettings = .fast
            $0.fetchHandler = .handler(ExecFetchHandler(command: #"trap "" TERM; sleep 30; echo newData"#, killGrace: .seconds(20)))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // its handler runs on
            for _ in 0..<100 where try await receiver.wakes().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            await client.close()
            stopping = clock.now
        }
        let took = stopping.duration(to: clock.now)
        #expect(took >= .milliseconds(900) && took < .seconds(10), "the stop took \(took) for a 1 s grace (the kill grace is 20 s)")
        let store = try await PushStore.open(.file(path))
        let wake = try #require(try await store.wakes().first)
        #expect(wake.result == .shutdown, "\(wake)")
        try await store.close()
    }

    /// A handler whose shell dies at the grace's end, its child killed with it, ends then: the
    /// child's zombie (reaped by init, slowly in a container) does not hold the stop a second
    /// longer.
    @Test func aHandlerKilledAtTheGracesEndDoesNotWaitForItsZombies() async throws {
        let clock = ContinuousClock()
        var stopping = clock.now
        try await Receiver.withTesting({
            $0.shutdownGrace = .seconds(1)
            $0.wakeSettings = .fast
            $0.fetchHandler = .handler(ExecFetchHandler(command: "sleep 30; echo newData", killGrace: .seconds(20)))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            for _ in 0..<100 where try await receiver.wakes().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(100))  // the shell has started its child
            await client.close()
            stopping = clock.now
        }
        let took = stopping.duration(to: clock.now)
        #expect(
            took >= .milliseconds(900) && took < .milliseconds(1950),
            "the stop took \(took) for a 1 s grace (2 s or more when it waited for the zombie)")
    }

    /// The grace counts from the signal, for the server's streams and the fetches together:
    /// a signal whose grace has already passed leaves a hanging fetch no time, where before
    /// each part waited a whole grace in turn.
    @Test func fetchesGetWhatIsLeftOfTheGraceCountedFromTheSignal() async throws {
        let path = Scratch.directory.appendingPathComponent("grace-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let clock = ContinuousClock()
        var stopping = clock.now
        try await Receiver.withTesting(Self.hangingFetches(grace: .seconds(20), store: path)) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // its fetch hangs
            await client.close()
            // As if the signal came 30 s ago and the server's drain took all of the grace.
            receiver.shutdownBegan(at: clock.now - .seconds(30))
            stopping = clock.now
        }
        let took = stopping.duration(to: clock.now)
        #expect(took < .seconds(10), "the fetch was given \(took) of a grace already spent")
        let store = try await PushStore.open(.file(path))
        let wake = try #require(try await store.wakes().first)
        #expect(wake.result?.name == "failed" && wake.reason == "shutdown")
    }

    /// The signal itself marks the start, before the server drains: the grace above counts
    /// from it.
    @Test func theShutdownSignalMarksWhenTheGraceBegins() async throws {
        let clock = ContinuousClock()
        var signalled = clock.now
        let watcher = try await Receiver.withTesting(Self.hangingFetches(grace: .milliseconds(500))) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // its fetch hangs through the drain
            await client.close()
            #expect(receiver.shutdownBeganAt == nil)
            signalled = clock.now
            // Watches the drain that follows this body's end, up to 10 s.
            return Task {
                for _ in 0..<1000 {
                    if let began = receiver.shutdownBeganAt { return Optional(began) }
                    try? await Task.sleep(for: .milliseconds(10))
                }
                return nil
            }
        }
        let began = try #require(await watcher.value, "graceful shutdown ran without marking when it began")
        #expect(began >= signalled)
    }

    @Test func aShutdownRecordsTheRunningFetchAndKeepsWhatWaits() async throws {
        let path = Scratch.directory.appendingPathComponent("shutdown-\(UUID().uuidString)/store.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        try await Receiver.withTesting(Self.hangingFetches(grace: .milliseconds(200), store: path)) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)  // its fetch hangs
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 200)  // waits for it
        }
        let store = try await PushStore.open(.file(path))
        let wake = try #require(try await store.wakes().first)
        #expect(wake.result?.name == "failed" && wake.reason == "shutdown")
        let kept = try #require(try await store.push(apnsID: Self.apnsID(2))?.fate)
        #expect(kept == .pending)
        #expect(kept.waitReason == .fetchRunning)
        #expect(try await store.unfinishedWakes().isEmpty)
    }
}
