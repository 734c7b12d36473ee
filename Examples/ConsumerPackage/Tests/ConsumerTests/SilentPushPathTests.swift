import SilentPushReceiver
import SilentPushTesting
import Testing

/// What an app team asserts about its silent pushes: the first wakes the app at once, the
/// second waits out iOS's interval between wakes and is delivered by the next one.
@Test func theSecondPushWaitsForTheNextWake() async throws {
    try await Receiver.withTesting({ $0.fetchHandler = .swift { _ in .newData } }) { receiver in
        let client = try await TestPushClient.connect(to: receiver)
        try await client.push(apnsID: "00000000-0000-4000-8000-000000000001")
        try await client.push(apnsID: "00000000-0000-4000-8000-000000000002")
        await receiver.settle()

        #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000001") == .delivered)
        #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000002") == .pending)

        try await receiver.advanceClock(by: .seconds(15 * 60))
        await receiver.settle()
        #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000002") == .delivered)
        #expect(try await receiver.wakes().map(\.result) == [.newData, .newData])
    }
}
