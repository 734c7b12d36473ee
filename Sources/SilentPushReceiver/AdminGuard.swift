import Hummingbird

/// Who may use the admin API. It changes what every team sharing the receiver
/// sees, so a web page the user happens to open must not reach it:
///
/// - `Host` must be an IP address, `localhost`, or a name given with `--admin-host`, so a
///   page whose name was rebound to this machine (DNS rebinding) is refused with 421;
/// - a request that changes state must say `content-type: application/json`, which a
///   cross-site form or `fetch` without a CORS preflight cannot send: 415 otherwise;
/// - with `--admin-token T`, `authorization: bearer T` is required (401 otherwise), but
///   for what `AdminAccessPolicy.isOpen` lets through: `/healthz` and `/readyz`, which
///   probes call bare, the timeline page, and a proxy's shard check.
///
/// A method the path does not take is left to the router's 405, whatever its content type.
/// A path with an empty segment (`/v1/faults/`, `…/tasks//x`) is 404: the router would take
/// `DELETE /v1/faults/`, an id left empty, for `DELETE /v1/faults`, which removes them all.
struct AdminGuard<Context: RequestContext>: RouterMiddleware {
    let policy: AdminAccessPolicy
    let routes: AdminRouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
        let routed = routes.methods(forPath: request.uri.path).contains(method)
        if let refusal = policy.refusal(
            method: routed ? method : "GET", path: request.uri.path, host: request.head.authority,
            authorization: request.headers[.authorization], contentType: request.headers[.contentType])
        {
            var response = AdminAPI.error(Self.status(refusal.status), refusal.message)
            if refusal.status == 401 { response.headers[.wwwAuthenticate] = #"Bearer realm="silentpushd""# }
            return response
        }
        if Self.hasEmptySegment(request.uri.path) {
            return AdminAPI.error(.notFound, "no such path: \(request.uri.path) has an empty segment (is an id missing?)")
        }
        return try await next(request, context)
    }

    /// Whether `path` (not the root) ends with `/` or has `//` in it.
    static func hasEmptySegment(_ path: String) -> Bool {
        path != "/" && (path.hasSuffix("/") || path.contains("//"))
    }

    /// The status with its reason phrase (a status made from a bare code has none).
    static func status(_ code: Int) -> HTTPResponse.Status {
        switch code {
        case 401: .unauthorized
        case 415: .unsupportedMediaType
        case 421: .misdirectedRequest
        default: HTTPResponse.Status(code: code)
        }
    }
}
