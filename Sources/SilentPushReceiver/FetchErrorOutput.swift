import Synchronization

/// What a fetch handler wrote to stderr during one wake, kept with the wake (at most
/// `limit` bytes, the tail) and logged at debug. The device side sets one for each handler
/// it runs, as a task-local, so a handler that has stderr (`ExecFetchHandler`) reports it
/// without the `FetchHandler` protocol carrying it.
final class FetchErrorOutput: Sendable {
    /// The most kept per wake.
    static let limit = 4 * 1024

    @TaskLocal static var current: FetchErrorOutput?

    private let bytes = Mutex<[UInt8]>([])

    /// Keeps the tail of `output`.
    func record(_ output: [UInt8]) {
        bytes.withLock { $0 = Array(output.suffix(Self.limit)) }
    }

    /// The text kept, nil when the handler wrote nothing (invalid UTF-8 is repaired).
    var text: String? {
        let kept = bytes.withLock { $0 }
        guard !kept.isEmpty else { return nil }
        return String(decoding: kept, as: UTF8.self)
    }
}
