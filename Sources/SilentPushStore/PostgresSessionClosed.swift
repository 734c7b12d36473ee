/// A query asked on a session that had ended: nothing was sent.
struct PostgresSessionClosed: Error, CustomStringConvertible {
    /// How an ended session is said, whichever way it was found ended.
    static let reason = "the connection to PostgreSQL ended"
    var description: String { Self.reason }
}
