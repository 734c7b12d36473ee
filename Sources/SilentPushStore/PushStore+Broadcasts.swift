import Foundation
import SilentPushCore

extension PushStore {
    /// Broadcasts, newest first: those of one environment and app (every app when `bundleID`
    /// is nil), on one channel when `channelID` is given. A row this version cannot read is skipped.
    package func broadcasts(
        bundleID: String?, environment: APNsEnvironment, channelID: ChannelID? = nil, limit: Int = 100
    ) async throws -> [BroadcastRecord] {
        var sql = "SELECT * FROM broadcasts WHERE environment = ?"
        var arguments: [any StoreValueConvertible] = [environment.rawValue]
        if let bundleID {
            sql += " AND bundle_id = ?"
            arguments.append(bundleID)
        }
        if let channelID {
            sql += " AND channel_id = ?"
            arguments.append(channelID.text)
        }
        sql += " ORDER BY id DESC LIMIT ?"
        arguments.append(max(0, limit))
        return try await reader.rows(sql, arguments).compactMap(Self.broadcast)
    }

    /// The latest broadcast of each channel of `environment` (by device time received, then
    /// id: a cluster's members number in blocks of their own), where that broadcast was
    /// received at or after `since`: what a Most Recent Message Stored channel may still keep.
    /// Oldest first.
    package func latestBroadcasts(environment: APNsEnvironment, since: DeviceInstant) async throws -> [BroadcastRecord] {
        try await reader.rows(
            """
            SELECT * FROM broadcasts WHERE environment = ?1 AND received_at >= ?2 AND NOT EXISTS (
                SELECT 1 FROM broadcasts AS later WHERE later.environment = broadcasts.environment AND later.bundle_id = broadcasts.bundle_id
                    AND later.channel_id = broadcasts.channel_id
                    AND (later.received_at > broadcasts.received_at OR (later.received_at = broadcasts.received_at AND later.id > broadcasts.id)))
            ORDER BY received_at, id
            """, [environment.rawValue, since.millisecondsSinceEpoch]
        ).compactMap(Self.broadcast)
    }

    /// The broadcasts each of `activities` (channel activities) missed: on its channel in
    /// `environment`, received after it started, with no decision recorded for it (a
    /// cluster's shard had no owner when they arrived). In the order they arrived. For each
    /// channel, one read of its broadcasts since its earliest activity began and, when there
    /// are any, one of its activities' decisions.
    package func missedBroadcasts(
        of activities: [LiveActivity], environment: APNsEnvironment
    ) async throws -> [(activityID: String, broadcast: BroadcastRecord)] {
        var listening: [LiveActivityPolicy.ChannelKey: [LiveActivity]] = [:]
        for activity in activities {
            guard let channel = activity.channel else { continue }
            listening[LiveActivityPolicy.ChannelKey(bundleID: activity.app.bundleID, channel: channel), default: []].append(activity)
        }
        var missed: [(activityID: String, broadcast: BroadcastRecord)] = []
        for (channel, activities) in listening {
            guard let since = activities.map(\.startedAt).min() else { continue }
            let broadcasts = try await reader.rows(
                """
                SELECT * FROM broadcasts WHERE environment = ?1 AND bundle_id = ?2 AND channel_id = ?3 AND received_at > ?4
                ORDER BY received_at, id
                """,
                [environment.rawValue, channel.bundleID, channel.channel.text, since.millisecondsSinceEpoch]
            ).compactMap(Self.broadcast)
            guard !broadcasts.isEmpty else { continue }
            let decided = try await activityUpdates(activityIDs: activities.map(\.id)).mapValues { Set($0.map(\.source)) }
            for broadcast in broadcasts {
                for activity in activities
                where broadcast.receivedAt > activity.startedAt && decided[activity.id]?.contains(broadcast.requestID) != true {
                    missed.append((activity.id, broadcast))
                }
            }
        }
        return missed.sorted { ($0.broadcast.receivedAt, $0.broadcast.id, $0.activityID) < ($1.broadcast.receivedAt, $1.broadcast.id, $1.activityID) }
    }

    /// The broadcasts of `record`'s channel received before it (by device time, then id: a
    /// cluster's members number in blocks of their own) and at or after `since`, newest
    /// first, at most `limit`: where to look for what the channel keeps when `record` is one
    /// the device ignores.
    package func broadcasts(before record: BroadcastRecord, since: DeviceInstant, limit: Int) async throws -> [BroadcastRecord] {
        try await reader.rows(
            """
            SELECT * FROM broadcasts WHERE environment = ?1 AND bundle_id = ?2 AND channel_id = ?3 AND received_at >= ?4
                AND (received_at < ?5 OR (received_at = ?5 AND id < ?6))
            ORDER BY received_at DESC, id DESC LIMIT ?7
            """,
            [
                record.environment.rawValue, record.bundleID, record.channelID.text, since.millisecondsSinceEpoch,
                record.receivedAt.millisecondsSinceEpoch, Int64(bitPattern: record.id), max(0, limit),
            ]
        ).compactMap(Self.broadcast)
    }

    /// Broadcast `id`, or nil: the one another member of a cluster accepted and recorded, for
    /// this member to fan out to its own devices' activities.
    package func broadcast(id: UInt64) async throws -> BroadcastRecord? {
        try await reader.rows("SELECT * FROM broadcasts WHERE id = ?", [Int64(bitPattern: id)]).first.flatMap(Self.broadcast)
    }

    /// The largest broadcast id stored, so a restarted receiver numbers on from there.
    package func lastBroadcastID() async throws -> UInt64 {
        try await lastIDs(of: ["broadcasts"])[0]
    }

    static func broadcast(_ row: StoreRow) -> BroadcastRecord? {
        guard let environment = APNsEnvironment(rawValue: row["environment"]), let channelID = ChannelID(header: row["channel_id"]),
            let priority = APNsPriority(rawValue: row["priority"])
        else { return nil }
        let payload: Data = row["payload"]
        let id: Int64 = row["id"]
        return BroadcastRecord(
            id: UInt64(bitPattern: id), requestID: row["request_id"], uniqueID: row["unique_id"], bundleID: row["bundle_id"],
            environment: environment, channelID: channelID, priority: priority, expiration: row["expiration"],
            receivedAt: DeviceInstant(millisecondsSinceEpoch: row["received_at"]), payload: Array(payload))
    }
}
