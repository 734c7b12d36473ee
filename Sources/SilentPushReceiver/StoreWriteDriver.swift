import SilentPushCore
import SilentPushStore
import Synchronization

/// Drives the store's write path as the receiver does, without the network or the policy:
/// each push its own write with its own completion, a read's worth queued under one hold, so
/// they share a commit. For SilentPush's own benchmarks (SPI, like `APNsRequestDriver`).
@_spi(Benchmarks)
public final class StoreWriteDriver: Sendable {
    private let store: PushStore
    private let records: [PushRecord]

    /// A SQLite file store at `storePath`, and `count` push records to `devices` device tokens, made
    /// now so that `writeAll` measures the store alone. Each push waits in its app's slot, as
    /// most do under load, with the reason the policy gives.
    public init(storePath: String, payload: [UInt8], pushes count: Int, devices: Int) async throws {
        precondition(count >= 0 && devices > 0, "counts must be positive")
        store = try await PushStore.open(.file(storePath))
        let generator = APNsIDGenerator(key: 42)
        let tokens = (0..<devices).map { device in
            let digits = String(device, radix: 16)
            return String(repeating: "0", count: max(0, 64 - digits.count)) + digits
        }
        records = (0..<count).map { index in
            let id = UInt64(index) + 1
            let received = DeviceInstant(millisecondsSinceEpoch: 1_800_000_000_000 + Int64(id))
            return PushRecord(
                id: id, apnsID: generator.apnsID(pushID: id), deviceToken: tokens[Int(id % UInt64(devices))], topic: "com.example.app",
                pushType: "background", priority: 5, receivedAt: received.millisecondsSinceEpoch, expiresAt: nil, collapseID: nil,
                payload: payload, warnings: [],
                fate: .pending(.minimumInterval(lastWake: received, interval: .seconds(900), until: received.advanced(by: .seconds(900)))),
                generation: 1, replaced: id > UInt64(devices) ? id - UInt64(devices) : nil)
        }
    }

    /// Commits every record, `batch` at a time.
    public func writeAll(batch: Int) async throws {
        precondition(batch > 0, "a batch holds at least one push")
        var written = 0
        while written < records.count {
            let size = min(batch, records.count - written)
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let countdown = Countdown(size, continuation)
                store.holdCommits()
                for index in written..<(written + size) { store.write([.insertPush(records[index])], completion: countdown.completion) }
                store.releaseCommits()
            }
            written += size
        }
    }

    /// Closes the store.
    public func close() async throws {
        try await store.close()
    }

    /// Resumes its continuation once every write of a batch has completed: with the first
    /// failure, if any.
    private final class Countdown: Sendable {
        private let state: Mutex<(remaining: Int, failure: (any Error)?, continuation: CheckedContinuation<Void, any Error>?)>

        init(_ count: Int, _ continuation: CheckedContinuation<Void, any Error>) {
            state = Mutex((count, nil, continuation))
        }

        var completion: PushStore.Completion {
            { result in
                let done = self.state.withLock { state -> (CheckedContinuation<Void, any Error>, (any Error)?)? in
                    if case .failure(let error) = result, state.failure == nil { state.failure = error }
                    state.remaining -= 1
                    guard state.remaining == 0, let continuation = state.continuation else { return nil }
                    state.continuation = nil
                    return (continuation, state.failure)
                }
                guard let (continuation, failure) = done else { return }
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
            }
        }
    }
}
