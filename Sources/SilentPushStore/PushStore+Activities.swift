import SilentPushCore

extension PushStore {
    /// The Live Activities of an app on a device, oldest first; every one when both are nil;
    /// with `limit`, the newest `limit` of them. A row this version cannot read is skipped.
    package func activities(deviceToken: String? = nil, bundleID: String? = nil, limit: Int? = nil) async throws -> [LiveActivity] {
        var sql = "SELECT * FROM activities"
        var conditions: [String] = []
        var arguments: [any StoreValueConvertible] = []
        if let deviceToken {
            conditions.append("device_token = ?")
            arguments.append(deviceToken)
        }
        if let bundleID {
            conditions.append("bundle_id = ?")
            arguments.append(bundleID)
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        guard let limit else {
            sql += " ORDER BY started_at, id"
            return try await reader.rows(sql, arguments).compactMap(Self.activity)
        }
        sql += " ORDER BY started_at DESC, id DESC LIMIT ?"
        arguments.append(max(0, limit))
        return try await reader.rows(sql, arguments).compactMap(Self.activity).reversed()
    }

    /// Every decision about activity `id`'s updates, oldest first.
    package func activityUpdates(activityID id: String) async throws -> [LiveActivityUpdate] {
        try await reader.rows("SELECT * FROM activity_updates WHERE activity_id = ? ORDER BY seq", [id]).compactMap(Self.update)
    }

    /// The decisions that were the last for their update (activity and source) and said
    /// `waiting`: what a restarted device waited for.
    package func lastWaitingActivityUpdates() async throws -> [LiveActivityUpdate] {
        try await reader.rows(
            """
            SELECT * FROM activity_updates AS u WHERE u.outcome = 'waiting' AND NOT EXISTS
                (SELECT 1 FROM activity_updates AS later WHERE later.activity_id = u.activity_id AND later.source = u.source AND later.seq > u.seq)
            ORDER BY u.seq
            """
        ).compactMap(Self.update)
    }

    /// Every decision about the updates of each activity in `ids`, oldest first, by activity.
    package func activityUpdates(activityIDs ids: [String]) async throws -> [String: [LiveActivityUpdate]] {
        guard !ids.isEmpty else { return [:] }
        var updates: [String: [LiveActivityUpdate]] = [:]
        // In chunks, under SQLite's limit on bound values.
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try await reader.rows("SELECT * FROM activity_updates WHERE activity_id IN (\(marks)) ORDER BY seq", chunk)
            for update in rows.compactMap(Self.update) {
                if let id = update.activityID { updates[id, default: []].append(update) }
            }
        }
        return updates
    }

    static func activity(_ row: StoreRow) -> LiveActivity? {
        let subscription: LiveActivity.Subscription
        if let token: String = row["push_token"] {
            subscription = .token(token)
        } else if let text: String = row["channel_id"] {
            guard let channel = ChannelID(header: text) else { return nil }
            subscription = .channel(channel)
        } else {
            subscription = .none
        }
        func instant(_ column: String) -> DeviceInstant? {
            let value: Int64? = row[column]
            return value.map(DeviceInstant.init(millisecondsSinceEpoch:))
        }
        let state: LiveActivity.State
        switch (row["state"] as String?).flatMap(LiveActivity.State.Kind.init(rawValue:)) {
        case .active?: state = .active
        case .stale?: state = .stale
        case .ended?:
            guard let at = instant("ended_at"), let dismissAt = instant("dismiss_at") else { return nil }
            state = .ended(at: at, dismissAt: dismissAt)
        case .dismissed?:
            // A row written before dismissals kept their end has none: none is made up.
            guard let at = instant("dismiss_at") else { return nil }
            state = .dismissed(at: at, endedAt: instant("ended_at"))
        case nil: return nil  // a newer version's state
        }
        guard let startedAt = instant("started_at") else { return nil }
        return LiveActivity(
            id: row["id"], app: LiveActivityApp(device: row["device_token"], bundleID: row["bundle_id"]), attributesType: row["attributes_type"],
            attributes: row["attributes"], subscription: subscription, state: state, contentState: row["content_state"],
            staleDate: instant("stale_date"), relevanceScore: row["relevance_score"], timestamp: instant("timestamp"), startedAt: startedAt,
            why: (row["why"] as String?) ?? "")
    }

    static func update(_ row: StoreRow) -> LiveActivityUpdate? {
        let outcome: LiveActivityUpdate.Outcome
        switch (row["outcome"] as String?).flatMap(LiveActivityUpdate.Outcome.Kind.init(rawValue:)) {
        case .applied?: outcome = .applied
        case .waiting?:
            guard let until: Int64 = row["until"] else { return nil }
            outcome = .waiting(until: DeviceInstant(millisecondsSinceEpoch: until))
        case .coalesced?:
            guard let into: String = row["coalesced_into"] else { return nil }
            outcome = .coalesced(into: into)
        case .ignored?:
            guard let text: String = row["ignored"], let reason = LiveActivityIgnored(rawValue: text) else { return nil }
            outcome = .ignored(reason)
        case nil: return nil  // a newer version's outcome
        }
        let at: Int64 = row["at"]
        return LiveActivityUpdate(
            source: row["source"], activityID: row["activity_id"], outcome: outcome, why: row["why"], at: DeviceInstant(millisecondsSinceEpoch: at))
    }
}
