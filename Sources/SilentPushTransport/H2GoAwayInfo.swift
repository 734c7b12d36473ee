/// A GOAWAY the server sent.
package struct H2GoAwayInfo: Sendable, Equatable {
    /// The last stream the server will answer.
    package var lastStreamID: Int32
    /// The HTTP/2 error code.
    package var errorCode: UInt32
    /// The debug data, as text (APNs sends `{"reason":"…"}`).
    package var debugData: String
}
