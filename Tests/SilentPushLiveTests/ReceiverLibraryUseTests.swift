import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The in-process library used the way a Swift test does, wrong uses included: each gets a
/// typed error, never a crash or a hang.
@Suite struct ReceiverLibraryUseTests {
    /// A receiver kept past `withTesting`: its records, its clock and a second run are refused
    /// in words (a read of the closed store crashed; a clock move with a timer set spun).
    @Test func aStoppedReceiverRefusesReadsClockMovesAndASecondRun() async throws {
        let (receiver, apnsID) = try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let answer = try await client.push()
            #expect(answer.status == 200)
            await client.close()
            _ = try await receiver.fate(of: answer.apnsID, becomes: .delivered)
            return (receiver, answer.apnsID)
        }
        await #expect(throws: PushStoreError.closed) { try await receiver.fate(of: apnsID) }
        await #expect(throws: DeviceClockError.stopped) { try await receiver.advanceClock(by: .seconds(60)) }
        // The body never runs: its read would fail as the closed store's, hiding why.
        let again = await #expect(throws: ReceiverStartError.self) {
            try await receiver.whileRunning { receiver in try await receiver.fate(of: apnsID) }
        }
        let ranBefore = if case .alreadyRan? = again { true } else { false }
        #expect(ranBefore, "\(String(describing: again))")
        #expect(ReceiverStartError.alreadyRan.description.contains("make a new Receiver"))
        #expect(receiver.h2cPort == nil, "a stopped receiver names no port")
        let connect = await #expect(throws: ReceiverStartError.self) { try await TestPushClient.connect(to: receiver) }
        let stopped = if case .alreadyRan? = connect { true } else { false }
        #expect(stopped, "\(String(describing: connect))")
    }

    /// Waiting for a receiver nobody runs ends when the waiting task is cancelled (a test's
    /// time limit, say): it waited for good, whatever cancelled it.
    @Test(.timeLimit(.minutes(1))) func waitingForAReceiverNeverRunEndsWhenCancelled() async throws {
        let receiver = try await Receiver(.testing(), logger: .silentPushTesting)
        let waiting = Task { try await TestPushClient.connect(to: receiver) }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        let started = ContinuousClock.now
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(5))
        // Cancelled before it begins to wait, it ends at once too.
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await receiver.ready()
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    /// A push of a type with a topic suffix goes, by default, to the dev topic with it: a Live
    /// Activity update is not refused for its topic.
    @Test func aPushTypesDefaultTopicHasItsSuffix() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let update = #"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#
            let answer = try await client.push(update, priority: .high, pushType: .liveactivity)
            #expect(answer.status == 200, "\(String(describing: answer.reason))")
            await client.close()
        }
    }

    /// A malformed token (a slash, a space) reaches the receiver as one segment of the path and
    /// gets its own reason, as a provider's HTTP/2 client would send it; so does a bundle id.
    @Test func aMalformedTokenInThePathGetsBadDeviceToken() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            for token in ["ab/cd", "ab cd", "ab?cd", "ab#cd"] {
                let answer = try await client.push(to: token)
                #expect(answer.status == 400 && answer.reason == .badDeviceToken, "\(token): \(answer.status) \(String(describing: answer.reason))")
            }
            let broadcast = try await client.broadcast(
                #"{"aps":{}}"#, bundleID: "com.example/app", channel: ChannelID(bytes: Array(repeating: 1, count: 16)))
            #expect(broadcast.status == 400 && broadcast.reason == .channelNotRegistered, "\(broadcast.status)")
        }
    }

    /// A test of a provider reads back which pushes reached a device, with their headers and
    /// fates, refused ones included, without knowing their apns-ids.
    @Test func thePushesADeviceGotReadBackWithTheirHeadersAndFates() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await client.push(priority: .high, collapseID: "score")
            try await client.push(priority: .normal, expiration: 4_000_000_000)
            let refused = try await client.push(priority: .normal, rawHeaders: ["apns-priority": "7"])
            #expect(refused.status == 400)
            await receiver.settle()
            let pushes = try await receiver.pushes(deviceToken: SamplePush.deviceToken.uppercased())
            #expect(pushes.map(\.fate.kind) == [.delivered, .pending, .rejected], "\(pushes)")
            #expect(pushes.first?.priority == .high && pushes.first?.collapseID == "score" && pushes.first?.pushType == .background)
            // A time to live from the system clock, on the device's (manual) clock.
            #expect(pushes[1].expiresAt.map { $0 > pushes[1].receivedAt.advanced(by: .seconds(86_400 * 365)) } == true)
            #expect(pushes[2].fate == .rejected(.badPriority))
            #expect(String(decoding: pushes[0].payload, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
            #expect(try await receiver.pushes(topic: "com.example.other").isEmpty)
            #expect(try await receiver.pushes(limit: 1).map(\.fate.kind) == [.rejected])
            await client.close()
        }
    }

    /// Two receivers of one process on one SQLite file: the second is refused (both used to
    /// start, and the second answered every push 503); once the first closes, it is free.
    @Test func aSecondReceiverOnTheSameFileInThisProcessIsRefused() async throws {
        let path = Scratch.directory.appendingPathComponent("one-store-\(UUID().uuidString)/pushes.sqlite").path
        // The same file through a symlinked directory is the same store.
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let link = Scratch.directory.appendingPathComponent("one-store-link-\(UUID().uuidString)")
        try await Receiver.withTesting({ $0.store = .file(path) }) { _ in
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: directory)
            for other in [path, link.path + "/pushes.sqlite"] {
                let error = await #expect(throws: (any Error).self) { try await Receiver.withTesting({ $0.store = .file(other) }) { _ in } }
                let said = "\(try #require(error))"
                #expect(said.contains("is open in this process already"), "\(other): \(said)")
            }
        }
        try await Receiver.withTesting({ $0.store = .file(path) }) { _ in }
    }

    /// `ready()` after a run that failed says why it failed, not that it ran.
    @Test func readyAfterAFailedRunSaysWhyItFailed() async throws {
        try await Receiver.withTesting { first in
            var configuration = ReceiverConfiguration.testing()
            configuration.listenH2C = ListenAddress(host: "127.0.0.1", port: try #require(first.h2cPort))
            let second = try await Receiver(configuration)
            await #expect(throws: (any Error).self) { try await second.run() }
            let error = await #expect(throws: ReceiverStartError.self) { try await second.ready() }
            let busy = if case .addressInUse? = error { true } else { false }
            #expect(busy, "\(String(describing: error))")
        }
    }

    /// A transfer setting the flags would refuse is refused through the Swift API too, in
    /// words naming it (a retry delay of 0 retried a failing origin without pause).
    @Test func aTransferSettingOutOfRangeStopsTheStart() async throws {
        let error = await #expect(throws: ReceiverStartError.self) {
            try await Receiver.withTesting({ $0.transfers.retryDelay = .zero }) { _ in Issue.record("the receiver ran") }
        }
        let named = if case .settings? = error { true } else { false }
        #expect(named, "\(String(describing: error))")
        #expect(error.map { "\($0)" }?.contains("transfers.retryDelay") == true, "\(String(describing: error))")
    }

    /// A wake setting the flags would refuse is refused through the Swift API too: app-usage
    /// factors of `Int.max` overflowed when an interval was multiplied by them, a trap on
    /// the event loop that took the whole test process.
    @Test func aWakeSettingOutOfRangeStopsTheStart() async throws {
        let error = await #expect(throws: ReceiverStartError.self) {
            try await Receiver.withTesting({ $0.wakeSettings.appUsageFactors = .init(week: .max, older: .max) }) { _ in
                Issue.record("the receiver ran")
            }
        }
        let named = if case .settings? = error { true } else { false }
        #expect(named, "\(String(describing: error))")
        #expect(error.map { "\($0)" }?.contains("wakeSettings.appUsageFactors.week") == true, "\(String(describing: error))")
    }

    /// A device's clock only moves forward, through the library as through the admin API.
    @Test func aNegativeClockMoveIsRefused() async throws {
        try await Receiver.withTesting { receiver in
            let before = receiver.device.clock.now
            await #expect(throws: DeviceClockError.backwards) { try await receiver.advanceClock(by: .seconds(-3600)) }
            #expect(receiver.device.clock.now == before)
        }
    }

    /// `settle` says when it gave up on a handler still running, and when all settled.
    @Test func settleSaysWhetherItGaveUp() async throws {
        let release = AsyncSignal()
        try await Receiver.withTesting({
            $0.fetchHandler = .swift { _ in
                await release.wait()
                return .noData
            }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            #expect(try await client.push().status == 200)
            await client.close()
            for _ in 0..<200 where receiver.device.runningWakeCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(receiver.device.runningWakeCount == 1)
            #expect(await receiver.settle(timeout: .milliseconds(200)) == false)
            release.raise()
            #expect(await receiver.settle())
        }
    }

    /// A token given in capitals names the same device as the APNs path does (which stores
    /// it lower-case): its state applies to the pushes, and its records are found.
    @Test func aTokenInCapitalsNamesTheSameDevice() async throws {
        try await Receiver.withTesting { receiver in
            try await receiver.setDeviceState(DeviceState(forceQuit: true), for: SamplePush.deviceToken.uppercased())
            let client = try await TestPushClient.connect(to: receiver)
            let answer = try await client.push()
            await client.close()
            let fate = try await receiver.fate(of: answer.apnsID, becomes: .dropped)
            #expect(fate.dropReason == .forceQuit, "\(fate)")
            #expect(receiver.device.deviceState(of: SamplePush.deviceToken.uppercased()).forceQuit)
            let started = try await receiver.device.startActivity(
                device: SamplePush.deviceToken.uppercased(), bundleID: SamplePush.topic, attributesType: "Score")
            for device in [SamplePush.deviceToken, SamplePush.deviceToken.uppercased()] {
                #expect(try await receiver.device.activities(device: device, bundleID: SamplePush.topic).map(\.id) == [started.id])
                #expect(try await receiver.device.activities(device: device, bundleID: nil, limit: 10).map(\.id) == [started.id])
            }
        }
    }
}
