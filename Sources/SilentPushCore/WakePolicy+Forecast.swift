extension WakePolicy {
    /// If a push of `priority` came for `app` at `now` (no earlier than the last event), when
    /// would it wake the app, and what holds it until then? Changes nothing: the timers
    /// due before `now` are taken into account without firing.
    @inlinable public func forecast(for app: App, priority: APNsPriority, now: Instant) -> WakeForecast<Instant> {
        let device = settings.throttling == .off ? DeviceState() : deviceState(app.device)
        if device.forceQuit { return .dropped(.forceQuit) }
        if !device.backgroundRefresh { return .dropped(.backgroundAppRefreshOff) }
        let slot = apps.index(of: app)
        if let slot, states[slot].runningWake != nil { return .waits(.fetchRunning) }
        let pending = Pending(push: 0, priority: priority, expiresAt: nil)
        switch readiness(slot.map { states[$0] } ?? AppState(), of: app, at: slot, pending, now: now) {
        case .now:
            if let cap = settings.maximumConcurrentFetches, runningFetches >= cap {
                return .waits(.fetchSlots(running: runningFetches, cap: cap))
            }
            return .wakes(at: now, after: nil)
        case .at(let at, let why): return .wakes(at: at, after: why)
        case .held(let why): return .waits(why)
        }
    }
}
