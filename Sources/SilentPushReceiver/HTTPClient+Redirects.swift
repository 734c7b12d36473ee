import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import SilentPushNetworking

/// Redirects followed here, not inside AsyncHTTPClient (the receiver's clients are made with
/// `.disallow`): every URL is checked (`UnusableURL`) before it is asked for, so a `Location`
/// with a port no connection can use is an error, not a trap in the client, and each hop fails
/// fast on its own origin.
extension HTTPClient {
    /// The statuses whose `Location` is followed.
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// Headers not carried to another origin (as AsyncHTTPClient drops them).
    static let originBoundHeaders = ["Origin", "Cookie", "Authorization", "Proxy-Authorization"]

    /// `request` by `executeFailingFast`, following up to `limit` redirects
    /// (`HTTPClientError.redirectLimitReached` past them) and, unless `allowingCycles`, asking
    /// no URL twice (`.redirectCycleDetected`), as AsyncHTTPClient's own following does. A
    /// 303 (but to a HEAD), or a 301 or 302 to a POST, asks the next URL with GET and no body;
    /// any other redirect asks it the same way, a body made again by `resend` (nil: the
    /// request's own, sent again). A redirect's own body is not read: its connection is given up.
    /// `asking` is told each URL as it is asked for (an unusable one is not: its error names
    /// it), so that an error (the request's, or later its body's) can name the one that failed.
    func executeFollowingRedirects(
        _ request: HTTPClientRequest, deadline: NIODeadline, trust: OriginTrust = .system, limit: Int,
        allowingCycles: Bool = false, resend: (() throws -> HTTPClientRequest.Body)? = nil, asking: (String) -> Void = { _ in }
    ) async throws -> HTTPClientResponse {
        var request = request
        var asked: Set<String> = []
        var followed = 0
        while true {
            try UnusableURL.check(request.url)
            asking(request.url)
            asked.insert(request.url)
            let response = try await executeFailingFast(request, deadline: deadline, trust: trust)
            let status = response.status.code
            guard Self.redirectStatuses.contains(status), let location = response.headers.first(name: "Location"),
                let base = URL(string: request.url), let next = URL(string: location, relativeTo: base)?.absoluteURL
            else { return response }
            guard followed < limit else { throw HTTPClientError.redirectLimitReached }
            guard allowingCycles || !asked.contains(next.absoluteString) else { throw HTTPClientError.redirectCycleDetected }
            followed += 1
            if (status == 303 && request.method != .HEAD) || ((status == 301 || status == 302) && request.method == .POST) {
                request.method = .GET
                request.body = nil
                request.headers.remove(name: "Content-Type")
                request.headers.remove(name: "Content-Length")
            } else if request.body != nil, let resend {
                // Still carrying a body (not a GET a redirect made): the same body, made again.
                request.body = try resend()
            }
            if ConnectionFailure.Origin(url: request.url) != ConnectionFailure.Origin(url: next.absoluteString) {
                for name in Self.originBoundHeaders { request.headers.remove(name: name) }
            }
            request.url = next.absoluteString
        }
    }
}
