import Hummingbird

/// Who may use the admin API (SPEC §9). It changes what every team sharing the receiver
/// sees, so a web page the user happens to open must not reach it:
///
/// - `Host` must be an IP address, `localhost`, or a name given with `--admin-host`, so a
///   page whose name was rebound to this machine (DNS rebinding) is refused with 421;
/// - a request that changes state must say `content-type: application/json`, which a
///   cross-site form or `fetch` without a CORS preflight cannot send: 415 otherwise;
/// - with `--admin-token T`, `authorization: bearer T` is required (401 otherwise), but
///   for `/healthz` and `/readyz`, which probes call bare.
struct AdminGuard<Context: RequestContext>: RouterMiddleware {
    let policy: AdminAccessPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = policy.refusal(
            method: request.method.rawValue, path: request.uri.path, host: request.head.authority,
            authorization: request.headers[.authorization], contentType: request.headers[.contentType])
        {
            var response = AdminAPI.error(HTTPResponse.Status(code: refusal.status), refusal.message)
            if refusal.status == 401 { response.headers[.wwwAuthenticate] = #"Bearer realm="silentpushd""# }
            return response
        }
        return try await next(request, context)
    }
}
