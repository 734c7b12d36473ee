import GRDB
import SilentPushCore

/// The rows of Live Activities and their updates.
extension StoreStatements {
    static func record(_ activity: LiveActivity, _ db: Database) throws {
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
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO activities (id, device_token, bundle_id, attributes_type, attributes, push_token, channel_id, state,
                    ended_at, dismiss_at, content_state, stale_date, relevance_score, timestamp, started_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            activity.id, activity.app.device, activity.app.bundleID, activity.attributesType, activity.attributes, pushToken, channel,
            activity.state.name, endedAt, dismissAt, activity.contentState, activity.staleDate?.millisecondsSinceEpoch, activity.relevanceScore,
            activity.timestamp?.millisecondsSinceEpoch, activity.startedAt.millisecondsSinceEpoch,
        ])
    }

    static func insert(_ update: LiveActivityUpdate, _ db: Database) throws {
        var until: Int64?
        var into: String?
        var ignored: String?
        switch update.outcome {
        case .applied: break
        case .waiting(let instant): until = instant.millisecondsSinceEpoch
        case .coalesced(let source): into = source
        case .ignored(let reason): ignored = reason.rawValue
        }
        try db.cachedStatement(
            sql:
                "INSERT INTO activity_updates (activity_id, source, outcome, until, coalesced_into, ignored, why, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute(arguments: [
            update.activityID, update.source, update.outcome.name, until, into, ignored, update.why, update.at.millisecondsSinceEpoch,
        ])
    }
}
