/// How a transfer ended.
public enum TransferEnd: Sendable, Equatable {
    /// The origin's answer arrived in full: `bytes` kept in the store's contents.
    case done(bytes: Int64)
    /// It cannot be done, for `reason`.
    case failed(reason: String)
    /// The app was force-quit.
    case cancelled
}
