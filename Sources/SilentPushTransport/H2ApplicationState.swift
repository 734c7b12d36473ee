/// A slot for the application's own per-connection state. Requests of one connection are
/// handed to the service one after another on the connection's event loop, so the service
/// may read and write `value` there without a lock; never touch it from elsewhere.
package final class H2ApplicationState: @unchecked Sendable {
    /// The application's state, set on first use. Used on the connection's event loop only,
    /// on every request: it skips the exclusivity checks.
    @exclusivity(unchecked) package var value: AnyObject?

    init() {}
}
