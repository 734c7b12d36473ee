import AsyncHTTPClient
import Foundation
import NIOCore
import SilentPushNetworking

/// Requests that fail at once when nobody listens at their origin, as a URLSession task does.
/// AsyncHTTPClient's pool retries a failed connect until its timeout (so that one failure
/// does not fail every request queued for the host); a request unanswered after `probeDelay`
/// has its origin probed with a connect of its own, and a refusal (or a host not found) ends it.
extension HTTPClient {
    /// How long a request waits for its answer before its origin is probed (*assumed*: a
    /// reachable origin has accepted the connection well within it).
    static let probeDelay = Duration.milliseconds(250)

    /// A probe found nobody at the request's origin: `reason` in a few words (`connection refused`).
    struct OriginUnreachable: Error {
        let reason: String
    }

    /// `execute(_:deadline:)`, ended by `OriginUnreachable` as soon as a probe finds nobody at
    /// the origin.
    func executeFailingFast(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        let origin = URL(string: request.url).flatMap { url in
            url.host.map { host in (host: host, port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)) }
        }
        return try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
            group.addTask { try await self.execute(request, deadline: deadline) }
            if let origin {
                group.addTask {
                    try await _Concurrency.Task.sleep(for: Self.probeDelay)
                    if let reason = await ConnectionFailure.probe(host: origin.host, port: origin.port, on: self.eventLoopGroup) {
                        throw OriginUnreachable(reason: reason)
                    }
                    return nil
                }
            }
            // The probe answers nil when the origin takes connections: the request goes on.
            while let answer = try await group.next() {
                guard let response = answer else { continue }
                group.cancelAll()
                return response
            }
            throw CancellationError()
        }
    }
}
