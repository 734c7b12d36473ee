import Foundation
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
            await receiver.settle()
            let second = try await receiver.fate(of: "00000000-0000-4000-8000-000000000002")
            #expect(second == .pending)
            #expect(second?.waitReason?.rule == .minimumInterval)  // and until when: second?.waitReason?.until
            try await receiver.advanceClock(by: .seconds(15 * 60))
            await receiver.settle()
            #expect(try await receiver.wakes().map(\.result) == [.newData, .newData])
        }
    }

    /// The README's `Package.swift` lines are the consumer package's, which `make test` builds
    /// against a tagged copy of this checkout.
    @Test func theReadmesDependencyLinesAreTheConsumerPackages() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let consumer = try String(contentsOf: root.appendingPathComponent("Examples/ConsumerPackage/Package.swift"), encoding: .utf8)
        for line in [
            #".product(name: "SilentPushReceiver", package: "SilentPush")"#, #".product(name: "SilentPushTesting", package: "SilentPush")"#,
            #"from: "0.1.0")"#,
        ] {
            #expect(readme.contains(line) && consumer.contains(line), "\(line)")
        }
    }
}
