import Hummingbird
import NIOCore
import Synchronization

/// Every refusal the admin API makes is a problem document (RFC 9457) that says what to fix:
/// a request a handler refuses (``AdminError``), a path it does not have (404), a method the
/// path does not take (405, with `Allow`), a body too large (413).
struct AdminProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes, filled in once the router has them all (the middleware comes first).
    let routes: AdminRouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as AdminError {
            return AdminAPI.error(error.status, error.message)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            let allowed = routes.methods(forPath: request.uri.path)
            guard !allowed.isEmpty else {
                return AdminAPI.error(
                    .notFound,
                    "no route \(request.method.rawValue) \(request.uri.path): the admin API's routes are /v1/… (docs/admin-api.md, or GET /v1/openapi.json)"
                )
            }
            var response = AdminAPI.error(
                .methodNotAllowed, "\(request.uri.path) takes \(allowed.joined(separator: ", ")), not \(request.method.rawValue)")
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        } catch let error as HTTPError {
            return AdminAPI.error(error.status, error.body ?? error.status.reasonPhrase)
        } catch is NIOTooManyBytesError {
            // What a handler's `collect(upTo:)` throws past the cap; Hummingbird would answer it bare.
            return AdminAPI.error(.contentTooLarge, "the body is larger than the admin API takes (\(AdminAPI.maximumBodySize / 1024) KB)")
        }
    }
}
