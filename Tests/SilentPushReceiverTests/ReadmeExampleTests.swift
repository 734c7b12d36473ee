import SilentPushReceiver
import SilentPushTesting
import Testing

/// The Swift example of README.md, as written there: it must keep compiling and passing.
@Suite struct ReadmeExampleTests {
    @Test func aSecondPushWaitsForTheInterval() async throws {
        try await Receiver.withTesting({ $0.fetchHandler = .swift { _ in .newData } }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await client.push(apnsID: "00000000-0000-4000-8000-000000000001")
            try await client.push(apnsID: "00000000-0000-4000-8000-000000000002")
            #expect(try receiver.fate(of: "00000000-0000-4000-8000-000000000002") == .pending)
            try await receiver.advanceClock(by: .seconds(15 * 60))
            await receiver.settle()
            #expect(try receiver.wakes().map(\.result) == ["newData", "newData"])
        }
    }
}
