import AsyncHTTPClient
import NIOCore

extension HTTPClient.Configuration.ConnectionPool {
    /// A connection pool that does not retry a connection that failed: AsyncHTTPClient's
    /// default retries until the connect timeout, so an origin nobody listens on, or a
    /// certificate the device does not trust, showed only then, as that timeout. The fetch
    /// fails, or the transfer waits for its own retry, at once and with the reason
    /// (`ConnectionFailure`).
    static func noRetry(idleTimeout: TimeAmount, connectionsPerOrigin: Int = 8) -> Self {
        var pool = Self(idleTimeout: idleTimeout, concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerOrigin)
        pool.retryConnectionEstablishment = false
        return pool
    }
}
