import GRDB
import SilentPushCore

extension PushStore {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pushes (
                        id INTEGER PRIMARY KEY,
                        apns_id TEXT NOT NULL,
                        device_token TEXT NOT NULL,
                        topic TEXT NOT NULL,
                        push_type TEXT NOT NULL,
                        priority INTEGER NOT NULL,
                        received_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        collapse_id TEXT,
                        payload BLOB NOT NULL,
                        warnings TEXT,
                        fate TEXT NOT NULL,
                        wake_id INTEGER,
                        reason TEXT,
                        generation INTEGER
                    );
                    CREATE INDEX pushes_by_apns_id ON pushes (apns_id);
                    CREATE INDEX pushes_by_app ON pushes (device_token, topic, generation);
                    CREATE INDEX pushes_pending ON pushes (fate) WHERE fate = 'pending';
                    CREATE TABLE wakes (
                        id INTEGER PRIMARY KEY,
                        device_token TEXT NOT NULL,
                        topic TEXT NOT NULL,
                        push_id INTEGER NOT NULL,
                        generation INTEGER NOT NULL,
                        started_at INTEGER NOT NULL,
                        deadline INTEGER NOT NULL,
                        finished_at INTEGER,
                        result TEXT,
                        reason TEXT
                    );
                    CREATE INDEX wakes_by_app ON wakes (device_token, topic);
                    CREATE TABLE devices (
                        device_token TEXT PRIMARY KEY,
                        force_quit INTEGER NOT NULL,
                        background_refresh INTEGER NOT NULL,
                        low_power_mode INTEGER NOT NULL,
                        hourly_budget INTEGER
                    );
                    """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN unregistered_at INTEGER;
                    CREATE TABLE clock (id INTEGER PRIMARY KEY CHECK (id = 1), manual_now INTEGER NOT NULL);
                    CREATE INDEX pushes_by_wake ON pushes (wake_id) WHERE wake_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE contents (
                        device_token TEXT NOT NULL,
                        topic TEXT NOT NULL,
                        url TEXT NOT NULL,
                        etag TEXT,
                        last_modified TEXT,
                        content_type TEXT,
                        sha256 TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        fetched_at INTEGER NOT NULL,
                        changed_at INTEGER NOT NULL,
                        PRIMARY KEY (device_token, topic, url)
                    );
                    """)
        }
        migrator.registerMigration("v4") { db in
            // Pushes coalesced in a slot are chained (`replaced`) instead of indexed by device
            // and topic: that index took a random B-tree insert on every push. Open slots
            // are chained here from the old index, in order.
            try db.execute(
                sql: """
                    ALTER TABLE pushes ADD COLUMN replaced INTEGER;
                    UPDATE pushes SET replaced = (
                        SELECT previous FROM (
                            SELECT id, LAG(id) OVER (PARTITION BY device_token, topic, generation ORDER BY id) AS previous
                            FROM pushes WHERE (fate = 'coalesced' AND wake_id IS NULL) OR fate = 'pending') AS open
                        WHERE open.id = pushes.id)
                    WHERE (fate = 'coalesced' AND wake_id IS NULL) OR fate = 'pending';
                    DROP INDEX pushes_by_app;
                    """)
        }
        migrator.registerMigration("v5") { db in
            // Every push entered and left this index (pending, then coalesced or delivered):
            // two B-tree writes per push for a query that runs once, at start-up.
            try db.execute(sql: "DROP INDEX pushes_pending")
        }
        migrator.registerMigration("v6") { db in
            // Pushes are found by apns-id through their id or an 8-byte key (see `apnsKey`),
            // not an index of the text.
            let key = DatabaseFunction("silentpush_apns_key", argumentCount: 2, pure: true) { values in
                guard let apnsID = String.fromDatabaseValue(values[0]), let id = Int64.fromDatabaseValue(values[1]) else { return nil }
                return PushStore.indexedAPNsKey(apnsID, pushID: UInt64(bitPattern: id))
            }
            db.add(function: key)
            defer { db.remove(function: key) }
            try db.execute(
                sql: """
                    ALTER TABLE pushes ADD COLUMN apns_key INTEGER;
                    UPDATE pushes SET apns_key = silentpush_apns_key(apns_id, id);
                    CREATE INDEX pushes_by_apns_key ON pushes (apns_key) WHERE apns_key IS NOT NULL;
                    DROP INDEX pushes_by_apns_id;
                    """)
        }
        migrator.registerMigration("v7") { db in
            // One row that `probe()` rewrites: a real write, to tell whether the store takes any.
            try db.execute(sql: "CREATE TABLE health (id INTEGER PRIMARY KEY CHECK (id = 1), probed_at INTEGER NOT NULL)")
        }
        migrator.registerMigration("v8") { db in
            // The device as iOS documents it. The hourly budget becomes a daily one of the
            // same rate (hourly_budget stays, unread, for older versions).
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN daily_budget INTEGER;
                    ALTER TABLE devices ADD COLUMN battery_level INTEGER NOT NULL DEFAULT 100;
                    ALTER TABLE devices ADD COLUMN charging INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE devices ADD COLUMN thermal_state TEXT NOT NULL DEFAULT 'nominal';
                    ALTER TABLE devices ADD COLUMN debugger_attached INTEGER NOT NULL DEFAULT 0;
                    UPDATE devices SET daily_budget = MIN(hourly_budget, 1000000) * 24 WHERE hourly_budget IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v9") { db in
            // Offline devices. 1 marks a push replaced at APNs (its one-slot storage), not on
            // the device; later, 2 a push APNs held from its arrival (`StoredFate`).
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN network TEXT NOT NULL DEFAULT 'online';
                    ALTER TABLE pushes ADD COLUMN apns_storage INTEGER;
                    """)
        }
        migrator.registerMigration("v10") { db in
            // App usage: when the user last opened each app (device-clock ms).
            try db.execute(
                sql: """
                    CREATE TABLE apps (device_token TEXT NOT NULL, topic TEXT NOT NULL, last_opened_at INTEGER,
                                       PRIMARY KEY (device_token, topic))
                    """)
        }
        migrator.registerMigration("v11") { db in
            // Background tasks: requests and their runs; a device's idle state.
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN idle INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE task_requests (
                        id INTEGER PRIMARY KEY, device_token TEXT NOT NULL, topic TEXT NOT NULL, identifier TEXT NOT NULL,
                        kind TEXT NOT NULL, earliest_begin INTEGER, requires_network INTEGER NOT NULL, requires_power INTEGER NOT NULL,
                        strategy TEXT NOT NULL, submitted_at INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT, ended_at INTEGER);
                    CREATE INDEX task_requests_by_app ON task_requests (device_token, topic);
                    CREATE TABLE task_runs (
                        id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL, device_token TEXT NOT NULL, topic TEXT NOT NULL,
                        identifier TEXT NOT NULL, kind TEXT NOT NULL, started_at INTEGER NOT NULL, deadline INTEGER,
                        simulated INTEGER NOT NULL, expired_at INTEGER, finished_at INTEGER, outcome TEXT,
                        progress_completed INTEGER NOT NULL DEFAULT 0, progress_total INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX task_runs_by_app ON task_runs (device_token, topic);
                    """)
        }
        migrator.registerMigration("v12") { db in
            // What a wake's fetch handler wrote to stderr (its last 4 KB), whatever its result.
            try db.execute(sql: "ALTER TABLE wakes ADD COLUMN stderr TEXT")
        }
        migrator.registerMigration("v13") { db in
            // One fate per push, in one place: the view every reader selects from. A push
            // replaced in its slot keeps its `pending` row (an update of that row cost the
            // writer more than this index's entry: docs/benchmarks.md); the view finds its
            // successor through the index and reads it coalesced.
            try db.execute(sql: "CREATE INDEX pushes_by_replaced ON pushes (replaced) WHERE replaced IS NOT NULL")
            try db.execute(sql: StoredFate.firstViewSQL)
        }
        migrator.registerMigration("v14") { db in
            // Broadcast channels, per environment and app.
            try db.execute(
                sql: """
                    CREATE TABLE channels (
                        environment TEXT NOT NULL, bundle_id TEXT NOT NULL, id TEXT NOT NULL, storage_policy INTEGER NOT NULL,
                        created_at INTEGER NOT NULL, PRIMARY KEY (environment, bundle_id, id));
                    """)
        }
        migrator.registerMigration("v15") { db in
            // Broadcasts APNs accepted, in arrival order; a channel's latest is found by the index.
            try db.execute(
                sql: """
                    CREATE TABLE broadcasts (
                        id INTEGER PRIMARY KEY, request_id TEXT NOT NULL, unique_id TEXT, environment TEXT NOT NULL,
                        bundle_id TEXT NOT NULL, channel_id TEXT NOT NULL, priority INTEGER NOT NULL, expiration INTEGER NOT NULL,
                        received_at INTEGER NOT NULL, payload BLOB NOT NULL);
                    CREATE INDEX broadcasts_by_channel ON broadcasts (environment, bundle_id, channel_id, id);
                    """)
        }
        migrator.registerMigration("v16") { db in
            // Live Activities as each now is, and every decision about their updates.
            try db.execute(
                sql: """
                    CREATE TABLE activities (
                        id TEXT PRIMARY KEY, device_token TEXT NOT NULL, bundle_id TEXT NOT NULL, attributes_type TEXT NOT NULL,
                        attributes TEXT NOT NULL, push_token TEXT, channel_id TEXT, state TEXT NOT NULL, ended_at INTEGER,
                        dismiss_at INTEGER, content_state TEXT NOT NULL, stale_date INTEGER, relevance_score REAL, timestamp INTEGER,
                        started_at INTEGER NOT NULL);
                    CREATE INDEX activities_by_app ON activities (device_token, bundle_id, started_at);
                    CREATE TABLE activity_updates (
                        seq INTEGER PRIMARY KEY, activity_id TEXT, source TEXT NOT NULL, outcome TEXT NOT NULL, until INTEGER,
                        coalesced_into TEXT, ignored TEXT, why TEXT NOT NULL, at INTEGER NOT NULL);
                    CREATE INDEX activity_updates_by_activity ON activity_updates (activity_id, seq);
                    """)
        }
        migrator.registerMigration("v17") { db in
            // Wakes of their own kind: widget and control reloads beside the app's fetches.
            // A restart counts the last day's reloads through `wakes_reloads`.
            let fetch = "'\(WakeKind.fetch.rawValue)'"
            try db.execute(
                sql: """
                    ALTER TABLE wakes ADD COLUMN kind TEXT NOT NULL DEFAULT \(fetch);
                    CREATE INDEX wakes_reloads ON wakes (started_at) WHERE kind != \(fetch);
                    """)
        }
        migrator.registerMigration("v18") { db in
            // Background transfers, and the kind of network a device is on.
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN network_type TEXT NOT NULL DEFAULT 'wifi';
                    CREATE TABLE transfers (
                        id INTEGER PRIMARY KEY, device_token TEXT NOT NULL, topic TEXT NOT NULL, session TEXT NOT NULL,
                        url TEXT NOT NULL, method TEXT NOT NULL, discretionary INTEGER NOT NULL, allows_cellular INTEGER NOT NULL,
                        launch_events INTEGER NOT NULL, wake_id INTEGER, task_run_id INTEGER, handed_over_at INTEGER NOT NULL,
                        state TEXT NOT NULL, reason TEXT, attempts INTEGER NOT NULL, bytes INTEGER NOT NULL, finished_at INTEGER,
                        etag TEXT, last_modified TEXT, relaunch_request INTEGER, file_fate TEXT, last_error TEXT, status INTEGER);
                    CREATE INDEX transfers_by_app ON transfers (device_token, topic, session);
                    CREATE INDEX transfers_open ON transfers (state) WHERE finished_at IS NULL OR (relaunch_request IS NULL AND state = 'done');
                    """)
        }
        migrator.registerMigration("v19") { db in
            // A background upload's file (`fromFile`).
            try db.execute(sql: "ALTER TABLE transfers ADD COLUMN from_file TEXT")
        }
        migrator.registerMigration("v20") { db in
            for statement in PostgresSchema.upgrades[19] ?? [] { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v21") { db in
            // Bodies no content row names any more are deleted, found by their hash (the
            // files' own times say when a fetch last saved one).
            try db.execute(sql: "CREATE INDEX contents_by_sha ON contents (sha256)")
            // Retention keeps a transfer while its relaunch's run is running: found by request.
            try db.execute(sql: "CREATE INDEX task_runs_running ON task_runs (request_id) WHERE finished_at IS NULL")
            // A restart finds the decisions that said `waiting` without reading the others.
            try db.execute(sql: "CREATE INDEX activity_updates_waiting ON activity_updates (activity_id) WHERE outcome = 'waiting'")
        }
        migrator.registerMigration("v22") { db in
            // An activity says why it is as it is (the device's last decision about it).
            try db.execute(sql: "ALTER TABLE activities ADD COLUMN why TEXT")
        }
        migrator.registerMigration("v23") { db in
            try db.execute(sql: PostgresSchema.idFloorsTable)
            // A token registered at run time (a reinstall's): its topics, one a line ("" for
            // any); NULL when it was not.
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN registered_topics TEXT")
        }
        migrator.registerMigration("v24") { db in
            // A run the system killed says what killed its app (`AppKill`).
            try db.execute(sql: "ALTER TABLE task_runs ADD COLUMN killed_by TEXT")
        }
        migrator.registerMigration("v25") { db in
            // Devices are listed from `apps` (`StoreChange.knowApp`), known from the records kept.
            for statement in PostgresSchema.knownAppsFromRecords { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v26") { db in
            // An expired push names the push that replaced it, with which it expired.
            for statement in PostgresSchema.viewWithExpiredSuccessor { try db.execute(sql: statement) }
        }
        return migrator
    }()
}
