/// Why a client request got no response.
package enum H2ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server reset the stream (RST_STREAM, or refused past its GOAWAY).
    case streamReset(errorCode: UInt32)
    /// The connection closed before the answer came; the server may have processed it.
    case connectionClosed(reason: String?)
    /// The server never processed it: a stream past its GOAWAY's last, or a request held or
    /// submitted when the connection was gone. Sending it again cannot deliver it twice.
    case notProcessed(reason: String?)
    /// nghttp2 would not take the request.
    case submitFailed(String)

    package var description: String {
        switch self {
        case .streamReset(let code): return "the server reset the stream (\(H2GoAwayReason.ErrorCode(code: code).rawValue))"
        case .connectionClosed(let reason): return "the connection closed" + (reason.map { ": \($0)" } ?? "")
        case .notProcessed(let reason): return "the connection closed before the server took it" + (reason.map { ": \($0)" } ?? "")
        case .submitFailed(let message): return "the request could not be sent: \(message)"
        }
    }
}
