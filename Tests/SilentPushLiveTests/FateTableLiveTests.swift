import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// One fate per push, whoever asks: a scenario that produces every fate kind and every drop
/// reason, read through every reader — the Swift API, `GET /v1/pushes/{apns-id}`, the same by
/// `apns-unique-id`, `GET /v1/pushes` unfiltered and filtered by each fate (what the timeline
/// page reads), the NDJSON and CSV exports, `GET /v1/stats` and `pushsend expect` — before
/// the wake, after it, after a restart on the same store, and after retention pruned.
@Suite(.serialized) struct FateTableLiveTests {
    /// A fate as a reader reports it: its name, its wake (delivered or coalesced into), and
    /// its reason (a drop's, a rejection's, an injection's).
    struct Seen: Hashable, CustomStringConvertible {
        var fate: String
        var wakeID: Int?
        var reason: String?

        var description: String { "\(fate)" + (wakeID.map { " wake \($0)" } ?? "") + (reason.map { " (\($0))" } ?? "") }

        init(fate: String, wakeID: Int?, reason: String?) {
            self.fate = fate
            self.wakeID = wakeID
            self.reason = reason
        }

        init(_ fate: PushFate) {
            self.fate = fate.name
            wakeID = fate.wakeID.map { Int($0) }
            reason = fate.dropReason?.description ?? fate.rejection?.rawValue ?? fate.injection?.description
        }

        /// The admin API's JSON (and NDJSON) fields.
        init(json: [String: Any]) {
            fate = json["fate"] as? String ?? "?"
            wakeID = json["wakeId"] as? Int
            reason = json["reason"] as? String
        }

