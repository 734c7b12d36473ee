import Hummingbird
import SilentPushStore

/// While the store takes no writes (a full disk, PostgreSQL down), a request that would
/// change the device side (every method but GET on `/v1/devices/…`, `/v1/reset`,
/// `/v1/clock/advance`) is answered 503 with nothing changed, as a push is: a change the
/// device made and the store could not record would be gone at the next restart, and the
/// device would have run ahead of its record meanwhile. Fault rules, which live in memory
/// only, are still taken. The first such request after the store took no writes commits a
/// probe to find out whether it does again.
struct AdminStoreGuard<Context: RequestContext>: RouterMiddleware {
    let store: PushStore
    let routes: AdminRouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !store.isWritable, routes.changesDeviceSide(request) else { return try await next(request, context) }
        do {
            try await store.probe()
        } catch {
            return AdminAPI.error(
                .serviceUnavailable,
                "the store takes no writes now (\(PushStore.describe(error))): \(store.unwritableRemedy); nothing was changed, try again once it takes them"
            )
        }
        return try await next(request, context)
    }
}
