import Hummingbird

/// A path the admin API does not have gets a problem document naming where the routes are,
/// not an empty 404.
struct AdminNotFound<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            return AdminAPI.error(
                error.status,
                "no route \(request.method.rawValue) \(request.uri.path): the admin API's routes are /v1/… (docs/admin-api.md, or GET /v1/openapi.json)"
            )
        }
    }
}