        /// A CSV row's fields (empty: none).
        init(csv: [String: String]) {
            fate = csv["fate"] ?? "?"
            wakeID = csv["wakeId"].flatMap { Int($0) }
            reason = csv["reason"].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// One push of the scenario.
    struct Push {
        var apnsID: String
        var uniqueID: String?
    }

    static let topic = SamplePush.topic
    static func device(_ n: Int) -> String { String(repeating: String(format: "%02x", n), count: 32) }
    static func apnsID(_ n: Int) -> String { SilentPushdDeviceTests.apnsID(n) }

    /// The pushes, by name, sent so that every fate kind and drop reason occurs.
    static func sendScenario(_ receiver: Receiver) async throws -> [String: Push] {
        let client = try await TestPushClient.connect(to: receiver)
        defer { Task { await client.close() } }
        var pushes: [String: Push] = [:]
        func send(_ name: String, _ n: Int, expecting status: Int = 200, _ push: (String) async throws -> TestPushResponse) async throws {
            let answer = try await push(apnsID(n))
            #expect(answer.status == status, "\(name): \(answer)")
            pushes[name] = Push(apnsID: apnsID(n), uniqueID: answer.uniqueID)
        }
        // One app's slot: a wake at once, then three that coalesce into the next wake.
        let a = device(1)
        try await send("delivered", 1) { try await client.push(to: a, apnsID: $0) }
        await receiver.settle()
        try await send("coalesced1", 2) { try await client.push(to: a, apnsID: $0) }
        try await send("coalesced2", 3) { try await client.push(to: a, apnsID: $0) }
        try await send("pendingThenDelivered", 4) { try await client.push(to: a, apnsID: $0) }
        // A push that waits for the interval and expires in it.
        let b = device(2)
        try await send("wakesB", 5) { try await client.push(to: b, apnsID: $0) }
        await receiver.settle()
        let inAMinute = Int64(Date().timeIntervalSince1970) + 60
        try await send("expires", 6) { try await client.push(to: b, expiration: inAMinute, apnsID: $0) }
        // Every drop reason.
        try await receiver.setDeviceState(DeviceState(forceQuit: true), for: device(3))
        try await send("forceQuit", 7) { try await client.push(to: device(3), apnsID: $0) }
        try await receiver.setDeviceState(DeviceState(backgroundRefresh: false), for: device(4))
        try await send("backgroundAppRefreshOff", 8) { try await client.push(to: device(4), apnsID: $0) }
        try await send("backgroundWithoutContentAvailable", 9) { try await client.push(#"{"aps":{}}"#, to: device(5), apnsID: $0) }
        try await send("noContentAvailable", 10) {
            try await client.push(#"{"aps":{"alert":"hi"}}"#, to: device(5), priority: .high, pushType: .alert, apnsID: $0)
        }
        try await send("pushTypeNeverWakes", 11) {
            try await client.push(#"{"aps":{}}"#, to: device(5), topic: topic + ".voip", priority: .high, pushType: .voip, apnsID: $0)
        }
        // Rejected by APNs, and answered by a fault rule.
        try await send("rejected", 12, expecting: 400) { try await client.push(to: device(6), apnsID: $0, rawHeaders: ["apns-priority": "3"]) }
        #expect(receiver.addFault(FaultRule(match: .init(device: device(7)), action: .reason(.tooManyRequests))) != nil)
        try await send("injected", 13, expecting: 429) { try await client.push(to: device(7), apnsID: $0) }
        // Held whatever the clock does (Low Power Mode): one coalesced waiting, one pending.
        try await receiver.setDeviceState(DeviceState(lowPowerMode: true), for: device(8))
        try await send("heldCoalesced", 14) { try await client.push(to: device(8), apnsID: $0) }
        try await send("heldPending", 15) { try await client.push(to: device(8), apnsID: $0) }
        await receiver.settle()
        return pushes
    }

    /// The fate every reader should report for each push, as the Swift API reports it; and
    /// that table checked against what the scenario means at `moment`.
    static func expectedTable(_ receiver: Receiver, _ pushes: [String: Push], moment: String) async throws -> [String: Seen] {
        var table: [String: Seen] = [:]
        for (name, push) in pushes { if let fate = try await receiver.fate(of: push.apnsID) { table[name] = Seen(fate) } }
        let waiting = moment == "before the wake"
        let pruned = moment == "after retention"
        func expect(_ name: String, _ kind: String, reason: String? = nil, wake: Bool? = nil) {
            guard let seen = table[name] else {
                Issue.record("\(moment): \(name) has no fate")
                return
            }
            #expect(seen.fate == kind, "\(moment): \(name) is \(seen)")
            if let reason { #expect(seen.reason == reason, "\(moment): \(name) is \(seen)") }
            if let wake { #expect((seen.wakeID != nil) == wake, "\(moment): \(name) is \(seen)") }
        }
        if pruned {
            // Only what the device still holds is kept, with the push coalesced behind it (it
            // goes with the wake it will ride).
            #expect(Set(table.keys) == ["heldPending", "heldCoalesced"], "\(moment): \(table)")
            expect("heldPending", "pending")
            expect("heldCoalesced", "coalesced", wake: false)
            return table
        }
        expect("delivered", "delivered", wake: true)
        expect("coalesced1", "coalesced", wake: !waiting)
        expect("coalesced2", "coalesced", wake: !waiting)
        expect("pendingThenDelivered", waiting ? "pending" : "delivered")
        expect("expires", waiting ? "pending" : "expired")
        expect("forceQuit", "dropped", reason: DropReason.forceQuit.description)
        expect("backgroundAppRefreshOff", "dropped", reason: DropReason.backgroundAppRefreshOff.description)
        expect("backgroundWithoutContentAvailable", "dropped", reason: DropReason.backgroundWithoutContentAvailable.description)
        expect("noContentAvailable", "dropped", reason: DropReason.noContentAvailable.description)
        expect("pushTypeNeverWakes", "dropped", reason: DropReason.pushTypeNeverWakes(.voip).description)
        expect("rejected", "rejected", reason: APNsReason.badPriority.rawValue)
        expect("injected", "injected", reason: FaultAction.reason(.tooManyRequests).description)
        expect("heldCoalesced", "coalesced", wake: false)
        expect("heldPending", "pending")
        if !waiting {
            #expect(table["coalesced1"]?.wakeID == table["pendingThenDelivered"]?.wakeID)
            #expect(table["coalesced2"]?.wakeID == table["pendingThenDelivered"]?.wakeID)
        }
        // Every fate kind and every drop reason occurs.
        let kinds = Set(table.values.map(\.fate))
        #expect(kinds.isSuperset(of: PushFate.Kind.allCases.filter { !waiting || $0 != .expired }.map(\.rawValue)), "\(moment): \(kinds)")
        return table
    }

    /// Reads every push through every reader and compares each with `table`.
    static func compareReaders(_ receiver: Receiver, _ pushes: [String: Push], table: [String: Seen], moment: String) async throws {
        let admin = try #require(receiver.adminPort)
        let byAPNsID = Dictionary(uniqueKeysWithValues: pushes.map { ($0.value.apnsID, $0.key) })
        func check(_ reader: String, _ name: String, _ seen: Seen?) {
            #expect(
                seen == table[name],
                "\(moment), \(reader): \(name) reads \(seen.map(\.description) ?? "nothing"), not \(table[name].map(\.description) ?? "nothing")")
        }

        for (name, push) in pushes {
            let one = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(push.apnsID)")
            check("GET /v1/pushes/{apns-id}", name, one.status == 200 ? Seen(json: one.json) : nil)
            if let unique = push.uniqueID {
                let same = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(unique)")
                check("GET /v1/pushes/{apns-unique-id}", name, same.status == 200 ? Seen(json: same.json) : nil)
            }
        }

        // The list, unfiltered and by each fate.
        func listed(_ query: String) async throws -> [String: Seen] {
            let page = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes?limit=1000" + query)
            #expect(page.status == 200)
            var seen: [String: Seen] = [:]
            for row in page.json["pushes"] as? [[String: Any]] ?? [] {
                if let name = (row["apnsId"] as? String).flatMap({ byAPNsID[$0] }) { seen[name] = Seen(json: row) }
            }
            return seen
        }
        let all = try await listed("")
        for name in pushes.keys { check("GET /v1/pushes", name, all[name]) }
        for kind in PushFate.Kind.allCases {
            let filtered = try await listed("&fate=\(kind.rawValue)")
            #expect(Set(filtered.keys) == Set(table.filter { $0.value.fate == kind.rawValue }.keys), "\(moment), ?fate=\(kind.rawValue)")
            for (name, seen) in filtered { check("GET /v1/pushes?fate=\(kind.rawValue)", name, seen) }
        }

        // The exports.
        let ndjson = try await PeerProcess.run(
            "curl", ["-sS", "-H", "accept: application/x-ndjson", "http://127.0.0.1:\(admin)/v1/pushes"], timeout: .seconds(60))
        var exported: [String: Seen] = [:]
        for line in ndjson.output.split(separator: "\n") {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let name = (row["apnsId"] as? String).flatMap({ byAPNsID[$0] }) { exported[name] = Seen(json: row) }
        }
        for name in pushes.keys { check("NDJSON export", name, exported[name]) }
        let csv = try await PeerProcess.run(
            "curl", ["-sS", "-H", "accept: text/csv", "http://127.0.0.1:\(admin)/v1/pushes"], timeout: .seconds(60))
        let parsed = try await PeerProcess.run(
            "python3", ["-c", "import csv, json, sys; print(json.dumps(list(csv.DictReader(sys.stdin))))"], input: csv.stdout)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [[String: String]])
        exported = [:]
        for row in rows { if let name = row["apnsId"].flatMap({ byAPNsID[$0] }) { exported[name] = Seen(csv: row) } }
        for name in pushes.keys { check("CSV export", name, exported[name]) }

        // The totals: each push counted under its fate (coalescedWaiting before its wake).
        let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats")
        var counted: [String: Int] = [:]
        for seen in table.values {
            counted[seen.fate == "coalesced" && seen.wakeID == nil ? "coalescedWaiting" : seen.fate, default: 0] += 1
        }
        #expect(stats.json["pushes"] as? [String: Int] == counted, "\(moment), GET /v1/stats: \(stats.json)")
        var dropped: [String: Int] = [:]
        for seen in table.values where seen.fate == "dropped" { dropped[seen.reason ?? "", default: 0] += 1 }
        #expect(stats.json["dropped"] as? [String: Int] == dropped, "\(moment), GET /v1/stats dropped: \(stats.json)")

        // pushsend expect, by apns-id and by apns-unique-id, at the present moment.
        let pushsend = try #require(BuiltProducts.path(of: "pushsend"))
        for (name, push) in pushes {
            guard let seen = table[name] else { continue }
            for id in [push.apnsID] + (push.uniqueID.map { [$0] } ?? []) {
                let result = try await PeerProcess.run(
                    pushsend, ["expect", "--admin", "http://127.0.0.1:\(admin)", "--apns-id", id, "--fate", seen.fate], timeout: .seconds(30))
                #expect(result.status == 0, "\(moment), pushsend expect: \(name) (\(id)): \(result.output)\(result.errorOutput)")
            }
        }
    }

    @Test func everyReaderReportsTheSameFateBeforeAndAfterTheWakeARestartAndRetention() async throws {
        let directory = Scratch.directory.appendingPathComponent("fates-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func configure(_ configuration: inout ReceiverConfiguration) {
            configuration.store = .file(directory + "/silentpush.sqlite")
            configuration.retention = .init(maximumAge: .seconds(86_400), maximumPushes: nil)
        }
        var afterWake: [String: Seen] = [:]
        let pushes = try await Receiver.withTesting(configure) { receiver in
            let pushes = try await Self.sendScenario(receiver)
            let before = try await Self.expectedTable(receiver, pushes, moment: "before the wake")
            try await Self.compareReaders(receiver, pushes, table: before, moment: "before the wake")
            try await receiver.advanceClock(by: .seconds(16 * 60))
            await receiver.settle()
            afterWake = try await Self.expectedTable(receiver, pushes, moment: "after the wake")
            try await Self.compareReaders(receiver, pushes, table: afterWake, moment: "after the wake")
            return pushes
        }
        try await Receiver.withTesting(configure) { receiver in
            let restarted = try await Self.expectedTable(receiver, pushes, moment: "after a restart")
            #expect(restarted == afterWake)
            try await Self.compareReaders(receiver, pushes, table: restarted, moment: "after a restart")
            try await receiver.advanceClock(by: .seconds(2 * 86_400))
            _ = try await receiver.pruneStore()
            let kept = try await Self.expectedTable(receiver, pushes, moment: "after retention")
            try await Self.compareReaders(receiver, pushes, table: kept, moment: "after retention")
        }
    }
}
