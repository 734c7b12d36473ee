import Logging
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// `query(_:logger:)`, asked on the connection's event loop, and failed with
    /// `PostgresSessionClosed` at once when the connection is closed already. PostgresNIO
    /// writes a query to its channel with no promise: a query written after the channel
    /// closed and its handlers were taken off (a tick after the close) is dropped, and its
    /// answer never comes, so a read, a prune or a `ROLLBACK` after a failed statement would
    /// wait for ever, and a receiver's shutdown with it. On the event loop, a channel still
    /// active keeps its handlers until the tick ends, and a query they take is failed when it
    /// closes.
    func queryUnlessClosed(
        _ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line
    ) -> EventLoopFuture<PostgresQueryResult> {
        guard eventLoop.inEventLoop else {
            return eventLoop.flatSubmit { self.queryUnlessClosed(query, logger: logger, file: file, line: line) }
        }
        guard !isClosed else { return eventLoop.makeFailedFuture(PostgresSessionClosed()) }
        return self.query(query, logger: logger, file: file, line: line)
    }
}
