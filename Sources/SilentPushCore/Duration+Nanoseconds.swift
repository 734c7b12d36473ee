extension Duration {
    /// The duration in whole nanoseconds (what timers and `DispatchTime` take), held at
    /// `Int64.max` or `.min` when it is longer than 292 years either way.
    public var nanosecondCount: Int64 {
        let parts = components
        let (scaled, overflow) = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return parts.seconds < 0 ? .min : .max }
        return DeviceInstant.saturatingSum(scaled, parts.attoseconds / 1_000_000_000)
    }
}
