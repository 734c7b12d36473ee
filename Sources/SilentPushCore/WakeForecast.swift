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
