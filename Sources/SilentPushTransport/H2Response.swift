/// An answer to one request: status, header fields and an optional body.
public struct H2Response: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields, names in lower case.
    public var headers: H2HeaderList
    /// The body; empty means HEADERS alone, with END_STREAM.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: H2HeaderList = H2HeaderList(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
