/// A server that could not start.
package enum H2ServerError: Error, CustomStringConvertible, Sendable {
    /// Binding `host:port` for the listener called `listener` failed, with the error underneath.
    case cannotListen(host: String, port: Int, listener: H2ListenerName, underlying: any Error)
    /// Another socket holds `host:port` (EADDRINUSE).
    case addressInUse(host: String, port: Int, listener: H2ListenerName)

    /// One line naming what failed.
    package var description: String {
        switch self {
        case .cannotListen(let host, let port, let listener, let error): "cannot listen on \(host):\(port) (\(listener.rawValue)): \(error)"
        case .addressInUse(let host, let port, let listener): "address \(host):\(port) is already in use (\(listener.rawValue))"
        }
    }
}
