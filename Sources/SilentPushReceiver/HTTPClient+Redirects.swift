import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// Redirects followed here, not inside AsyncHTTPClient (the receiver's clients are made with
/// `.disallow`): every URL is checked (`UnusableURL`) before it is asked for, so a `Location`
/// with a port no connection can use is an error, not a trap in the client, and each hop fails
/// fast on its own origin.
extension HTTPClient {
    /// The statuses whose `Location` is followed.
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// `request` by `executeFailingFast`, following up to `limit` redirects and asking no URL
    /// twice (`HTTPClientError.redirectLimitReached` and `.redirectCycleDetected`, as
    /// AsyncHTTPClient's own following throws them). A 307 or 308, or any redirect of a GET or
    /// HEAD, asks the next URL the same way, with `resend`'s body (nil: the request's own, sent
    /// again); a 301, 302 or 303 of another method asks it with GET and no body. A redirect's
    /// own body is read and dropped.
    func executeFollowingRedirects(
        _ request: HTTPClientRequest, deadline: NIODeadline, tls: NIOSSLContext? = OriginProbe.defaultContext, limit: Int,
        resend: (() throws -> HTTPClientRequest.Body)? = nil
    ) async throws -> HTTPClientResponse {
        var request = request
        var asked: Set<String> = []
        while true {
            try UnusableURL.check(request.url)
            asked.insert(request.url)
            let response = try await executeFailingFast(request, deadline: deadline, tls: tls)
            let status = response.status.code
            guard Self.redirectStatuses.contains(status), let location = response.headers.first(name: "Location"),
                let next = URL(string: location, relativeTo: URL(string: request.url))?.absoluteURL.absoluteString
            else { return response }
            guard asked.count <= limit else { throw HTTPClientError.redirectLimitReached }
            guard !asked.contains(next) else { throw HTTPClientError.redirectCycleDetected }
            _ = try? await response.body.collect(upTo: 64 * 1024)
            request.url = next
            if status == 307 || status == 308 || request.method == .GET || request.method == .HEAD {
                if let resend { request.body = try resend() }
            } else {
                request.method = .GET
                request.body = nil
                request.headers.remove(name: "Content-Type")
                request.headers.remove(name: "Content-Length")
            }
        }
    }
}
