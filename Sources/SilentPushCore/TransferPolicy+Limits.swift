extension TransferPolicy.Settings {
    /// The longest first retry delay (`--transfer-retry-delay`).
    package static let retryDelayLimit = Duration.seconds(86_400)
    /// The longest retry delay (`--transfer-max-retry-delay`).
    package static let maximumRetryDelayLimit = Duration.seconds(7 * 86_400)
    /// The longest a transfer may take (`--transfer-timeout`).
    package static let resourceTimeoutLimit = Duration.seconds(30 * 86_400)
    /// The longest a try may wait for its origin (`--transfer-request-timeout`).
    package static let requestTimeoutLimit = Duration.seconds(86_400)

    /// The first number a receiver cannot run with, nil when every one is in its range: the
    /// same ranges as the flags', for settings given through the Swift API (a retry delay of
    /// 0 would retry a failing origin without pause, and one past the limit would overflow
    /// when doubled).
    package var problem: TransferSettingsProblem? {
        func positive(_ value: Duration, atMost limit: Duration) -> Bool { value > .zero && value <= limit }
        if !(1...Self.maximumCap).contains(maximumPerApp) { return .maximumPerApp(maximumPerApp) }
        if !positive(retryDelay, atMost: Self.retryDelayLimit) { return .retryDelay(retryDelay) }
        if !positive(maximumRetryDelay, atMost: Self.maximumRetryDelayLimit) { return .maximumRetryDelay(maximumRetryDelay) }
        if maximumRetryDelay < retryDelay { return .maximumRetryDelayBelowRetryDelay }
        if !positive(resourceTimeout, atMost: Self.resourceTimeoutLimit) { return .resourceTimeout(resourceTimeout) }
        if !positive(requestTimeout, atMost: Self.requestTimeoutLimit) { return .requestTimeout(requestTimeout) }
        return nil
    }
}
