/// Why a test client could not connect.
public enum TestPushClientError: Error, Sendable, CustomStringConvertible {
    /// The receiver was started with `listenH2C` off.
    case noCleartextListener

    public var description: String {
        switch self {
        case .noCleartextListener:
            "the receiver has no h2c listener, which TestPushClient connects to: set configuration.listenH2C (ReceiverConfiguration.testing() does)"
        }
    }
}
