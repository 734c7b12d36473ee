import GRDB
import SilentPushCore

/// The rows of Live Activities and their updates, through prepared statements bound with
/// SQLite's own API: a broadcast writes two per subscriber.
extension StoreStatements {
    /// The activity's row as it now is: an update of the row it has (every update and every
    /// state change after its start), else an insert.
    func record(_ activity: LiveActivity, _ db: Database) throws {
        var pushToken: String?
        var channel: String?
        switch activity.subscription {
        case .token(let token): pushToken = token
        case .channel(let id): channel = id.text
        case .none: break
        }
        var endedAt: Int64?
        var dismissAt: Int64?
        switch activity.state {
        case .active, .stale: break
        case .ended(let at, let dismiss):
            endedAt = at.millisecondsSinceEpoch
            dismissAt = dismiss.millisecondsSinceEpoch
        case .dismissed(let at): dismissAt = at.millisecondsSinceEpoch
        }
        try run(
            &updateActivity, db,
            """
            UPDATE activities SET state = ?, ended_at = ?, dismiss_at = ?, content_state = ?, stale_date = ?, relevance_score = ?,
                timestamp = ? WHERE id = ?
            """
        ) { bind in
            bind(activity.state.name)
            bind(endedAt)
            bind(dismissAt)
            bind(activity.contentState)
            bind(activity.staleDate?.millisecondsSinceEpoch)
            bind(activity.relevanceScore)
            bind(activity.timestamp?.millisecondsSinceEpoch)
            bind(activity.id)
        }
        guard db.changesCount == 0 else { return }
        try run(
            &insertActivity, db,
            """
            INSERT INTO activities (id, device_token, bundle_id, attributes_type, attributes, push_token, channel_id, state,
                ended_at, dismiss_at, content_state, stale_date, relevance_score, timestamp, started_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ) { bind in
            bind(activity.id)
            bind(activity.app.device)
            bind(activity.app.bundleID)
            bind(activity.attributesType)
            bind(activity.attributes)
            bind(pushToken)
            bind(channel)
            bind(activity.state.name)
            bind(endedAt)
            bind(dismissAt)
            bind(activity.contentState)
            bind(activity.staleDate?.millisecondsSinceEpoch)
            bind(activity.relevanceScore)
            bind(activity.timestamp?.millisecondsSinceEpoch)
            bind(activity.startedAt.millisecondsSinceEpoch)
        }
    }

    func insert(_ update: LiveActivityUpdate, _ db: Database) throws {
        var until: Int64?
        var into: String?
        var ignored: String?
        switch update.outcome {
        case .applied: break
        case .waiting(let instant): until = instant.millisecondsSinceEpoch
        case .coalesced(let source): into = source
        case .ignored(let reason): ignored = reason.rawValue
        }
        try run(
            &insertActivityUpdate, db,
            "INSERT INTO activity_updates (activity_id, source, outcome, until, coalesced_into, ignored, why, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        ) { bind in
            bind(update.activityID)
            bind(update.source)
            bind(update.outcome.name)
            bind(until)
            bind(into)
            bind(ignored)
            bind(update.why)
            bind(update.at.millisecondsSinceEpoch)
        }
    }
}
