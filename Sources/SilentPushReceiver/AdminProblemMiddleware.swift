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

/// The admin API's routes as (method, path pattern), to tell "no such path" from "not with
/// that method".
final class AdminRouteTable: Sendable {
    private let routes = Mutex<[(method: String, components: [String])]>([])

    /// The router's routes; each GET route takes HEAD too (the router makes those itself,
    /// after this table is set).
    func set(_ descriptions: [Router<BasicRequestContext>.RouteDescription]) {
        let table = descriptions.flatMap { route in
            let components = route.path.description.split(separator: "/").map(String.init)
            let methods = route.method == .get ? [route.method, .head] : [route.method]
            return methods.map { (method: $0.rawValue, components: components) }
        }
        routes.withLock { $0 = table }
    }

    /// The methods some route takes at `path`, sorted; empty when no route has that path.
    func methods(forPath path: String) -> [String] {
        let components = path.split(separator: "/")
        let methods = routes.withLock { routes in
            routes.filter { route in Self.matches(route.components, components) }.map(\.method)
        }
        return Array(Set(methods)).sorted()
    }

    /// Whether `request` would change the device side: a method but GET or HEAD that a route
    /// takes at its path, fault rules (held in memory only) aside. What `AdminStoreGuard` and
    /// `AdminStoppingGuard` refuse while the device side takes no change.
    func changesDeviceSide(_ request: Request) -> Bool {
        request.method != .get && request.method != .head && !request.uri.path.hasPrefix("/v1/faults")
            && methods(forPath: request.uri.path).contains(request.method.rawValue)
    }

    /// Whether a path's components fit a route's: the same count, each fixed part equal
    /// (a `{parameter}` fits anything).
    static func matches(_ pattern: [String], _ components: [Substring]) -> Bool {
        pattern.count == components.count
            && zip(pattern, components).allSatisfy { pattern, component in pattern.hasPrefix("{") || pattern == component }
    }
}
