extension Duration {
    /// The duration in whole nanoseconds (what timers and `DispatchTime` take).
    public var nanosecondCount: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}
