import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import SilentPushNetworking

/// Requests that fail at once when nobody listens at their origin, or its certificate is
/// refused, as a URLSession task does. AsyncHTTPClient's pool retries a failed connect or
/// handshake until its timeout (so that one failure does not fail every request queued for
/// the host); a request unanswered after `ConnectionFailure.probeDelay` has its origin probed with a connect
/// (and for https a handshake) of its own, and a refusal, a host not found or a refused
/// certificate ends it.
extension HTTPClient {
    /// `execute(_:deadline:)`, ended by `ConnectionFailure.Unreachable` as soon as a probe
    /// finds nobody at the origin (`ConnectionFailure.reason` words it), or by NIOSSL's error
    /// when the probe's handshake refuses its certificate.
    /// `trust`: this client's (the system's roots unless it was given CAs of its own), read
    /// only for an https origin; with no context, the handshake is not probed.
    func executeFailingFast(
        _ request: HTTPClientRequest, deadline: NIODeadline, trust originTrust: OriginTrust = .system
    ) async throws -> HTTPClientResponse {
        guard let origin = ConnectionFailure.Origin(url: request.url) else { return try await execute(request, deadline: deadline) }
        // A request's own TLS configuration is the one its connection uses.
        guard origin.secure, let trust = request.tlsConfiguration.map({ try? NIOSSLContext(configuration: $0) }) ?? originTrust.context else {
            return try await ConnectionFailure.failingFast(to: origin, on: eventLoopGroup) { try await self.execute(request, deadline: deadline) }
        }
        return try await ConnectionFailure.failingFast(
            probingAfter: ConnectionFailure.probeDelay,
            probe: {
                // For https, a handshake with this client's trust on the probe's connection:
                // a refused certificate is the error the pool would report at its timeout.
                if let refusal = await OriginProbe.refusal(host: origin.host, port: origin.port, tls: trust, on: self.eventLoopGroup) {
                    throw ConnectionFailure.reason(refusal).map(ConnectionFailure.Unreachable.init(reason:)) ?? refusal
                }
            }, { try await self.execute(request, deadline: deadline) })
    }
}
