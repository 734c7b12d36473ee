/// The application behind the HTTP/2 server.
///
/// Called on the connection's event loop; answer through the writer at once or later, from
/// any thread (after a database commit, say). A stream that closes before its answer simply
/// drops it.
package protocol H2Service: Sendable {
    /// A complete request arrived.
    func handle(_ request: H2Request, writer: H2ResponseWriter)

    /// The transport refused a request before it was complete (its body is empty).
    func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter)

    /// A connection closed; per-connection state can go.
    func connectionClosed(_ connection: H2ConnectionInfo)

    /// The transport is about to pass on the requests of one read from a connection: a
    /// service that hands work to another thread may hold it until `readEnded()`, so that
    /// thread takes the read's requests as one batch.
    func readBegan()

    /// The requests of the read announced by `readBegan()` have all been passed on.
    func readEnded()
}

extension H2Service {
    /// By default a refused request gets 413 or 431 with no body.
    package func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter) {
        switch problem {
        case .bodyTooLarge: writer.respond(H2Response(status: 413))
        case .headerListTooLarge: writer.respond(H2Response(status: 431))
        }
    }

    /// By default nothing is kept per connection.
    package func connectionClosed(_ connection: H2ConnectionInfo) {}

    /// By default a read is not a batch.
    package func readBegan() {}

    /// By default a read is not a batch.
    package func readEnded() {}
}
