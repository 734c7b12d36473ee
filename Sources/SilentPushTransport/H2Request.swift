/// One HTTP/2 request as the application sees it: the pseudo-headers, the other header
/// fields in arrival order (duplicates kept) and the body, already capped.
package struct H2Request: Sendable {
    /// The stream that carried the request.
    package var streamID: Int32
    /// `:method`.
    package var method: String
    /// `:path`.
    package var path: String
    /// `:scheme`, when sent.
    package var scheme: String?
    /// `:authority`, when sent.
    package var authority: String?
    /// Regular header fields in arrival order; pseudo-headers are not repeated here.
    package var headers: H2HeaderList
    /// The request body (at most the configured cap).
    package var body: [UInt8]
    /// The connection the request arrived on.
    package var connection: H2ConnectionInfo

    /// A request; the transport builds these, tests may too.
    package init(
        streamID: Int32 = 1, method: String, path: String, scheme: String? = "https",
        authority: String? = nil, headers: H2HeaderList = H2HeaderList(), body: [UInt8] = [],
        connection: H2ConnectionInfo = .unknown
    ) {
        self.streamID = streamID
        self.method = method
        self.path = path
        self.scheme = scheme
        self.authority = authority
        self.headers = headers
        self.body = body
        self.connection = connection
    }
}
