import AsyncHTTPClient
import NIOCore

extension HTTPClient.Configuration.ConnectionPool {
    /// A connection pool that does not retry a connection that failed: AsyncHTTPClient's
    /// default retries until the connect timeout, so an origin nobody listens on, or a
    /// certificate the device does not trust, showed only then, as that timeout. For the
    /// transfers, whose policy retries each try on its own schedule: the try waits for its
    /// retry at once, with the reason (`ConnectionFailure`). (A failed connect fails every
    /// request queued for that host too; each transfer gets a connection of its own, up to
    /// `connectionsPerOrigin`, so few queue.)
    static func noRetry(idleTimeout: TimeAmount, connectionsPerOrigin: Int = 8) -> Self {
        var pool = Self(idleTimeout: idleTimeout, concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerOrigin)
        pool.retryConnectionEstablishment = false
        return pool
    }
}
