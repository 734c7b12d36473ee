/// What a wake ran: the app's content fetch, or a reload of its widgets or controls by push.
public enum WakeKind: String, Sendable, CaseIterable {
    /// A background push launched the app and ran its fetch handler.
    case fetch
    /// A `widgets` push reloaded the app's widget timelines (no app code runs).
    case widgets
    /// A `controls` push reloaded the app's control (no app code runs).
    case controls

    /// The reload a push of `type` makes; nil for a type that reloads nothing.
    public init?(reloading type: APNsPushType) {
        switch type {
        case .widgets: self = .widgets
        case .controls: self = .controls
        default: return nil
        }
    }

    /// The reload a push to `topic` makes: `controls` for a `….push-type.controls` topic,
    /// else `widgets` (APNs holds each type to its topic suffix).
    package init(reloadingTopic topic: String) {
        self = APNsPushType.suffixedType(of: topic) == .controls ? .controls : .widgets
    }
}
