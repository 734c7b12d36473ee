import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import Testing

/// A test awaits a fate instead of polling for it: the wait ends when the transaction that
/// records it ends, and a fate that does not come in time is an error naming the last one.
@Suite struct FateAwaitTests {
    static let first = "00000000-0000-4000-8000-0000000000a1"
    static let second = "00000000-0000-4000-8000-0000000000a2"

    @Test func awaitingDeliveryEndsWhenTheWakeIsRecorded() async throws {
        try await Receiver.withTesting({ $0.fetchHandler = .swift { _ in .newData } }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await client.push(apnsID: Self.first)
            try await client.push(apnsID: Self.second)
            let delivered = try await receiver.fate(of: Self.first, becomes: .delivered, within: .seconds(5))
            #expect(delivered.kind == .delivered)
            #expect(try await receiver.fate(of: Self.second) == .pending)
            let rule = try await receiver.fate(of: Self.second)?.waitReason?.rule
            #expect(rule == .fetchSlots || rule == .minimumInterval, "\(String(describing: rule))")
            // Why it waits is a typed value: the interval from the first wake, once its fetch
            // has ended (while it runs, the push waits for it: `fetchRunning`).
            await receiver.settle()
            let firstWake = try #require(try await receiver.wakes().first)
            let why = try #require(try await receiver.fate(of: Self.second)?.waitReason)
            #expect(
                why
                    == .minimumInterval(
                        lastWake: firstWake.startedAt, interval: .seconds(15 * 60), until: firstWake.startedAt.advanced(by: .seconds(15 * 60))))

            // The clock moves while the test already waits: the wait ends on that wake's record.
            async let moved: Void = {
                try await Task.sleep(for: .milliseconds(50))
                try await receiver.advanceClock(by: .seconds(15 * 60))
            }()
            let second = try await receiver.fate(of: Self.second, becomes: .delivered, within: .seconds(5))
            try await moved
            #expect(second == .delivered)
            let wakes = try #require(second.wakeID.flatMap { second in delivered.wakeID.map { (first: $0, second: second) } })
            #expect(wakes.first != wakes.second)
        }
    }

    /// A provider that sends one apns-id twice gets two unique ids: each names its own push
    /// and fate, where the apns-id finds the latest.
    @Test func aUniqueIDNamesItsOwnPushWhereAnAPNsIDIsReused() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            try await client.push(apnsID: Self.first)  // wakes the app
            let replaced = try #require(try await client.push(apnsID: Self.second).uniqueID)
            let latest = try #require(try await client.push(apnsID: Self.second).uniqueID)
            #expect(replaced != latest)
            #expect(try await receiver.fate(uniqueID: replaced) == .coalesced(into: nil))
            #expect(try await receiver.fate(uniqueID: latest.uppercased())?.kind == .pending)
            #expect(try await receiver.fate(of: Self.second)?.kind == .pending)
            #expect(try await receiver.fate(uniqueID: "00000000-0000-4000-8000-0000000000ff") == nil)
        }
    }

    @Test func aFateThatDoesNotComeIsATimeoutNamingTheLastOne() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await client.push(apnsID: Self.first)
            try await client.push(apnsID: Self.second)
            let clock = ContinuousClock()
            let started = clock.now
            await #expect(throws: FateWaitTimeout(apnsID: Self.second, expected: .expired, last: .pending, waited: .milliseconds(200))) {
                try await receiver.fate(of: Self.second, becomes: .expired, within: .milliseconds(200))
            }
            #expect(clock.now - started >= .milliseconds(200))
            await #expect(throws: FateWaitTimeout.self) {
                try await receiver.fate(of: "00000000-0000-4000-8000-0000000000ff", becomes: .pending, within: .milliseconds(50))
            }
        }
    }

    /// A fate the push cannot leave ends the wait at once, saying what it is and why; one
    /// still waiting says what it waits for.
    @Test func aFinalFateEndsTheWaitAtOnceAndTheTimeoutSaysWhy() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await client.push(apnsID: Self.first)
            try await client.push(apnsID: Self.second)
            let waiting = try await #require(throws: FateWaitTimeout.self) {
                try await receiver.fate(of: Self.second, becomes: .delivered, within: .milliseconds(100))
            }
            #expect(waiting.description.contains("it is pending (waiting: minimumInterval until "), "\(waiting)")
            try await receiver.setDeviceState(DeviceState(forceQuit: true))
            let started = ContinuousClock.now
            let dropped = try await #require(throws: FateWaitTimeout.self) {
                try await receiver.fate(of: Self.second, becomes: .delivered, within: .seconds(30))
            }
            #expect(ContinuousClock.now - started < .seconds(10), "not the whole 30 s")
            #expect(dropped.last == .dropped(.forceQuit))
            #expect(dropped.description == "push \(Self.second) will not become delivered: it is dropped: app force-quit", "\(dropped)")
            await client.close()
        }
    }

    /// A push coalesced behind a waiting one is never delivered itself (it is coalesced into
    /// that push's wake): a wait for `.delivered` ends at once, not at its timeout.
    @Test func aCoalescedPushIsNeverAwaitedAsDelivered() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            try await client.push(apnsID: Self.first)  // wakes the app
            try await client.push(apnsID: Self.second)
            try await client.push(apnsID: "00000000-0000-4000-8000-0000000000a3")  // replaces the second
            let started = ContinuousClock.now
            let coalesced = try await #require(throws: FateWaitTimeout.self) {
                try await receiver.fate(of: Self.second, becomes: .delivered, within: .seconds(30))
            }
            #expect(ContinuousClock.now - started < .seconds(10), "not the whole 30 s")
            #expect(coalesced.last == .coalesced(into: nil))
            #expect(coalesced.description == "push \(Self.second) will not become delivered: it is coalesced", "\(coalesced)")
            // It may still be coalesced into a wake, expire or be dropped with its successor.
            #expect(try await receiver.fate(of: Self.second, becomes: .coalesced, within: .seconds(5)) == .coalesced(into: nil))
        }
    }
}
