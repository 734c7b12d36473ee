extension DeviceInstant {
    /// When a push with `apns-expiration: seconds` expires on the device clock.
    ///
    /// The header is system-clock seconds; it becomes a time-to-live at receipt, so a manual
    /// device clock keeps the time the push had left. 0 means now (deliver now or never).
    /// A time the device cannot represent (past 2262: a milliseconds timestamp sent by
    /// mistake, `Int64.max`) is far future: nil, the push never expires.
    ///
    /// - Parameters:
    ///   - seconds: the header's value (0 or more), nil when absent.
    ///   - systemNow: the system clock at receipt, read only when there is an expiration.
    ///   - deviceNow: the device clock at receipt.
    package static func expiry(
        ofAPNsExpiration seconds: Int64?, systemNow: @autoclosure () -> DeviceInstant, deviceNow: DeviceInstant
    ) -> DeviceInstant? {
        guard let seconds else { return nil }
        guard seconds > 0 else { return deviceNow }
        let expiresAt = DeviceInstant(secondsSinceEpoch: seconds)
        guard expiresAt < .distantFuture else { return nil }
        let timeToLive = systemNow().duration(to: expiresAt)
        guard timeToLive > .zero else { return deviceNow }
        let onDevice = deviceNow.advanced(by: timeToLive)
        return onDevice < .distantFuture ? onDevice : nil
    }
}
