/// The device side is shutting down (SIGTERM's drain): it takes no new request. The admin API
/// answers it 503.
public struct DeviceStopping: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String { "the receiver is shutting down: send it again once it is back" }
}
