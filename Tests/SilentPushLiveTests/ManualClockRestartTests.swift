import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A manual clock moves only when told: a restart resumes it where it stood, however much
/// real time passed meanwhile, and the pushes waiting keep their fates.
@Suite struct ManualClockRestartTests {
    @Test func aRestartResumesTheManualClockWhereItStoodAndPlaysNoTimer() async throws {
        let directory = try Scratch.newDirectory("manual-clock-restart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.clock = .manual
            $0.wakeSettings = .fast  // a 1 s interval: real time past it would wake the app
        }
        var stood = DeviceInstant(millisecondsSinceEpoch: 0)
        var waiting = ""
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await client.push()
            waiting = try await client.push().apnsID
            #expect(try await receiver.fate(of: waiting)?.waitReason?.rule == .minimumInterval)
            stood = try await receiver.advanceClock(by: .milliseconds(200))
            await client.close()
        }
        try await Task.sleep(for: .milliseconds(1_500))
        try await Receiver.withTesting(configure) { receiver in
            #expect(receiver.device.clock.now == stood)
            #expect(try await receiver.fate(of: waiting)?.waitReason?.rule == .minimumInterval)
            try await receiver.advanceClock(by: .seconds(1))
            #expect(try await receiver.fate(of: waiting)?.kind == .delivered)
        }
    }

    /// With nothing recorded and no move, a restart still resumes where the clock started.
    @Test func aRestartWithNothingRecordedResumesWhereTheClockStarted() async throws {
        let directory = try Scratch.newDirectory("manual-clock-empty")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.clock = .manual
        }
        var started = DeviceInstant(millisecondsSinceEpoch: 0)
        try await Receiver.withTesting(configure) { started = $0.device.clock.now }
        try await Task.sleep(for: .milliseconds(1_200))
        try await Receiver.withTesting(configure) { receiver in
            #expect(receiver.device.clock.now.millisecondsSinceEpoch == started.millisecondsSinceEpoch)
        }
    }
}
