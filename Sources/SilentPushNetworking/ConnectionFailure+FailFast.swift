import NIOCore

extension ConnectionFailure {
    /// A probe found nobody at a request's origin: `reason` in a few words (`connection refused`).
    package struct Unreachable: Error, Sendable {
        package let reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    /// `operation`, ended at once when nobody listens at its origin. AsyncHTTPClient's pool
    /// retries a failed connect until the request's deadline (so that one failure does not
    /// fail every request queued for the host); when `operation` has not returned after
    /// `delay`, `probe` runs beside it, and an error the probe throws ends the operation with
    /// it. A probe that returns found the origin taking connections: the operation goes on.
    package static func failingFast<Value: Sendable>(
        probingAfter delay: Duration, probe: @escaping @Sendable () async throws -> Void,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: delay)
                try await probe()
                return nil
            }
            while let answer = try await group.next() {
                guard let value = answer else { continue }
                group.cancelAll()
                return value
            }
            throw CancellationError()
        }
    }

    /// `failingFast(probingAfter:probe:_:)` with a TCP connect to `host`:`port` as the probe:
    /// a refusal, or a host not found, ends `operation` with `Unreachable`.
    package static func failingFast<Value: Sendable>(
        host: String, port: Int, on group: any EventLoopGroup, probingAfter delay: Duration,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await failingFast(
            probingAfter: delay,
            probe: {
                if let reason = await probe(host: host, port: port, on: group) { throw Unreachable(reason: reason) }
            }, operation)
    }
}
