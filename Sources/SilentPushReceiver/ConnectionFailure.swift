import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// Why a connection to an origin or a handler's server was not made, in a few words
/// (`connection refused`, `host not found`), for the reasons fetches and transfers record.
/// Their HTTP clients do not retry a failed connection: the fetch fails, or the transfer
/// waits for its own retry, at once and with this reason.
enum ConnectionFailure {
    /// The words for `error`, or nil when it is not a failure to connect.
    static func reason(_ error: any Error) -> String? {
        switch error {
        case let error as IOError:
            return words(errno: error.errnoCode)
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "host \(error.host) not found" }
            guard let last = error.connectionErrors.last else { return "host \(error.host) has no address" }
            return reason(last.error) ?? "\(last.error)"
        default:
            return nil
        }
    }

    /// The system's words for `errno`, starting lower case (`connection refused`).
    private static func words(errno: CInt) -> String {
        let text = String(cString: strerror(errno))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}

extension ConnectionFailure {
    /// A connection pool that does not retry a connection that failed: AsyncHTTPClient's
    /// default retries until the connect timeout, so an origin nobody listens on, or a
    /// certificate the device does not trust, showed only then, as that timeout.
    static func noRetry(idleTimeout: TimeAmount, connectionsPerOrigin: Int = 8) -> HTTPClient.Configuration.ConnectionPool {
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: idleTimeout, concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerOrigin)
        pool.retryConnectionEstablishment = false
        return pool
    }
}
