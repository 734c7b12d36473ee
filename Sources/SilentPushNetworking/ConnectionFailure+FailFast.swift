import Foundation
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

    /// How long a request waits for its answer before its origin is probed (*assumed*: a
    /// reachable origin has accepted the connection well within it).
    package static let probeDelay = Duration.milliseconds(250)

    /// Where a request goes: its URL's host and port (80 or 443 when the URL gives none).
    /// Two are the same origin when their scheme, host (in any case) and port are.
    package struct Origin: Sendable, Equatable {
        package let host: String
        package let port: Int
        /// Whether it is `https`.
        package let secure: Bool

        /// The origin of `url`; nil when it has no host.
        package init?(url: String) {
            guard let url = URL(string: url), let host = url.host else { return nil }
            secure = url.scheme?.lowercased() == "https"
            self.host = host
            port = url.port ?? (secure ? 443 : 80)
        }

        package static func == (lhs: Origin, rhs: Origin) -> Bool {
            lhs.secure == rhs.secure && lhs.port == rhs.port && lhs.host.lowercased() == rhs.host.lowercased()
        }
    }

    /// `failingFast(probingAfter:probe:_:)` after `probeDelay`, with a TCP connect to `origin`
    /// as the probe: a refusal, or a host not found, ends `operation` with `Unreachable`.
    package static func failingFast<Value: Sendable>(
        to origin: Origin, on group: any EventLoopGroup, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await failingFast(
            probingAfter: probeDelay,
            probe: {
                if let reason = await probe(host: origin.host, port: origin.port, on: group) { throw Unreachable(reason: reason) }
            }, operation)
    }
}
