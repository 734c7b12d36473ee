import Hummingbird
import NIOCore
import Synchronization

/// The admin API's routes as (method, path pattern), to tell "no such path" from "not with
/// that method".
final class AdminRouteTable: Sendable {
    private let routes = Mutex<[(method: String, components: [String])]>([])

    /// The router's routes (each GET route's HEAD among them: `getWithHead`).
    func set(_ descriptions: [Router<BasicRequestContext>.RouteDescription]) {
        let table = descriptions.map { route in
            (method: route.method.rawValue, components: route.path.description.split(separator: "/").map(String.init))
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
