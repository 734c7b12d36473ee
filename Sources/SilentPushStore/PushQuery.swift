import SilentPushCore

/// Which pushes `PushStore.pushes(_:)` reads: every filter given must hold, newest first,
/// from `before` (a cursor: the id of the last push of the page before) down.
package struct PushQuery: Sendable, Equatable {
    package var deviceToken: String?
    package var topic: String?
    /// The fate, as the push's row holds it (every reader reports that one).
    package var fate: PushFate.Kind?
    /// Received at or after `from` and before `until`, in device-clock ms.
    package var from: Int64?
    package var until: Int64?
    /// Only pushes older than this id.
    package var before: UInt64?
    package var limit: Int

    /// A query.
    package init(
        deviceToken: String? = nil, topic: String? = nil, fate: PushFate.Kind? = nil, from: Int64? = nil, until: Int64? = nil,
        before: UInt64? = nil, limit: Int = 100
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.fate = fate
        self.from = from
        self.until = until
        self.before = before
        self.limit = limit
    }
}
