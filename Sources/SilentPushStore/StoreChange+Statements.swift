import Foundation
import SilentPushCore

/// Every change as statements both engines run, in SQLite's placeholders: PostgreSQL's
/// writer runs them all; SQLite's runs the changes every push makes through its own
/// prepared statements (`StoreStatements`, the same SQL) and the rest from here.
extension StoreChange {
    /// The statements that make this change, in order.
    var statements: [StoreStatement] {
        switch self {
        case .insertPush(let push):
            return [StoreStatement(Self.insertPushesSQL(rows: 1), Self.pushValues(push))]
        case .setFate(let push, let fate, let generation):
            let stored = StoredFate(fate)
            return [
                StoreStatement(
                    Self.setFateSQL, [stored.kind.rawValue, stored.wakeID, stored.reason, generation.map { Int64($0) }, Int64(bitPattern: push)])
            ]
        case .insertWake(let wake):
            return [StoreStatement(Self.insertWakeSQL, Self.wakeValues(wake, finishedAt: wake.finishedAt?.millisecondsSinceEpoch))]
        case .finishWake(let id, let finishedAt, let result):
            let stored = StoredResult(result)
            return [StoreStatement(Self.finishWakeSQL, [finishedAt, stored.result, stored.reason, Int64(bitPattern: id)])]
        case .recordActivity(let activity):
            return [StoreStatement(Self.upsertActivitySQL, Self.activityValues(activity))]
        case .insertActivityUpdate(let update):
            return [StoreStatement(Self.insertActivityUpdateSQL, Self.activityUpdateValues(update))]
        case .closeGeneration(let head, let fate):
            // Walks the slot's chain by primary key: no index on device and topic to keep up
            // on every push. Its pushes wait for a wake: rows left pending as they were
            // replaced (or written coalesced, waiting, when no arriving push replaced them);
            // a push of a closed generation ends it. The pushes before a delivered head are
            // coalesced into its wake; before any other head, they share its fate.
            var stored = StoredFate(fate)
            if stored.kind == .delivered { stored.kind = .coalesced }
            return [
                StoreStatement(
                    """
                    WITH RECURSIVE chain(id) AS (
                        SELECT replaced FROM pushes WHERE id = ?4 AND replaced IS NOT NULL
                        UNION ALL
                        SELECT pushes.replaced FROM pushes JOIN chain ON pushes.id = chain.id
                        WHERE pushes.replaced IS NOT NULL AND pushes.fate IN (?5, ?6) AND pushes.wake_id IS NULL)
                    UPDATE pushes SET fate = ?1, wake_id = ?2, reason = ?3
                    WHERE id IN (SELECT id FROM chain) AND fate IN (?5, ?6) AND wake_id IS NULL
                    """,
                    [
                        stored.kind.rawValue, stored.wakeID, stored.reason, Int64(bitPattern: head), PushFate.Kind.coalesced.rawValue,
                        PushFate.Kind.pending.rawValue,
                    ])
            ]
        case .setDevice(let token, let state):
            return [
                StoreStatement(
                    """
                    INSERT INTO devices (device_token, force_quit, background_refresh, low_power_mode, daily_budget,
                                         battery_level, charging, thermal_state, debugger_attached, network, idle, network_type)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(device_token) DO UPDATE SET force_quit = excluded.force_quit,
                        background_refresh = excluded.background_refresh, low_power_mode = excluded.low_power_mode,
                        daily_budget = excluded.daily_budget, battery_level = excluded.battery_level,
                        charging = excluded.charging, thermal_state = excluded.thermal_state,
                        debugger_attached = excluded.debugger_attached, network = excluded.network, idle = excluded.idle,
                        network_type = excluded.network_type
                    """,
                    [
                        token, state.forceQuit, state.backgroundRefresh, state.lowPowerMode, state.dailyBudget, state.batteryLevel, state.charging,
                        state.thermalState.rawValue, state.debuggerAttached, state.network.rawValue, state.idle,
                        state.networkType.rawValue,
                    ])
            ]
        case .insertTransfer(let t):
            return [
                StoreStatement(
                    """
                    INSERT INTO transfers (id, device_token, topic, session, url, method, discretionary, allows_cellular,
                        launch_events, wake_id, task_run_id, handed_over_at, state, reason, attempts, bytes, finished_at, etag,
                        last_modified, relaunch_request, file_fate, from_file)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        Int64(bitPattern: t.id), t.deviceToken, t.topic, t.session, t.url, t.method.rawValue, t.discretionary, t.allowsCellular,
                        t.sessionSendsLaunchEvents, t.wakeID.map(Int64.init(bitPattern:)), t.taskRunID.map(Int64.init(bitPattern:)),
                        t.handedOverAt.millisecondsSinceEpoch, t.state.rawValue, t.why?.stored ?? t.reason, t.attempts, t.bytes,
                        t.finishedAt?.millisecondsSinceEpoch, t.etag, t.lastModified, t.relaunchRequestID.map(Int64.init(bitPattern:)),
                        t.fileFate?.rawValue, t.fromFile,
                    ])
            ]
        case .setTransferPhase(let id, let state, let why, let attempts):
            return [
                StoreStatement(
                    "UPDATE transfers SET state = ?, reason = ?, attempts = ? WHERE id = ? AND finished_at IS NULL",
                    [state.rawValue, why, attempts, Int64(bitPattern: id)])
            ]
        case .finishTransfer(let id, let state, let at, let bytes, let reason, let status, let etag, let lastModified):
            return [
                StoreStatement(
                    """
                    UPDATE transfers SET state = ?, finished_at = ?, bytes = COALESCE(?, bytes), reason = ?, status = ?, etag = ?,
                        last_modified = ?
                    WHERE id = ? AND finished_at IS NULL
                    """, [state.rawValue, at, bytes, reason, status, etag, lastModified, Int64(bitPattern: id)])
            ]
        case .setTransferCutOff(let id, let error, let bytes):
            return [StoreStatement("UPDATE transfers SET last_error = ?, bytes = ? WHERE id = ?", [error, bytes, Int64(bitPattern: id)])]
        case .setTransferRelaunch(let ids, let request):
            return ids.map { id in
                StoreStatement("UPDATE transfers SET relaunch_request = ? WHERE id = ?", [Int64(bitPattern: request), Int64(bitPattern: id)])
            }
        case .setTransferFile(let id, let fate):
            return [StoreStatement("UPDATE transfers SET file_fate = ? WHERE id = ?", [fate.rawValue, Int64(bitPattern: id)])]
        case .insertTaskRequest(let record):
            let request = record.request
            return [
                StoreStatement(
                    """
                    INSERT INTO task_requests (id, device_token, topic, identifier, kind, earliest_begin, requires_network,
                        requires_power, strategy, submitted_at, state, reason, ended_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        Int64(bitPattern: record.id), record.deviceToken, record.topic, request.identifier, request.kind.rawValue,
                        request.earliestBegin?.millisecondsSinceEpoch, request.requiresNetworkConnectivity, request.requiresExternalPower,
                        request.strategy.rawValue, record.submittedAt.millisecondsSinceEpoch, record.state.rawValue, record.why?.stored,
                        record.endedAt?.millisecondsSinceEpoch,
                    ])
            ]
        case .setTaskRequest(let id, let state, let why, let at):
            return [
                StoreStatement(
                    "UPDATE task_requests SET state = ?, reason = ?, ended_at = ? WHERE id = ?", [state.rawValue, why, at, Int64(bitPattern: id)])
            ]
        case .insertTaskRun(let run):
            return [
                StoreStatement(
                    """
                    INSERT INTO task_runs (id, request_id, device_token, topic, identifier, kind, started_at, deadline, simulated,
                        expired_at, finished_at, outcome, progress_completed, progress_total, killed_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        Int64(bitPattern: run.id), Int64(bitPattern: run.requestID), run.deviceToken, run.topic, run.identifier, run.kind.rawValue,
                        run.startedAt.millisecondsSinceEpoch, run.deadline?.millisecondsSinceEpoch, run.simulated,
                        run.expiredAt?.millisecondsSinceEpoch, run.finishedAt?.millisecondsSinceEpoch, run.outcome?.rawValue, run.progressCompleted,
                        run.progressTotal, run.killedBy?.rawValue,
                    ])
            ]
        case .expireTaskRun(let id, let at):
            return [StoreStatement("UPDATE task_runs SET expired_at = ? WHERE id = ? AND expired_at IS NULL", [at, Int64(bitPattern: id)])]
        case .setWakeErrorOutput(let id, let text):
            return [StoreStatement("UPDATE wakes SET stderr = ? WHERE id = ?", [text, Int64(bitPattern: id)])]
        case .finishTaskRun(let id, let at, let outcome):
            return [
                StoreStatement(
                    "UPDATE task_runs SET finished_at = ?, outcome = ? WHERE id = ? AND outcome IS NULL",
                    [at, outcome.rawValue, Int64(bitPattern: id)])
            ]
        case .killTaskRun(let id, let at, let cause):
            return [
                StoreStatement(
                    "UPDATE task_runs SET finished_at = ?, outcome = ?, killed_by = ? WHERE id = ? AND outcome IS NULL",
                    [at, TaskOutcome.killed.rawValue, cause.rawValue, Int64(bitPattern: id)])
            ]
        case .forgetDevice(let token):
            // Its Live Activity pushes went to its apps' push-to-start tokens (the device's
            // token and 16 hex digits; Live Activity pushes only, so a longer device token
            // that begins with this one is left alone) and its activities' update tokens:
            // theirs go too, with the decisions of starts no activity took.
            let liveActivityPushes = """
                (device_token LIKE ?1 AND push_type = ?2) OR device_token IN (SELECT push_token FROM activities WHERE device_token = ?3)
                """
            let arguments: [any StoreValueConvertible] = [token + String(repeating: "_", count: 16), APNsPushType.liveactivity.rawValue, token]
            // Ids number on past the device's rows (its newest may be the store's).
            return PushStore.numberedTables.map(PushStore.recordingIDFloor) + [
                StoreStatement("DELETE FROM activity_updates WHERE activity_id IN (SELECT id FROM activities WHERE device_token = ?)", [token]),
                StoreStatement(
                    "DELETE FROM activity_updates WHERE activity_id IS NULL AND source IN (SELECT apns_id FROM pushes WHERE \(liveActivityPushes))",
                    arguments),
                StoreStatement("DELETE FROM pushes WHERE \(liveActivityPushes)", arguments),
            ]
                + ["pushes", "wakes", "devices", "apps", "task_requests", "task_runs", "contents", "activities", "transfers"].map { table in
                    StoreStatement("DELETE FROM \(table) WHERE device_token = ?", [token])
                }
        case .forgetEverything:
            return PushStore.numberedTables.map(PushStore.recordingIDFloor)
                + [
                    "pushes", "wakes", "devices", "apps", "task_requests", "task_runs", "contents", "broadcasts", "activities", "activity_updates",
                    "transfers",
                ].map { table in StoreStatement("DELETE FROM \(table)") }
        case .setTaskProgress(let id, let completed, let total):
            return [
                StoreStatement(
                    "UPDATE task_runs SET progress_completed = ?, progress_total = ? WHERE id = ?", [completed, total, Int64(bitPattern: id)])
            ]
        case .setLastOpened(let token, let topic, let at):
            return [
                StoreStatement(
                    """
                    INSERT INTO apps (device_token, topic, last_opened_at) VALUES (?, ?, ?)
                    ON CONFLICT(device_token, topic) DO UPDATE SET last_opened_at = excluded.last_opened_at
                    """, [token, topic, at])
            ]
        case .knowApp(let token, let topic):
            return [
                StoreStatement("INSERT INTO apps (device_token, topic) VALUES (?, ?) ON CONFLICT(device_token, topic) DO NOTHING", [token, topic])
            ]
        case .knowAppsFromRecords:
            return PostgresSchema.knownAppsFromRecords.map { StoreStatement($0) }
        case .setCoalescedByAPNs(let push):
            return [StoreStatement("UPDATE pushes SET apns_storage = 1 WHERE id = ?", [Int64(bitPattern: push)])]
        case .setContent(let content):
            return [
                StoreStatement(
                    """
                    INSERT INTO contents (device_token, topic, url, etag, last_modified, content_type, sha256, size, fetched_at, changed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(device_token, topic, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                        content_type = excluded.content_type, sha256 = excluded.sha256, size = excluded.size,
                        fetched_at = excluded.fetched_at, changed_at = excluded.changed_at
                    """,
                    [
                        content.deviceToken, content.topic, content.url, content.etag, content.lastModified, content.contentType,
                        content.sha256, content.size, content.fetchedAt, content.changedAt,
                    ])
            ]
        case .probe(let at):
            return [
                StoreStatement(
                    "INSERT INTO health (id, probed_at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET probed_at = excluded.probed_at", [at])
            ]
        case .setManualClock(let at):
            return [
                StoreStatement(

                    "INSERT INTO clock (id, manual_now) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET manual_now = CASE WHEN clock.manual_now > excluded.manual_now THEN clock.manual_now ELSE excluded.manual_now END",
                    [at])
            ]
        case .setUnregistered(let token, let at):
            return [Self.settingDeviceColumn("unregistered_at", of: token, to: at)]
        case .setRegistered(let token, let topics):
            return [Self.settingDeviceColumn("registered_topics", of: token, to: topics.sorted().joined(separator: "\n"))]
        case .insertChannel(let channel):
            return [
                StoreStatement(
                    "INSERT INTO channels (environment, bundle_id, id, storage_policy, created_at) VALUES (?, ?, ?, ?, ?)",
                    [
                        channel.environment.rawValue, channel.bundleID, channel.id.text, channel.configuration.storagePolicy.rawValue,
                        channel.createdAt,
                    ])
            ]
        case .deleteChannel(let id, let bundleID, let environment):
            return [
                StoreStatement("DELETE FROM channels WHERE environment = ? AND bundle_id = ? AND id = ?", [environment.rawValue, bundleID, id.text])
            ]
        case .insertBroadcast(let broadcast):
            return [
                StoreStatement(
                    """
                    INSERT INTO broadcasts (id, request_id, unique_id, environment, bundle_id, channel_id, priority, expiration, received_at, payload)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        Int64(bitPattern: broadcast.id), broadcast.requestID, broadcast.uniqueID, broadcast.environment.rawValue, broadcast.bundleID,
                        broadcast.channelID.text, broadcast.priority.rawValue, broadcast.expiration, broadcast.receivedAt.millisecondsSinceEpoch,
                        Data(broadcast.payload),
                    ])
            ]

        }
    }

    static let setFateSQL = "UPDATE pushes SET fate = ?, wake_id = ?, reason = ?, generation = COALESCE(?, generation) WHERE id = ?"
    static let wakeColumns = [
        "id", "device_token", "topic", "push_id", "generation", "started_at", "deadline", "finished_at", "result", "reason", "kind",
    ]
    static let insertWakeSQL = insertWakesSQL(rows: 1)

    /// One insert of `rows` wakes, each bound in `wakeColumns` order.
    static func insertWakesSQL(rows: Int) -> String {
        insertSQL("wakes", wakeColumns, rows: rows)
    }

    /// A wake's row, in `wakeColumns` order, ended at `finishedAt` (ms) with its `result`.
    static func wakeValues(_ wake: WakeRecord, finishedAt: Int64?) -> [any StoreValueConvertible] {
        let stored = StoredResult.columns(wake.result)
        return [
            Int64(bitPattern: wake.id), wake.deviceToken, wake.topic, Int64(bitPattern: wake.pushID), Int64(wake.generation),
            wake.startedAt.millisecondsSinceEpoch, wake.deadline.millisecondsSinceEpoch, finishedAt, stored.result, stored.reason,
            wake.kind.rawValue,
        ]
    }
    static let finishWakeSQL = "UPDATE wakes SET finished_at = ?, result = ?, reason = ? WHERE id = ? AND result IS NULL"

    static let pushColumns = [
        "id", "apns_id", "device_token", "topic", "push_type", "priority", "received_at", "expires_at", "collapse_id", "payload",
        "warnings", "fate", "wake_id", "reason", "generation", "replaced", "apns_key", "apns_storage",
    ]

    /// One insert of `rows` pushes, each bound in `pushColumns` order.
    static func insertPushesSQL(rows: Int) -> String {
        insertSQL("pushes", pushColumns, rows: rows)
    }

    /// One insert into `table` of `rows` rows of `columns`.
    private static func insertSQL(_ table: String, _ columns: [String], rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// A push's row, in `pushColumns` order. A push that replaced another in its app's slot
    /// names it in `replaced`; that row is left as it is, and the `push_fates` view reads it
    /// coalesced.
    static func pushValues(_ push: PushRecord) -> [any StoreValueConvertible] {
        let fate = StoredFate(push.fate)
        return [
            Int64(bitPattern: push.id), push.apnsID, push.deviceToken, push.topic, push.pushType, Int64(push.priority), push.receivedAt,
            push.expiresAt, push.collapseID, push.payload, push.warnings.isEmpty ? nil : push.warnings.joined(separator: "\n"),
            fate.kind.rawValue, fate.wakeID, fate.reason, push.generation.map { Int64($0) }, push.replaced.map { Int64(bitPattern: $0) },
            PushStore.indexedAPNsKey(push.apnsID, pushID: push.id), StoredFate.apnsStorage(heldAtAPNs: push.heldAtAPNs),
        ]
    }

    /// What changes in an activity's row after its start, in the order the statements bind it.
    static let activityStateColumns = ["state", "ended_at", "dismiss_at", "content_state", "stale_date", "relevance_score", "timestamp", "why"]

    static let updateActivitySQL = """
        UPDATE activities SET state = ?, ended_at = ?, dismiss_at = ?, content_state = ?, stale_date = ?, relevance_score = ?,
            timestamp = ?, why = ? WHERE id = ?
        """
    static let insertActivitySQL = """
        INSERT INTO activities (id, device_token, bundle_id, attributes_type, attributes, push_token, channel_id, started_at,
            state, ended_at, dismiss_at, content_state, stale_date, relevance_score, timestamp, why)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// The insert, or the update of the row the activity has: one statement, one round trip.
    static let upsertActivitySQL =
        insertActivitySQL + " ON CONFLICT(id) DO UPDATE SET "
        + activityStateColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// An activity's whole row, in `insertActivitySQL`'s order.
    static func activityValues(_ activity: LiveActivity) -> [any StoreValueConvertible] {
        [
            activity.id, activity.app.device, activity.app.bundleID, activity.attributesType, activity.attributes, activity.pushToken,
            activity.channel?.text, activity.startedAt.millisecondsSinceEpoch,
        ] + activityStateValues(activity)
    }

    /// What changes after the start, in `activityStateColumns` order.
    static func activityStateValues(_ activity: LiveActivity) -> [any StoreValueConvertible] {
        [
            activity.state.name, activity.endedAt?.millisecondsSinceEpoch, activity.dismissalDate?.millisecondsSinceEpoch,
            activity.contentState, activity.staleDate?.millisecondsSinceEpoch, activity.relevanceScore,
            activity.timestamp?.millisecondsSinceEpoch, activity.why,
        ]
    }

    static let insertActivityUpdateSQL =
        "INSERT INTO activity_updates (activity_id, source, outcome, until, coalesced_into, ignored, why, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

    /// An update decision's row, in `insertActivityUpdateSQL`'s order.
    static func activityUpdateValues(_ update: LiveActivityUpdate) -> [any StoreValueConvertible] {
        let outcome = outcomeColumns(update.outcome)
        return [
            update.activityID, update.source, update.outcome.name, outcome.until, outcome.into, outcome.ignored, update.why,
            update.at.millisecondsSinceEpoch,
        ]
    }

    /// The columns an update's outcome fills beside its name: when a waiting one applies,
    /// which update a coalesced one went into, why an ignored one was.
    static func outcomeColumns(_ outcome: LiveActivityUpdate.Outcome) -> (until: Int64?, into: String?, ignored: String?) {
        switch outcome {
        case .applied: (nil, nil, nil)
        case .waiting(let instant): (instant.millisecondsSinceEpoch, nil, nil)
        case .coalesced(let source): (nil, source, nil)
        case .ignored(let reason): (nil, nil, reason.rawValue)
        }
    }

    /// Sets one registration column (`column`, a name of this file's own) of `token`'s row,
    /// making the row with a default state when the device has none.
    private static func settingDeviceColumn(_ column: String, of token: String, to value: some StoreValueConvertible) -> StoreStatement {
        StoreStatement(
            """
            INSERT INTO devices (device_token, force_quit, background_refresh, low_power_mode, hourly_budget, \(column))
            VALUES (?, 0, 1, 0, NULL, ?)
            ON CONFLICT(device_token) DO UPDATE SET \(column) = excluded.\(column)
            """, [token, value])
    }
}
