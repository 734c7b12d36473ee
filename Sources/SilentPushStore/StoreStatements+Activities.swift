import GRDB
import SilentPushCore

/// The rows of Live Activities and their updates, through prepared statements bound with
/// SQLite's own API: a broadcast writes two per subscriber.
extension StoreStatements {
    /// The activity's row as it now is: an update of the row it has (every update and every
    /// state change after its start), else an insert.
    func record(_ activity: LiveActivity, _ db: Database) throws {
        // What changes after the start, in the order both statements bind it.
        func bindState(_ bind: inout Binder) {
            bind(activity.state.name)
            bind(activity.endedAt?.millisecondsSinceEpoch)
            bind(activity.dismissalDate?.millisecondsSinceEpoch)
            bind(activity.contentState)
            bind(activity.staleDate?.millisecondsSinceEpoch)
            bind(activity.relevanceScore)
            bind(activity.timestamp?.millisecondsSinceEpoch)
            bind(activity.why)
        }
        try run(&updateActivity, db, StoreChange.updateActivitySQL) { bind in
            bindState(&bind)
            bind(activity.id)
        }
        guard db.changesCount == 0 else { return }
        try run(&insertActivity, db, StoreChange.insertActivitySQL) { bind in
            bind(activity.id)
            bind(activity.app.device)
            bind(activity.app.bundleID)
            bind(activity.attributesType)
            bind(activity.attributes)
            bind(activity.pushToken)
            bind(activity.channel?.text)
            bind(activity.startedAt.millisecondsSinceEpoch)
            bindState(&bind)
        }
    }

    func insert(_ update: LiveActivityUpdate, _ db: Database) throws {
        let outcome = StoreChange.outcomeColumns(update.outcome)
        try run(&insertActivityUpdate, db, StoreChange.insertActivityUpdateSQL) { bind in
            bind(update.activityID)
            bind(update.source)
            bind(update.outcome.name)
            bind(outcome.until)
            bind(outcome.into)
            bind(outcome.ignored)
            bind(update.why)
            bind(update.at.millisecondsSinceEpoch)
        }
    }
}
