import Hummingbird

extension Router<BasicRequestContext> {
    /// GET `path`, and HEAD as its GET answers: the same status and headers, the body never
    /// started (`curl -I`, a load balancer's check). A body whose length is known keeps its
    /// `Content-Length`; a streamed one (an export, the event stream) gives none, as its GET
    /// does, where the router's own HEAD routes would say `Content-Length: 0`, an empty body.
    func getWithHead(_ path: RouterPath, use handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
        get(path, use: handler)
        head(path) { request, context in
            let response = try await handler(request, context)
            return Response(
                status: response.status, headers: response.headers,
                body: ResponseBody(contentLength: response.body.contentLength) { writer in try await writer.finish(nil) })
        }
    }
}
