import Hummingbird

/// A cluster's device-scoped admin routes (`/v1/devices/{token}/…`, and every method but
/// GET on `/v1/devices/{token}`) change or read what only the device's owner holds: at any
/// other receiver they are answered 503, naming the owner, with nothing changed. Through
/// the cluster's proxy they reach the owner, which routes them by the same shard function
/// as pushes. `GET /v1/devices/{token}` reads the store, so any receiver answers it.
struct AdminShardGuard<Context: RequestContext>: RouterMiddleware {
    let membership: ClusterMembership
    let routes: AdminRouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let components = request.uri.path.split(separator: "/")
        guard components.count >= 3, components[0] == "v1", components[1] == "devices",
            components.count > 3 || (request.method != .get && request.method != .head),
            routes.methods(forPath: request.uri.path).contains(request.method.rawValue),
            // Decoded as the handlers decode it: `%61…` is the device `a…`.
            let token = AdminAPI.deviceToken(AdminAPI.decoded(components[2])),
            !membership.runtime.owns(device: token)
        else { return try await next(request, context) }
        let shard = membership.runtime.shardMap?.shard(of: token) ?? 0
        let owner = try? await membership.store.clusterMembers().first { $0.shards.contains(shard) }
        let whom = owner.map { "receiver '\($0.name)' (session \($0.session)) owns it" } ?? "no receiver owns it yet"
        return AdminAPI.error(
            .serviceUnavailable,
            "device \(token) is in shard \(shard), which this receiver does not own: \(whom); send device requests through the cluster's proxy, which routes them to the owner"
        )
    }
}
