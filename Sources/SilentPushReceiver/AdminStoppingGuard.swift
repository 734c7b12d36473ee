import Hummingbird

/// While the device side shuts down (SIGTERM's drain), a request that would change it (every
/// method but GET on a route of the admin API, fault rules aside) is answered 503 with
/// nothing changed: a device state, a reboot or an uninstall would start or kill work the
/// drain no longer runs, or change what the next run resumes from behind its back. Reads go
/// on until the receiver stops.
struct AdminStoppingGuard<Context: RequestContext>: RouterMiddleware {
    let device: DeviceControl
    let routes: AdminRouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The route first: a read never takes the device side's lock to ask.
        guard routes.changesDeviceSide(request), device.isStopping else { return try await next(request, context) }
        return AdminAPI.error(.serviceUnavailable, DeviceStopping().description + "; nothing was changed")
    }
}
