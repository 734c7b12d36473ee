import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// Each fault kind against the receiver's APNs endpoint, with an HTTP/2 client: the answer a
/// provider sees, and the push recorded `injected` with its rule.
@Suite struct FaultInjectionTests {
    static func apnsID(_ n: Int) -> String { "00000000-0000-4000-8000-" + String(format: "%012d", n) }

    @Test func aReasonIsAnsweredWithItsStatusAndRecordedInjected() async throws {
        try await Receiver.withTesting { receiver in
            let rule = try #require(receiver.addFault(FaultRule(count: 2, action: .reason(.serviceUnavailable))))
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let first = try await client.push(apnsID: Self.apnsID(1))
            #expect(first.status == 503 && first.reason == .serviceUnavailable)
            #expect(try await client.push(apnsID: Self.apnsID(2)).status == 503)
            #expect(try await client.push(apnsID: Self.apnsID(3)).status == 200)  // the count ran out
            await receiver.settle()
            let fate = try #require(try await receiver.fate(of: Self.apnsID(1)))
            #expect(fate == .injected(.reason(.serviceUnavailable)))
            #expect(fate.faultRule == rule)
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .delivered)
            #expect(receiver.faultRules.first?.applied == 2)
        }
    }

    /// A configuration with more rules than the table holds does not start: no rule is
    /// dropped without a word.
    @Test func moreRulesThanTheTableHoldsStopTheStart() async throws {
        var configuration = ReceiverConfiguration.testing()
        configuration.faults = Array(repeating: FaultRule(action: .reason(.serviceUnavailable)), count: FaultTable.capacity + 1)
        await #expect {
            try await Receiver(configuration).whileRunning { _ in }
        } throws: { error in
            guard case ReceiverStartError.settings = error else { return false }
            return "\(error)" == "1001 fault rules: at most 1000 can be in force at once (faults)"
        }
    }

    @Test func unregisteredCarriesATimestamp() async throws {
        try await Receiver.withTesting { receiver in
            receiver.addFault(FaultRule(match: .init(device: SamplePush.deviceToken), action: .reason(.unregistered)))
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let answer = try await client.push(apnsID: Self.apnsID(1))
            #expect(answer.status == 410 && answer.reason == .unregistered)
            #expect(answer.timestamp != nil)
            // Another device is not matched.
            #expect(try await client.push(to: String(repeating: "cd", count: 32), apnsID: Self.apnsID(2)).status == 200)
        }
    }

    @Test func aDelayAnswersAsUsualLater() async throws {
        try await Receiver.withTesting { receiver in
            receiver.addFault(FaultRule(action: .delay(.milliseconds(300))))
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let started = ContinuousClock.now
            #expect(try await client.push(apnsID: Self.apnsID(1)).status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .delivered)  // not injected: only late
        }
    }

    @Test func goAwayLetsStreamsThroughThenAnswersWithTheReasonAndClosesTheConnection() async throws {
        try await Receiver.withTesting { receiver in
            receiver.addFault(FaultRule(action: .goAway(.tooManyRequests, afterStreams: 2)))
            let connection = try await RawH2Connection.connect(port: try #require(receiver.h2cPort))
            try await connection.send(H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes)
            let headers = SamplePush.headers(jwt: try DevProviderToken.make())
            for (index, stream) in [1, 3, 5].enumerated() {
                try await connection.send([
                    H2Frame.post(
                        streamID: UInt32(stream), path: SamplePush.path, extra: headers + [("apns-id", Self.apnsID(index + 1))], endStream: false),
                    H2Frame.data(streamID: UInt32(stream), Array(#"{"aps":{"content-available":1}}"#.utf8), endStream: true),
                ])
            }
            let frames = try await connection.waitForFrames { $0.contains { $0.kind == .goAway } }
            let goAway = try #require(frames.first { $0.kind == .goAway })
            #expect(goAway.debugData == #"{"reason":"TooManyRequests"}"#)
            #expect(try await connection.waitForClose())
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .delivered)
            #expect(try await receiver.fate(of: Self.apnsID(3)) == .injected(.goAway(.tooManyRequests, afterStreams: 2)))
        }
    }

    @Test func resetClosesTheConnectionWithoutAnAnswer() async throws {
        try await Receiver.withTesting { receiver in
            receiver.addFault(FaultRule(count: 1, action: .reset))
            let connection = try await RawH2Connection.connect(port: try #require(receiver.h2cPort))
            try await connection.send(H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes)
            try await connection.send([
                H2Frame.post(
                    streamID: 1, path: SamplePush.path, extra: SamplePush.headers(jwt: try DevProviderToken.make()) + [("apns-id", Self.apnsID(1))],
                    endStream: false),
                H2Frame.data(streamID: 1, Array(#"{"aps":{"content-available":1}}"#.utf8), endStream: true),
            ])
            #expect(try await connection.waitForClose())
            #expect(!connection.frames.contains { $0.kind == .headers && $0.streamID == 1 })
            await receiver.settle()
            #expect(try await receiver.fate(of: Self.apnsID(1)) == .injected(.reset))
        }
    }
}
