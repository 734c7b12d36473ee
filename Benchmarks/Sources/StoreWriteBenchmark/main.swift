// The store's write path on a real SQLite file: push records committed in batches of 32,
// each its own write as the receiver queues them (`StoreWriteDriver`), against a reference
// measured in the same run: rows of the same columns and sizes through GRDB's own cached
// statement, one insert per row, in transactions of 32. Both files in WAL mode with
// synchronous=NORMAL.
//
// Prints the process's CPU time per row (every thread: the store's writer and its
// checkpointer too) and the ratio, per round and its median. Lower is better.
// Build with -c release (make bench-store).
import Foundation
import GRDB
@_spi(Benchmarks) import SilentPushReceiver

/// The argument at `index` as a count within `range`, else `fallback` when it is absent.
func count(_ index: Int, in range: ClosedRange<Int>, fallback: Int) -> Int {
    guard CommandLine.arguments.count > index else { return fallback }
    guard let value = Int(CommandLine.arguments[index]), range.contains(value) else {
        FileHandle.standardError.write(Data("usage: StoreWriteBenchmark [ROWS 32...2000000] [ROUNDS 1...99]\n".utf8))
        exit(2)
    }
    return value
}

// Every row is made before the clock starts, on both sides: 2,000,000 take about 2 GB.
let rows = count(1, in: 32...2_000_000, fallback: 100_000)
let rounds = count(2, in: 1...99, fallback: 5)
let batch = 32
let devices = 20_000
let payload = Array(#"{"aps":{"content-available":1},"acme":{"refresh":"inbox","since":"2026-11-20T00:00:00Z"}}"#.utf8)

/// CPU time of the whole process so far, in seconds.
func processCPU() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func scratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("silentpush-store-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Microseconds of CPU per row through the store's writer, as the receiver drives it.
func measureStore() async throws -> Double {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let driver = try await StoreWriteDriver(
        storePath: directory.appendingPathComponent("store.sqlite").path, payload: payload, pushes: rows, devices: devices)
    let start = processCPU()
    try await driver.writeAll(batch: batch)
    let cpu = processCPU() - start
    try await driver.close()
    return cpu / Double(rows) * 1e6
}

/// Microseconds of CPU per row through GRDB's cached statement, one row per insert.
func measureReference() throws -> Double {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try DatabaseQueue(path: directory.appendingPathComponent("reference.sqlite").path)
    _ = try queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
    try queue.writeWithoutTransaction { db in
        try db.execute(
            sql: """
                PRAGMA synchronous = NORMAL;
                CREATE TABLE pushes (id INTEGER PRIMARY KEY, apns_id TEXT NOT NULL, device_token TEXT NOT NULL, topic TEXT NOT NULL,
                    push_type TEXT NOT NULL, priority INTEGER NOT NULL, received_at INTEGER NOT NULL, expires_at INTEGER, collapse_id TEXT,
                    payload BLOB NOT NULL, warnings TEXT, fate TEXT NOT NULL, wake_id INTEGER, reason TEXT, generation INTEGER,
                    replaced INTEGER, apns_key INTEGER);
                """)
    }
    // The rows' values are made before the clock starts, as the driver's records are.
    let tokens = (0..<devices).map { device in
        let digits = String(device, radix: 16)
        return String(repeating: "0", count: 64 - digits.count) + digits
    }
    let body = Data(payload)
    let arguments: [StatementArguments] = (1...UInt64(rows)).map { id in
        let apnsID = "4F3A9C1E-7B2D-4E8F-8000-" + String(id, radix: 16)
        let received: Int64 = 1_800_000_000_000 + Int64(id)
        let replaced: Int64? = id > UInt64(devices) ? Int64(id) - Int64(devices) : nil
        let values: [(any DatabaseValueConvertible)?] = [
            Int64(id), apnsID, tokens[Int(id % UInt64(devices))], "com.example.app", "background", 5, received, nil, nil, body, nil,
            "pending", nil, "minimumInterval", 1, replaced, nil,
        ]
        return StatementArguments(values)
    }
    let start = processCPU()
    for first in stride(from: 0, to: rows, by: batch) {
        try queue.inTransaction(.immediate) { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO pushes (id, apns_id, device_token, topic, push_type, priority, received_at, expires_at, collapse_id,
                        payload, warnings, fate, wake_id, reason, generation, replaced, apns_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for index in first..<min(first + batch, rows) { try insert.execute(arguments: arguments[index]) }
            return .commit
        }
    }
    return (processCPU() - start) / Double(rows) * 1e6
}

print("store writes, \(rows) rows per measurement, \(batch) per commit, \(rounds) rounds")
print("round  reference µs/row  PushStore µs/row  ratio")
var ratios: [Double] = []
for round in 1...rounds {
    // Alternating which goes first, so a slow spell does not always fall on the same side.
    let reference: Double
    let store: Double
    if round % 2 == 1 {
        reference = try measureReference()
        store = try await measureStore()
    } else {
        store = try await measureStore()
        reference = try measureReference()
    }
    ratios.append(store / reference)
    print(String(format: "%5d  %16.2f  %16.2f  %5.2f", round, reference, store, store / reference))
}
print(String(format: "median: PushStore at %.2f× the reference's CPU per row", ratios.sorted()[ratios.count / 2]))
