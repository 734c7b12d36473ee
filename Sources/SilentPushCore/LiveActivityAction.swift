/// What the Live Activity policy asks its executor to record.
public enum LiveActivityAction: Sendable, Equatable {
    /// The activity as it now is (its `why` says why it changed).
    case record(LiveActivity)
    /// What became of one push or broadcast for one activity.
    case update(LiveActivityUpdate)
}
