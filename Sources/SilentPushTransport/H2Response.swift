/// An answer to one request: status, header fields and an optional body.
package struct H2Response: Sendable, Equatable {
    /// The HTTP status code.
    package var status: Int
    /// Header fields, names in lower case.
    package var headers: H2HeaderList
    /// The body; empty means HEADERS alone, with END_STREAM.
    package var body: [UInt8]

    /// A response.
    package init(status: Int, headers: H2HeaderList = H2HeaderList(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
