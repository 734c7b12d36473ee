/// What would become of a push that arrived now: the wake policy's answer to "if a push came
/// now, when would it wake the app, and what stops it earlier?", computed without changing
/// anything.
public enum WakeForecast<Instant: Sendable & Equatable>: Sendable, Equatable {
    /// It would wake the app at this instant (now, or later), after waiting for `why` (nil:
    /// nothing holds it).
    case wakes(at: Instant, after: WaitReason<Instant>?)
    /// It would wait until the device changes (or, for `fetchRunning` and `fetchSlots`,
    /// until a fetch ends), for this reason.
    case waits(WaitReason<Instant>)
    /// It would never reach the app.
    case dropped(DropReason)

    /// When it would wake the app; nil while that depends on a change.
    public var wakeAt: Instant? {
        if case .wakes(let at, _) = self { return at }
        return nil
    }
}

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
