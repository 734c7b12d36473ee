import SilentPushCore

/// The store's tables in PostgreSQL: the shape SQLite's migrations reach (version 26), with
/// PostgreSQL's types. Every integer is `BIGINT` (PostgreSQL's `INTEGER` is 32 bits; ids are
/// `UInt64` bit patterns, times milliseconds), flags stay integers 0 and 1 as in SQLite so
/// one SQL text serves both, bodies are `BYTEA`. A new database gets this schema at once; a
/// database of an older version takes each of `upgrades` from its own on.
package enum PostgresSchema {
    /// The version this schema is: SQLite's migrations count the same.
    package static let version = 26

    /// What takes a database of version N (the key, from 18 on: the first a release shipped)
    /// to N + 1, one statement each, in order: the same change as SQLite's migration N + 1.
    package static let upgrades: [Int64: [String]] = [
        18: ["ALTER TABLE transfers ADD COLUMN IF NOT EXISTS from_file TEXT"],
        // The receiver's own endings of a wake get a result of their own (`StoredResult`):
        // a handler's "failed deadlineExceeded" no longer reads as the deadline's.
        19: [
            "UPDATE wakes SET result = 'deadlineExceeded', reason = NULL WHERE result = 'failed' AND reason = 'deadlineExceeded'",
            "UPDATE wakes SET result = 'shutdown', reason = NULL WHERE result = 'failed' AND reason = 'shutdown'",
            "UPDATE wakes SET result = 'interrupted', reason = NULL WHERE result = 'failed' AND reason = 'interrupted: the receiver stopped during the fetch'",
        ],
        // Bodies no content row names any more are deleted: found by their hash, and not
        // while a fetch has just saved one (`saved_at`, milliseconds of real time).
        20: [
            "CREATE INDEX IF NOT EXISTS contents_by_sha ON contents (sha256)",
            "ALTER TABLE content_bodies ADD COLUMN IF NOT EXISTS saved_at BIGINT NOT NULL DEFAULT 0",
            "CREATE INDEX IF NOT EXISTS task_runs_running ON task_runs (request_id) WHERE finished_at IS NULL",
            "CREATE INDEX IF NOT EXISTS activity_updates_waiting ON activity_updates (activity_id) WHERE outcome = 'waiting'",
        ],
        // An activity says why it is as it is (the device's last decision about it).
        21: ["ALTER TABLE activities ADD COLUMN IF NOT EXISTS why TEXT"],
        // Ids number on past rows retention or a reset deleted (`PushStore.recordingIDFloor`);
        // a token registered at run time (a reinstall's) outlives a restart.
        22: [idFloorsTable, "ALTER TABLE devices ADD COLUMN IF NOT EXISTS registered_topics TEXT"],
        // A run the system killed says what killed its app (`AppKill`).
        23: ["ALTER TABLE task_runs ADD COLUMN IF NOT EXISTS killed_by TEXT"],
        // Devices are listed from `apps` (`StoreChange.knowApp`): the apps the records kept
        // name are known from the start.
        24: knownAppsFromRecords,
        // An expired push names the push that replaced it, with which it expired.
        25: viewWithExpiredSuccessor,
    ]

    /// The view made again with `replaced_by` (`StoredFate.viewSQL`); SQLite runs the same.
    static let viewWithExpiredSuccessor = ["DROP VIEW push_fates", StoredFate.viewSQL]

    /// The apps the records name, as `apps` rows: each push accepted (not rejected or
    /// answered by a fault; a Live Activity push names its activity's token, not its
    /// device), by its bundle id (`APNsPushType.bundleID(ofTopic:)`), each Live Activity
    /// and each task request. SQLite runs the same statements.
    static var knownAppsFromRecords: [String] {
        let suffixed = APNsPushType.allCases.compactMap { type in type.topicSuffix.map { (type, $0) } }.map { type, suffix in
            "WHEN push_type = '\(type.rawValue)' AND substr(topic, length(topic) - \(suffix.utf8.count - 1)) = '\(suffix)' "
                + "THEN substr(topic, 1, length(topic) - \(suffix.utf8.count))"
        }
        let refused = [PushFate.Kind.rejected, .injected].map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return [
            """
            INSERT INTO apps (device_token, topic)
            SELECT DISTINCT device_token, CASE \(suffixed.joined(separator: " ")) ELSE topic END FROM pushes
            WHERE fate NOT IN (\(refused)) AND push_type != '\(APNsPushType.liveactivity.rawValue)'
            ON CONFLICT (device_token, topic) DO NOTHING
            """,
            "INSERT INTO apps (device_token, topic) SELECT DISTINCT device_token, bundle_id FROM activities WHERE true ON CONFLICT (device_token, topic) DO NOTHING",
            "INSERT INTO apps (device_token, topic) SELECT DISTINCT device_token, topic FROM task_requests WHERE true ON CONFLICT (device_token, topic) DO NOTHING",
        ]
    }

    /// The largest id each table held when rows were deleted from it (retention, a reset): a
    /// restart numbers on from here when the newest rows are gone, so no id is given twice.
    static let idFloorsTable = "CREATE TABLE IF NOT EXISTS id_floors (name TEXT PRIMARY KEY, last_id BIGINT NOT NULL)"

    /// What makes an empty database the store, one statement each (PostgreSQL's extended
    /// protocol runs one at a time), in order.
    package static let statements: [String] = [
        "CREATE TABLE schema_version (version BIGINT NOT NULL)",
        """
        CREATE TABLE pushes (
            id BIGINT PRIMARY KEY, apns_id TEXT NOT NULL, device_token TEXT NOT NULL, topic TEXT NOT NULL, push_type TEXT NOT NULL,
            priority BIGINT NOT NULL, received_at BIGINT NOT NULL, expires_at BIGINT, collapse_id TEXT, payload BYTEA NOT NULL,
            warnings TEXT, fate TEXT NOT NULL, wake_id BIGINT, reason TEXT, generation BIGINT, replaced BIGINT, apns_key BIGINT,
            apns_storage BIGINT)
        """,
        "CREATE INDEX pushes_by_wake ON pushes (wake_id) WHERE wake_id IS NOT NULL",
        "CREATE INDEX pushes_by_apns_key ON pushes (apns_key) WHERE apns_key IS NOT NULL",
        "CREATE INDEX pushes_by_replaced ON pushes (replaced) WHERE replaced IS NOT NULL",
        """
        CREATE TABLE wakes (
            id BIGINT PRIMARY KEY, device_token TEXT NOT NULL, topic TEXT NOT NULL, push_id BIGINT NOT NULL, generation BIGINT NOT NULL,
            started_at BIGINT NOT NULL, deadline BIGINT NOT NULL, finished_at BIGINT, result TEXT, reason TEXT, stderr TEXT,
            kind TEXT NOT NULL DEFAULT 'fetch')
        """,
        "CREATE INDEX wakes_by_app ON wakes (device_token, topic)",
        "CREATE INDEX wakes_reloads ON wakes (started_at) WHERE kind != 'fetch'",
        """
        CREATE TABLE devices (
            device_token TEXT PRIMARY KEY, force_quit BIGINT NOT NULL, background_refresh BIGINT NOT NULL,
            low_power_mode BIGINT NOT NULL, hourly_budget BIGINT, unregistered_at BIGINT, daily_budget BIGINT,
            battery_level BIGINT NOT NULL DEFAULT 100, charging BIGINT NOT NULL DEFAULT 0, thermal_state TEXT NOT NULL DEFAULT 'nominal',
            debugger_attached BIGINT NOT NULL DEFAULT 0, network TEXT NOT NULL DEFAULT 'online', idle BIGINT NOT NULL DEFAULT 0,
            network_type TEXT NOT NULL DEFAULT 'wifi', registered_topics TEXT)
        """,
        "CREATE TABLE clock (id BIGINT PRIMARY KEY CHECK (id = 1), manual_now BIGINT NOT NULL)",
        """
        CREATE TABLE contents (
            device_token TEXT NOT NULL, topic TEXT NOT NULL, url TEXT NOT NULL, etag TEXT, last_modified TEXT, content_type TEXT,
            sha256 TEXT NOT NULL, size BIGINT NOT NULL, fetched_at BIGINT NOT NULL, changed_at BIGINT NOT NULL,
            PRIMARY KEY (device_token, topic, url))
        """,
        "CREATE INDEX contents_by_sha ON contents (sha256)",
        "CREATE TABLE health (id BIGINT PRIMARY KEY CHECK (id = 1), probed_at BIGINT NOT NULL)",
        "CREATE TABLE apps (device_token TEXT NOT NULL, topic TEXT NOT NULL, last_opened_at BIGINT, PRIMARY KEY (device_token, topic))",
        """
        CREATE TABLE task_requests (
            id BIGINT PRIMARY KEY, device_token TEXT NOT NULL, topic TEXT NOT NULL, identifier TEXT NOT NULL, kind TEXT NOT NULL,
            earliest_begin BIGINT, requires_network BIGINT NOT NULL, requires_power BIGINT NOT NULL, strategy TEXT NOT NULL,
            submitted_at BIGINT NOT NULL, state TEXT NOT NULL, reason TEXT, ended_at BIGINT)
        """,
        "CREATE INDEX task_requests_by_app ON task_requests (device_token, topic)",
        """
        CREATE TABLE task_runs (
            id BIGINT PRIMARY KEY, request_id BIGINT NOT NULL, device_token TEXT NOT NULL, topic TEXT NOT NULL, identifier TEXT NOT NULL,
            kind TEXT NOT NULL, started_at BIGINT NOT NULL, deadline BIGINT, simulated BIGINT NOT NULL, expired_at BIGINT,
            finished_at BIGINT, outcome TEXT, progress_completed BIGINT NOT NULL DEFAULT 0, progress_total BIGINT NOT NULL DEFAULT 0,
            killed_by TEXT)
        """,
        "CREATE INDEX task_runs_by_app ON task_runs (device_token, topic)",
        "CREATE INDEX task_runs_running ON task_runs (request_id) WHERE finished_at IS NULL",
        // The same view as SQLite's, from the one mapping of fates to SQL.
        StoredFate.viewSQL,
        """
        CREATE TABLE channels (
            environment TEXT NOT NULL, bundle_id TEXT NOT NULL, id TEXT NOT NULL, storage_policy BIGINT NOT NULL,
            created_at BIGINT NOT NULL, PRIMARY KEY (environment, bundle_id, id))
        """,
        """
        CREATE TABLE broadcasts (
            id BIGINT PRIMARY KEY, request_id TEXT NOT NULL, unique_id TEXT, environment TEXT NOT NULL, bundle_id TEXT NOT NULL,
            channel_id TEXT NOT NULL, priority BIGINT NOT NULL, expiration BIGINT NOT NULL, received_at BIGINT NOT NULL,
            payload BYTEA NOT NULL)
        """,
        "CREATE INDEX broadcasts_by_channel ON broadcasts (environment, bundle_id, channel_id, id)",
        """
        CREATE TABLE activities (
            id TEXT PRIMARY KEY, device_token TEXT NOT NULL, bundle_id TEXT NOT NULL, attributes_type TEXT NOT NULL,
            attributes TEXT NOT NULL, push_token TEXT, channel_id TEXT, state TEXT NOT NULL, ended_at BIGINT, dismiss_at BIGINT,
            content_state TEXT NOT NULL, stale_date BIGINT, relevance_score DOUBLE PRECISION, timestamp BIGINT, started_at BIGINT NOT NULL,
            why TEXT)
        """,
        "CREATE INDEX activities_by_app ON activities (device_token, bundle_id, started_at)",
        """
        CREATE TABLE activity_updates (
            seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, activity_id TEXT, source TEXT NOT NULL, outcome TEXT NOT NULL,
            until BIGINT, coalesced_into TEXT, ignored TEXT, why TEXT NOT NULL, at BIGINT NOT NULL)
        """,
        "CREATE INDEX activity_updates_by_activity ON activity_updates (activity_id, seq)",
        "CREATE INDEX activity_updates_waiting ON activity_updates (activity_id) WHERE outcome = 'waiting'",
        """
        CREATE TABLE transfers (
            id BIGINT PRIMARY KEY, device_token TEXT NOT NULL, topic TEXT NOT NULL, session TEXT NOT NULL, url TEXT NOT NULL,
            method TEXT NOT NULL, discretionary BIGINT NOT NULL, allows_cellular BIGINT NOT NULL, launch_events BIGINT NOT NULL,
            wake_id BIGINT, task_run_id BIGINT, handed_over_at BIGINT NOT NULL, state TEXT NOT NULL, reason TEXT,
            attempts BIGINT NOT NULL, bytes BIGINT NOT NULL, finished_at BIGINT, etag TEXT, last_modified TEXT,
            relaunch_request BIGINT, file_fate TEXT, last_error TEXT, status BIGINT, from_file TEXT)
        """,
        "CREATE INDEX transfers_by_app ON transfers (device_token, topic, session)",
        "CREATE INDEX transfers_open ON transfers (state) WHERE finished_at IS NULL OR (relaunch_request IS NULL AND state = 'done')",
        // Content bodies live here, not in files beside the database: every receiver of a
        // cluster reads them (SQLite keeps them as files in the store's `-contents/`).
        "CREATE TABLE content_bodies (sha256 TEXT PRIMARY KEY, body BYTEA NOT NULL, saved_at BIGINT NOT NULL DEFAULT 0)",
        "CREATE TABLE id_floors (name TEXT PRIMARY KEY, last_id BIGINT NOT NULL)",
        "INSERT INTO schema_version (version) VALUES (\(version))",
    ]

    /// The tables `statements` make.
    package static var tables: [String] {
        statements.compactMap { statement in
            guard statement.hasPrefix("CREATE TABLE ") else { return nil }
            return statement.dropFirst("CREATE TABLE ".count).split(whereSeparator: { $0 == " " || $0 == "(" }).first.map(String.init)
        }
    }

    /// `sql` with SQLite's placeholders as PostgreSQL's: `?N` becomes `$N`, and each bare `?`
    /// the number after the largest so far (as SQLite numbers it). Text in quotes is kept.
    package static func numbered(_ sql: String) -> String {
        var out = ""
        var largest = 0
        var quote: Character?
        var index = sql.startIndex
        while index < sql.endIndex {
            let character = sql[index]
            index = sql.index(after: index)
            if let open = quote {
                out.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                out.append(character)
            case "?":
                var digits = ""
                while index < sql.endIndex, let digit = sql[index].wholeNumberValue, sql[index].isASCII {
                    digits.append(Character(String(digit)))
                    index = sql.index(after: index)
                }
                let number = Int(digits) ?? largest + 1
                largest = max(largest, number)
                out += "$\(number)"
            default:
                out.append(character)
            }
        }
        return out
    }
}
