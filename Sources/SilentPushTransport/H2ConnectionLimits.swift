import NIOCore

/// What one server connection may take: how long a request may take to arrive, how long
/// a connection may make no progress, and how many connections are served at once.
package struct H2ConnectionLimits: Sendable, Equatable {
    /// A request whose headers and body have not all arrived this long after its HEADERS is
    /// reset (RST_STREAM CANCEL). Zero: no limit.
    package var requestTimeout: TimeAmount
    /// A connection on which nothing is read or answered this long, with no request
    /// waiting for its answer, is closed with GOAWAY `IdleTimeout`. Zero: never.
    package var idleTimeout: TimeAmount
    /// Connections served at once; one more gets SETTINGS, GOAWAY `ServiceUnavailable` with
    /// last stream 0 (nothing was processed: retry elsewhere) and is closed.
    package var maxConnections: Int

    /// Limits.
    package init(requestTimeout: TimeAmount = .seconds(10), idleTimeout: TimeAmount = .minutes(10), maxConnections: Int = 10_000) {
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// How long a client may take to set its connection up, or to take an answer, and an
    /// admin API client to send a request: as long as a request may take to arrive, else the
    /// idle timeout; nil when neither is set.
    package var slowClientLimit: TimeAmount? {
        let limit = requestTimeout > .zero ? requestTimeout : idleTimeout
        return limit > .zero ? limit : nil
    }

    /// How often a connection checks its timeouts: a quarter of the shorter one (so a
    /// limit is enforced within 1.25 times its length), at least every 10 ms; nil when
    /// neither is set.
    var checkPeriod: TimeAmount? {
        let limits = [requestTimeout, idleTimeout].filter { $0 > .zero }
        guard let shortest = limits.min() else { return nil }
        return max(.milliseconds(10), .nanoseconds(shortest.nanoseconds / 4))
    }
}
