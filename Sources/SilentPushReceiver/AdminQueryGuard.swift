import Hummingbird

/// Refuses, with 422, a query parameter the route does not take or one given twice that it
/// takes once (``AdminQueryRules``, from the served OpenAPI document).
struct AdminQueryGuard<Context: RequestContext>: RouterMiddleware {
    let rules: AdminQueryRules

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
        if !query.isEmpty, let refusal = rules.refusal(method: request.method.rawValue, path: request.uri.path, query: query) {
            return AdminAPI.error(.unprocessableContent, refusal)
        }
        return try await next(request, context)
    }
}
