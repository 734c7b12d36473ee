import Foundation
import SilentPushCore
import SilentPushTesting
import SilentPushTestSupport
import Testing

/// `scripts/cluster.sh` as a user runs it: a real PostgreSQL server, three receivers sharing
/// it, HAProxy in front (TLS with ALPN h2, h2 to the receivers, a health-checked backend per
/// shard). Pushes through it reach each device's owner and are recorded once; kill -9 of a
/// receiver moves its shards to the survivors within seconds; no shard is owned twice.
@Suite(.postgres, .serialized) struct ClusterLiveTests {
    /// A running `cluster.sh`, its ports and working directory.
    struct Cluster {
        var process: PeerProcess
        var workdir: String
        var tls: Int
        var admin: Int
        /// The proxy's cleartext fronts: APNs and the channel-management API.
        var h2c: Int
        var channelsH2C: Int

        /// Receiver `n`'s listener `name`'s port (`admin`, `h2c`, `channels-h2c`), from its ready file.
        func port(of n: Int, _ name: String) throws -> Int {
            let ports = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(workdir)/r\(n).json"))) as? [String: Int]
            return try #require(ports?[name], "receiver r\(n) has no \(name) listener")
        }

        /// Receiver `n`'s admin port and pid.
        func receiver(_ n: Int) throws -> (admin: Int, pid: Int32) {
            let pid = try String(contentsOfFile: "\(workdir)/r\(n).pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            return (try port(of: n, "admin"), try #require(Int32(pid)))
        }

        func stop() async -> PeerResult {
            process.signal(SIGTERM)
            return await process.wait(timeout: .seconds(60))
        }
    }

    static let shards = 8

    /// Runs `body` on a new cluster over a new database (the password in `PGPASSWORD`, not in
    /// the URL), then stops it and expects a clean exit. A failing body stops it too, with
    /// SIGTERM: the script stops everything it started. Returns how the script ended.
    @discardableResult
    static func withCluster(arguments: String = "", _ body: (Cluster, PostgresServer, String) async throws -> Void) async throws -> PeerResult {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let cluster = try await start(store: server.url(withPassword: false, database: database), arguments: arguments)
        do {
            try await body(cluster, server, database)
        } catch {
            cluster.process.signal(SIGTERM)
            throw error
        }
        let result = await cluster.stop()
        #expect(result.status == 0 || result.status == 143, "\(result.errorOutput)")
        return result
    }

    /// Starts `cluster.sh`. Its front ports are chosen free before the receivers and
    /// PostgreSQL take ephemeral ones, which may be one of them: a start whose HAProxy found a
    /// port taken is tried again on new ports (three tries).
    static func start(store: String, receivers: Int = 3, arguments: String = "") async throws -> Cluster {
        for _ in 1..<3 {
            if let cluster = try await startOnce(store: store, receivers: receivers, arguments: arguments, lastTry: false) { return cluster }
        }
        return try #require(try await startOnce(store: store, receivers: receivers, arguments: arguments, lastTry: true))
    }

    /// One start of `cluster.sh`; nil when HAProxy found a port taken (not on the last try).
    private static func startOnce(store: String, receivers: Int, arguments: String, lastTry: Bool) async throws -> Cluster? {
        let base = Scratch.directory.appendingPathComponent("cluster-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let (tls, h2c, admin) = (try LoopbackPort.free(), try LoopbackPort.free(), try LoopbackPort.free())
        let (channels, channelsH2C) = (try LoopbackPort.free(), try LoopbackPort.free())
        var environment = ProcessInfo.processInfo.environment
        environment.merge(
            [
                "RECEIVERS": "\(receivers)", "SHARDS": "\(shards)", "CLAIM_INTERVAL": "1s", "STORE": store, "PGPASSWORD": PostgresServer.password,
                "SILENTPUSHD": try SilentPushdProcessTests.binary(), "CERTS": Repository.root + "/certs", "APNS_PORT": "\(tls)",
                "H2C_PORT": "\(h2c)", "ADMIN_PORT": "\(admin)", "WORKDIR": base + "/run", "READY_FILE": base + "/ready.json",
                "ARGS": arguments, "CHANNELS_PORT": "\(channels)", "CHANNELS_H2C_PORT": "\(channelsH2C)",
            ], uniquingKeysWith: { $1 })
        let process = try PeerProcess("/bin/bash", [Repository.root + "/scripts/cluster.sh"], environment: environment)
        for _ in 0..<600 {
            if FileManager.default.fileExists(atPath: base + "/ready.json") {
                return Cluster(process: process, workdir: base + "/run", tls: tls, admin: admin, h2c: h2c, channelsH2C: channelsH2C)
            }
            // Ended already (a zombie, or gone): a port taken under HAProxy is tried again.
            let stat = (try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8)) ?? ""
            if stat.isEmpty || stat.split(separator: ")").last?.split(separator: " ").first == "Z" {
                let ended = await process.wait()
                if !lastTry, ended.errorOutput.contains("Some protocols failed to start their listeners") { return nil }
                Issue.record("cluster.sh did not start: \(ended.errorOutput)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.signal(SIGKILL)
        Issue.record("cluster.sh did not start: \(await process.wait().errorOutput)")
        throw CancellationError()
    }

    /// `pushsend` through the proxy's TLS front: how many pushes were answered 200.
    static func push(_ cluster: Cluster, devices: String) async throws -> Int {
        let pushsend = try #require(BuiltProducts.path(of: "pushsend"))
        let result = try await PeerProcess.run(
            pushsend,
            ["--url", "https://127.0.0.1:\(cluster.tls)", "--cacert", DevCertificates.ca, "--devices", devices, "--quiet", "--concurrency", "16"],
            timeout: .seconds(120))
        let summary = result.output + result.errorOutput
        // One push answered prints no summary: its exit status says (0: 200; 1: refused).
        let words = summary.split(separator: " ")
        guard let index = words.firstIndex(of: "accepted"), index + 1 < words.count else { return result.status == 0 ? 1 : 0 }
        let accepted = Int(words[index + 1].filter(\.isNumber)) ?? -1
        return accepted
    }

    /// h2load through the proxy's TLS front, `requests` pushes over the devices' URIs in turn:
    /// h2load's own report, and how many it saw answered 2xx.
    static func h2load(_ cluster: Cluster, devices: [String], requests: Int, connections: Int = 1) throws -> PeerProcess {
        let uris = cluster.workdir + "/uris-\(UUID().uuidString).txt"
        try devices.map { "https://127.0.0.1:\(cluster.tls)/3/device/\($0)" }.joined(separator: "\n").write(
            toFile: uris, atomically: true, encoding: .utf8)
        return try PeerProcess(
            "h2load",
            ["-i", uris, "-n", "\(requests)", "-c", "\(connections)", "-m", "16", "-d", Repository.root + "/payloads/background.json"]
                + SamplePush.headerArguments(jwt: try DevProviderToken.make()))
    }

    /// Each shard held by one session: what `pg_locks` must say of a settled cluster.
    static var eachShardOnce: [Int: Int] { Dictionary(uniqueKeysWithValues: (0..<shards).map { ($0, 1) }) }

    /// The receiver (1…3) that owns `token`'s device, as the receivers' `/v1/cluster` say,
    /// and its writer session; nil when none does.
    static func owner(of token: String, in cluster: Cluster) async throws -> (receiver: Int, session: Int)? {
        let shard = try #require(ShardMap(count: shards)).shard(of: token)
        for n in 1...3 {
            let view = try await SilentPushdDeviceTests.admin(try cluster.receiver(n).admin, "GET", "/v1/cluster").json
            guard (view["owned"] as? [Int])?.contains(shard) == true else { continue }
            let members = view["members"] as? [[String: Any]] ?? []
            return (n, members.first { $0["name"] as? String == "r\(n)" }?["session"] as? Int ?? 0)
        }
        return nil
    }

    /// How many shards HAProxy serves: those whose backend has exactly one server up (its
    /// owner), read from its stats socket as `cluster.sh` reads it before it says ready.
    static func shardsServed(_ cluster: Cluster) async throws -> Int {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"show stat\\n")
            data = b""
            while chunk := s.recv(65536): data += chunk
            up = {}
            for f in (l.split(",") for l in data.decode().splitlines()):
                if len(f) > 17 and f[1] not in ("FRONTEND", "BACKEND") and f[17] == "UP": up[f[0]] = up.get(f[0], 0) + 1
            print(sum(up.get(f"shard{n}") == 1 for n in range(int(sys.argv[2]))))
            """
        let result = try await PeerProcess.run("python3", ["-c", script, cluster.workdir + "/haproxy.sock", "\(shards)"])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The 2xx count of an h2load report ("status codes: N 2xx, …").
    static func succeeded(_ report: String) -> Int? {
        guard let line = report.split(separator: "\n").first(where: { $0.contains("status codes:") }),
            let field = line.split(separator: ",").first?.split(separator: " ").dropLast().last
        else { return nil }
        return Int(field)
    }

    /// Who holds each shard, as PostgreSQL's lock table says: shard → holders.
    static func shardHolders(_ server: PostgresServer, database: String) async throws -> [Int: Int] {
        let result = try await server.psql(
            "SELECT objid, count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = \(0x5350_5348) AND objsubid = 2 AND granted GROUP BY objid",
            database: database)
        var holders: [Int: Int] = [:]
        for line in result.output.split(separator: "\n") {
            let fields = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if fields.count == 2, let shard = Int(fields[0]), let count = Int(fields[1]) { holders[shard] = count }
        }
        return holders
    }

    /// `shardHolders` once every shard is held again (within 10 s) after members left: a
    /// survivor claims up to its fair share at once and a shard left free at its next tick,
    /// so for a tick or two after a kill or a cut some shards are rightly held by none.
    static func settledShardHolders(_ server: PostgresServer, database: String) async throws -> [Int: Int] {
        var holders = try await shardHolders(server, database: database)
        for _ in 0..<100 where holders.count < shards {
            try await Task.sleep(for: .milliseconds(100))
            holders = try await shardHolders(server, database: database)
        }
        return holders
    }

    static func rows(_ server: PostgresServer, database: String, _ sql: String) async throws -> [String] {
        let result = try await server.psql(sql, database: database)
        return result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func threeReceiversBehindHAProxyRecordEveryPushOnceAndFailOverAfterAKill() async throws {
        let result = try await Self.withCluster { cluster, server, database in
            let tokens = (0..<1_000).map { _ in (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }
            let devices = cluster.workdir + "/devices.txt"
            try tokens.joined(separator: "\n").write(toFile: devices, atomically: true, encoding: .utf8)
            #expect(try await Self.push(cluster, devices: devices) == 1_000)
            #expect(try await Self.shardHolders(server, database: database) == Self.eachShardOnce)
            // And by h2load, an independent HTTP/2 client: one push to each device, all 200.
            let clean = await (try Self.h2load(cluster, devices: tokens, requests: 1_000)).wait(timeout: .seconds(120))
            #expect(Self.succeeded(clean.output) == 1_000, "\(clean.output)\(clean.errorOutput)")

            // Kill -9 the receiver that owns the first device under load (h2load pushing to every
            // device); time until a push to it is answered 200.
            let moved = tokens[0]
            let victim = try #require(try await Self.owner(of: moved, in: cluster)).receiver
            let killed = try cluster.receiver(victim)
            let one = cluster.workdir + "/moved.txt"
            try moved.write(toFile: one, atomically: true, encoding: .utf8)
            let load = try Self.h2load(cluster, devices: tokens, requests: 6_000, connections: 2)
            try await Task.sleep(for: .milliseconds(300))
            kill(killed.pid, SIGKILL)
            let killedAt = ContinuousClock.now
            var answered = 0
            while ContinuousClock.now - killedAt < .seconds(15) {
                answered = try await Self.push(cluster, devices: one)
                if answered == 1 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let failover = ContinuousClock.now - killedAt
            #expect(answered == 1 && failover < .seconds(10), "the moved device answered 200 after \(failover)")

            // Every shard has one owner again, and every push is taken.
            let survivors = (1...3).filter { $0 != victim }
            #expect(try await Self.settledShardHolders(server, database: database) == Self.eachShardOnce)
            let loaded = await load.wait(timeout: .seconds(120))
            let underLoad = try #require(Self.succeeded(loaded.output), "\(loaded.output)\(loaded.errorOutput)")
            #expect(underLoad > 0 && underLoad < 6_000, "the kill cost some of the load's pushes: \(loaded.output)")
            // Once HAProxy's checks see each shard's new owner, every push is taken.
            for _ in 0..<100 {
                if try await Self.shardsServed(cluster) == Self.shards { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await Self.push(cluster, devices: devices) == 1_000)

            // Every push answered 200 is recorded, once. A push the killed receiver committed but
            // had not answered yet is recorded too (its client saw the connection end, as with
            // APNs): at most the streams h2load had open, 2 × 16.
            let total = 3_000 + underLoad + answered
            let counts = try await Self.rows(server, database: database, "SELECT count(*), count(DISTINCT apns_id) FROM pushes").first ?? ""
            let recorded = counts.split(separator: "|").compactMap { Int($0) }
            #expect(recorded.count == 2 && recorded[0] == recorded[1], "no push recorded twice: \(counts)")
            #expect(recorded.first.map { (total...(total + 32)).contains($0) } == true, "\(counts) recorded for \(total) answered 200")
            // Each survivor reads them all.
            for n in survivors {
                let stats = try await SilentPushdDeviceTests.admin(try cluster.receiver(n).admin, "GET", "/v1/stats")
                let counted = (stats.json["pushes"] as? [String: Int])?.values.reduce(0, +)
                #expect(counted == recorded.first, "receiver r\(n) reads \(String(describing: counted)) pushes")
            }
        }
        #expect(!result.output.contains(PostgresServer.password) && !result.errorOutput.contains(PostgresServer.password))
    }

    /// One cluster, one view, on the manual clock: a clock advance, a fault rule and a reset
    /// asked of one receiver hold on every receiver when the call answers; every receiver
    /// lists every device; a device's state is changed only at its owner (503 naming the
    /// owner elsewhere; through the proxy it reaches the owner); and a push held pending by
    /// a receiver that is then killed wakes at its new owner exactly when it was due.
    @Test func theClockFaultsAndResetReachEveryReceiverAndAPendingPushWakesOnScheduleAtItsNewOwner() async throws {
        try await Self.withCluster(arguments: "--clock manual") { cluster, server, database in
            let admins = try (1...3).map { try cluster.receiver($0).admin }
            func clocks(_ ports: [Int]) async throws -> Set<String> {
                var seen = Set<String>()
                for port in ports { seen.insert(try await SilentPushdDeviceTests.admin(port, "GET", "/v1/clock").json["now"] as? String ?? "") }
                return seen
            }
            #expect(try await clocks(admins).count == 1, "the receivers start on the cluster's one clock")

            // A clock advance through one receiver moves them all, to one time, before it answers.
            let advanced = try await SilentPushdDeviceTests.admin(admins[1], "POST", "/v1/clock/advance", body: #"{"seconds": 3600}"#)
            #expect(advanced.status == 200)
            #expect(try await clocks(admins) == [advanced.json["now"] as? String ?? "-"])

            // A fault rule added at one receiver is every receiver's when the call answers.
            let token = String(repeating: "ab", count: 32)
            let devices = cluster.workdir + "/one.txt"
            try token.write(toFile: devices, atomically: true, encoding: .utf8)
            let rule = try await SilentPushdDeviceTests.admin(
                admins[2], "POST", "/v1/faults", body: #"{"match": {"device": "\#(token)"}, "action": {"reason": "TooManyRequests"}}"#)
            #expect(rule.status == 201)
            for port in admins {
                let faults = try await SilentPushdDeviceTests.admin(port, "GET", "/v1/faults").json["faults"] as? [[String: Any]]
                #expect(faults?.map { $0["id"] as? Int } == [rule.json["id"] as? Int], "receiver on \(port)")
            }
            #expect(try await Self.push(cluster, devices: devices) == 0, "the device's owner answers the fault")
            let counted = try await SilentPushdDeviceTests.admin(
                admins[0], "POST", "/v1/faults", body: #"{"count": 2, "action": {"reason": "TooManyRequests"}}"#)
            #expect(counted.status == 422, "a counted rule must name a device in a cluster")
            #expect(try await SilentPushdDeviceTests.admin(admins[0], "DELETE", "/v1/faults").status == 200)
            for port in admins {
                let faults = try await SilentPushdDeviceTests.admin(port, "GET", "/v1/faults").json["faults"] as? [Any]
                #expect(faults?.isEmpty == true, "receiver on \(port)")
            }

            // Two pushes: the first wakes the app at once, the second waits the minimum interval.
            #expect(try await Self.push(cluster, devices: devices) == 1)
            #expect(try await Self.push(cluster, devices: devices) == 1)
            let pushes =
                try await SilentPushdDeviceTests.admin(admins[0], "GET", "/v1/pushes?device=\(token)&fate=pending").json["pushes"] as? [[String: Any]]
            let pending = try #require(pushes?.first)
            let due = try #require((pending["why"] as? [String: Any])?["until"] as? String)
            let pendingID = try #require(pending["apnsId"] as? String)

            // Every receiver lists the device; only its owner changes it.
            let map = try #require(ShardMap(count: Self.shards))
            for (n, port) in zip(1...3, admins) {
                let listed = try await SilentPushdDeviceTests.admin(port, "GET", "/v1/devices").json["devices"] as? [[String: Any]]
                #expect(listed?.compactMap { $0["deviceToken"] as? String } == [token], "receiver r\(n)")
            }
            let owner = try #require(try await Self.owner(of: token, in: cluster)).receiver
            let ownerAdmin = admins[owner - 1]
            for port in admins where port != ownerAdmin {
                let refused = try await SilentPushdDeviceTests.admin(port, "PATCH", "/v1/devices/\(token)", body: #"{"charging": true}"#)
                #expect(refused.status == 503)
                #expect((refused.json["error"] as? String)?.contains("receiver 'r\(owner)'") == true, "\(refused.json)")
                // The token's first digit percent-encoded is the same device, refused alike.
                let encoded = "%" + String(UInt8(ascii: token.unicodeScalars.first ?? "0"), radix: 16) + token.dropFirst()
                let refusedEncoded = try await SilentPushdDeviceTests.admin(port, "PATCH", "/v1/devices/\(encoded)", body: #"{"charging": true}"#)
                #expect(refusedEncoded.status == 503, "\(refusedEncoded.json)")
            }
            let proxied = try await SilentPushdDeviceTests.admin(cluster.admin, "PATCH", "/v1/devices/\(token)", body: #"{"charging": true}"#)
            #expect(proxied.status == 200 && proxied.json["charging"] as? Bool == true)

            // Kill -9 the owner; once a survivor owns the shard, advance the clock past the due time.
            kill(try cluster.receiver(owner).pid, SIGKILL)
            let survivors = admins.filter { $0 != ownerAdmin }
            var adopted = false
            for _ in 0..<150 where !adopted {
                for port in survivors
                where try await SilentPushdDeviceTests.admin(port, "GET", "/v1/cluster/shards/\(map.shard(of: token))").status == 200 {
                    adopted = true
                }
                if !adopted { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(adopted)
            #expect(try await SilentPushdDeviceTests.admin(survivors[0], "POST", "/v1/clock/advance", body: #"{"seconds": 1800}"#).status == 200)
            let woke = try await SilentPushdDeviceTests.admin(survivors[1], "GET", "/v1/pushes/\(pendingID)")
            #expect(woke.json["fate"] as? String == "delivered", "\(woke.json)")
            let wakes = try await SilentPushdDeviceTests.admin(survivors[1], "GET", "/v1/wakes?device=\(token)").json["wakes"] as? [[String: Any]]
            #expect(wakes?.first { $0["apnsId"] as? String == pendingID }?["startedAt"] as? String == due, "it woke when it was due: \(due)")
            #expect((try await SilentPushdDeviceTests.admin(survivors[1], "GET", "/v1/devices/\(token)")).json["charging"] as? Bool == true)

            // A reset through one survivor empties every receiver's view before it answers.
            #expect(try await SilentPushdDeviceTests.admin(survivors[0], "POST", "/v1/reset", body: "{}").status == 200)
            for port in survivors {
                let listed = try await SilentPushdDeviceTests.admin(port, "GET", "/v1/devices").json["devices"] as? [Any]
                #expect(listed?.isEmpty == true)
            }
            #expect(try await Self.rows(server, database: database, "SELECT count(*) FROM pushes") == ["0"])

            // Killed with the clock moved at once, before any survivor owns its shards: the
            // advance waits for an owner, so the push it left pending still wakes when due.
            let (doomed, last) = (survivors[0], survivors[1])
            var second: String?
            while second == nil {
                let candidate = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                let view = try await SilentPushdDeviceTests.admin(doomed, "GET", "/v1/cluster").json
                if (view["owned"] as? [Int])?.contains(map.shard(of: candidate)) == true { second = candidate }
            }
            let secondToken = try #require(second)
            try secondToken.write(toFile: devices, atomically: true, encoding: .utf8)
            // Through the proxy, once its check has found the shard's owner since the first kill.
            for _ in 0..<2 {
                var accepted = 0
                for _ in 0..<50 where accepted == 0 {
                    accepted = try await Self.push(cluster, devices: devices)
                    if accepted == 0 { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(accepted == 1)
            }
            let waiting =
                try await SilentPushdDeviceTests.admin(last, "GET", "/v1/pushes?device=\(secondToken)&fate=pending").json["pushes"]
                as? [[String: Any]]
            let waitingPush = try #require(waiting?.first)
            let secondDue = try #require((waitingPush["why"] as? [String: Any])?["until"] as? String)
            let secondID = try #require(waitingPush["apnsId"] as? String)
            let doomedReceiver = try #require((1...3).first { admins[$0 - 1] == doomed })
            kill(try cluster.receiver(doomedReceiver).pid, SIGKILL)
            // As soon as PostgreSQL has seen its session end (until then it still counts as the
            // owner), before the survivor's next claim.
            for _ in 0..<250 {
                let members = try await SilentPushdDeviceTests.admin(last, "GET", "/v1/cluster").json["members"] as? [[String: Any]] ?? []
                if !members.contains(where: { $0["name"] as? String == "r\(doomedReceiver)" }) { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await SilentPushdDeviceTests.admin(last, "POST", "/v1/clock/advance", body: #"{"seconds": 1800}"#).status == 200)
            let secondWakes =
                try await SilentPushdDeviceTests.admin(last, "GET", "/v1/wakes?device=\(secondToken)").json["wakes"] as? [[String: Any]]
            #expect(
                secondWakes?.first { $0["apnsId"] as? String == secondID }?["startedAt"] as? String == secondDue,
                "it woke when it was due, \(secondDue): \(secondWakes ?? [])")
        }
    }

    /// A reset whose order a frozen receiver carries out late (its caller gave up) deletes
    /// nothing the cluster answered 200 since: the receiver asked deleted the records before
    /// the order went out, and the others only forget what they hold.
    @Test func aResetCarriedOutLateByAFrozenReceiverDeletesNothingRecordedSince() async throws {
        try await Self.withCluster(arguments: "--clock manual") { cluster, server, database in
            let frozen = try cluster.receiver(3).pid
            kill(frozen, SIGSTOP)
            defer { kill(frozen, SIGCONT) }
            // The caller stops waiting; the receiver asked waits on for the frozen one.
            _ = try await PeerProcess.run(
                "curl",
                [
                    "-s", "-m", "2", "-X", "POST", "-H", "content-type: application/json", "-d", "{}",
                    "http://127.0.0.1:\(try cluster.receiver(1).admin)/v1/reset",
                ])
            try await Task.sleep(for: .milliseconds(2_500))  // HAProxy's check (1 s, 1 s to answer) takes the frozen one out
            let devices = cluster.workdir + "/after-reset.txt"
            let tokens = (0..<40).map { _ in (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }
            try tokens.joined(separator: "\n").write(toFile: devices, atomically: true, encoding: .utf8)
            let accepted = try await Self.push(cluster, devices: devices)  // the frozen one's devices get 503
            #expect(accepted > 0, "no push was accepted")
            kill(frozen, SIGCONT)
            // A call to every receiver, answered once the thawed one has carried out what came
            // before it (orders are taken in the order sent): the reset.
            #expect(try await SilentPushdDeviceTests.admin(try cluster.receiver(1).admin, "DELETE", "/v1/faults").status == 200)
            let stored = try await Self.rows(server, database: database, "SELECT count(*) FROM pushes WHERE fate != 'rejected'")
            #expect(stored == ["\(accepted)"], "\(accepted) pushes were answered 200")
        }
    }

    /// A network cut rather than a crash: PostgreSQL ends a receiver's writer session while
    /// the receiver lives. From that moment none of its writes can commit, so it answers its
    /// own devices' pushes 503 (nothing recorded) before another receiver can claim their
    /// shard; the device is served again within seconds, and the cut receiver joins again on a
    /// new session, claiming only shards that are free: each shard is held once.
    /// Ids come from each receiver's own block, and a receiver behind a newer block moves on
    /// at its next tick even when it has numbered nothing: lists in id order are in arrival
    /// order, whichever receivers the pushes reach and in whatever order they joined.
    @Test func pushesToEveryReceiverListInTheOrderTheyArrived() async throws {
        try await Self.withCluster { cluster, _, _ in
            // A device of each receiver; the owners settle once every shard is claimed.
            var devices: [Int: String] = [:]
            while devices.count < 3 {
                let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                if let owner = try await Self.owner(of: token, in: cluster), devices[owner.receiver] == nil { devices[owner.receiver] = token }
            }
            let pushsend = try #require(BuiltProducts.path(of: "pushsend"))
            var sent: [String] = []
            // Down and up again: each receiver's first push comes after another's (two claim intervals apart).
            for receiver in [3, 2, 1, 1, 2, 3] {
                try await Task.sleep(for: .milliseconds(2_500))
                let result = try await PeerProcess.run(
                    pushsend,
                    ["--url", "https://127.0.0.1:\(cluster.tls)", "--cacert", DevCertificates.ca, "--device", try #require(devices[receiver])],
                    timeout: .seconds(30))
                let line = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(result.status == 0 && line.hasPrefix("200 "), "\(line)\(result.errorOutput)")
                sent.append(String(line.dropFirst(4)))
            }
            let listed = try await SilentPushdDeviceTests.admin(try cluster.receiver(1).admin, "GET", "/v1/pushes?limit=6")
            let newestFirst = (listed.json["pushes"] as? [[String: Any]] ?? []).compactMap { $0["apnsId"] as? String }
            #expect(newestFirst == sent.reversed(), "sent \(sent)")
        }
    }

    @Test func aReceiverWhoseStoreSessionIsCutAnswers503BeforeAnotherOwnsItsShards() async throws {
        try await Self.withCluster { cluster, server, database in
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            let devices = cluster.workdir + "/one.txt"
            try token.write(toFile: devices, atomically: true, encoding: .utf8)
            #expect(try await Self.push(cluster, devices: devices) == 1)
            var accepted = 1

            let shard = try #require(ShardMap(count: Self.shards)).shard(of: token)
            let (owner, session) = try #require(try await Self.owner(of: token, in: cluster))
            #expect(session != 0)
            let h2c = try cluster.port(of: owner, "h2c")

            // The cut: PostgreSQL ends the owner's session; at once, a push straight to it is 503.
            _ = try await server.psql("SELECT pg_terminate_backend(\(session))", database: database)
            let pushsend = try #require(BuiltProducts.path(of: "pushsend"))
            let direct = try await PeerProcess.run(pushsend, ["--url", "http://127.0.0.1:\(h2c)", "--device", token], timeout: .seconds(30))
            #expect(
                direct.status != 0 && (direct.output + direct.errorOutput).contains("ServiceUnavailable"), "\(direct.output)\(direct.errorOutput)")

            // The survivors take the shard over: through the proxy the device is served again.
            let cutAt = ContinuousClock.now
            var served = false
            while !served, ContinuousClock.now - cutAt < .seconds(15) {
                served = try await Self.push(cluster, devices: devices) == 1
                if !served { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served && ContinuousClock.now - cutAt < .seconds(10))
            if served { accepted += 1 }

            // The cut receiver joins again on a new session and takes only free shards.
            let cut = try cluster.receiver(owner).admin
            var rejoined = false
            for _ in 0..<100 where !rejoined {
                let members = try await SilentPushdDeviceTests.admin(cut, "GET", "/v1/cluster").json["members"] as? [[String: Any]] ?? []
                rejoined = members.contains { $0["name"] as? String == "r\(owner)" && $0["session"] as? Int != session }
                if !rejoined { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(rejoined)
            // The shard is held once, on a session other than the one cut, and exactly one receiver
            // says it owns it (the cut one too may have claimed it again: it was free).
            let holder = try await Self.rows(
                server, database: database,
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = \(0x5350_5348) AND objid = \(shard) AND objsubid = 2 AND granted")
            #expect(holder.count == 1 && holder.first != "\(session)", "\(holder)")
            var owners = 0
            for n in 1...3
            where try await SilentPushdDeviceTests.admin(try cluster.receiver(n).admin, "GET", "/v1/cluster/shards/\(shard)").status == 200 {
                owners += 1
            }
            #expect(owners == 1)
            #expect(try await Self.settledShardHolders(server, database: database) == Self.eachShardOnce)
            #expect(try await Self.rows(server, database: database, "SELECT count(*) FROM pushes WHERE device_token = '\(token)'") == ["\(accepted)"])
        }
    }

    /// Live Activities across the cluster, all through the proxy: a channel created at one
    /// receiver is known to every one; one broadcast updates the activities of two devices
    /// owned by different receivers before it is answered; a push-to-start token and an
    /// update token are in their device's shard, so pushes to them reach its owner.
    @Test func aBroadcastReachesTheActivitiesOfDevicesOfEveryReceiver() async throws {
        try await Self.withCluster(arguments: "--profile debugger") { cluster, server, database in
            let app = "com.example.app"
            let jwt = try DevProviderToken.make()
            /// curl over cleartext HTTP/2 with the provider token: the body, or the headers with `-D -`.
            func h2(_ arguments: [String]) async throws -> String {
                let result = try await PeerProcess.run(
                    "curl", ["-s", "--http2-prior-knowledge", "-H", "authorization: bearer \(jwt)"] + arguments, timeout: .seconds(30))
                return result.output
            }
            func activities(_ device: String) async throws -> String {
                let list = try await PeerProcess.run("curl", ["-s", "http://127.0.0.1:\(cluster.admin)/v1/devices/\(device)/apps/\(app)/activities"])
                return list.output
            }
            let map = try #require(ShardMap(count: Self.shards))

            // Two devices whose owners differ.
            var phones: [(token: String, owner: Int)] = []
            for n in 1...64 where phones.count < 2 {
                let token = String(format: "%064x", n * 104_729)
                guard let owner = try await Self.owner(of: token, in: cluster)?.receiver, !phones.contains(where: { $0.owner == owner }) else {
                    continue
                }
                phones.append((token, owner))
            }
            try #require(phones.count == 2, "no two devices with different owners")
            let (phoneA, phoneB) = (phones[0].token, phones[1].token)

            // A channel, created through the proxy, is known at every receiver.
            let created = try await h2([
                "-D", "-", "-o", "/dev/null", "-X", "POST", "-d", #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#,
                "http://127.0.0.1:\(cluster.channelsH2C)/1/apps/\(app)/channels",
            ])
            let channel = try #require(
                created.split(separator: "\r\n").first { $0.hasPrefix("apns-channel-id: ") }.map { String($0.dropFirst("apns-channel-id: ".count)) },
                "\(created)")
            for n in 1...3 {
                let listed = try await h2(["http://127.0.0.1:\(try cluster.port(of: n, "channels-h2c"))/1/apps/\(app)/all-channels"])
                #expect(listed.contains(channel), "receiver r\(n) does not list the channel: \(listed)")
            }

            // Phone A's app starts an activity on the channel; phone B's starts from a push to its
            // push-to-start token, which is in phone B's shard.
            let startedA = try await SilentPushdDeviceTests.admin(
                cluster.admin, "POST", "/v1/devices/\(phoneA)/apps/\(app)/activities",
                body: #"{"attributesType": "MatchAttributes", "channel": "\#(channel)"}"#)
            #expect(startedA.status == 201, "\(startedA.json)")
            let appB = try await SilentPushdDeviceTests.admin(cluster.admin, "GET", "/v1/devices/\(phoneB)/apps/\(app)")
            let pushToStart = try #require(appB.json["pushToStartToken"] as? String, "\(appB.json)")
            #expect(map.shard(of: pushToStart) == map.shard(of: phoneB))
            let start = try await h2([
                "-o", "/dev/null", "-w", "%{http_code}", "-H", "apns-topic: \(app).push-type.liveactivity", "-H", "apns-push-type: liveactivity",
                "-H", "apns-priority: 10", "-d",
                #"{"aps":{"timestamp":1767225600,"event":"start","content-state":{"home":0,"away":0,"minute":0},"attributes-type":"MatchAttributes","attributes":{},"alert":{"title":"Kick-off"},"input-push-channel":"\#(channel)"}}"#,
                "http://127.0.0.1:\(cluster.h2c)/3/device/\(pushToStart)",
            ])
            #expect(start == "200")
            #expect(try await activities(phoneB).contains(#""state":"active""#), "phone B's activity did not start")

            // One broadcast through the proxy: both activities have it when it is answered.
            let broadcast = try await h2([
                "-o", "/dev/null", "-w", "%{http_code}", "-H", "apns-channel-id: \(channel)", "-H", "apns-push-type: LiveActivity",
                "-H", "apns-priority: 10", "-H", "apns-expiration: 0", "-d", "@" + Repository.root + "/payloads/liveactivity-broadcast.json",
                "http://127.0.0.1:\(cluster.h2c)/4/broadcasts/apps/\(app)",
            ])
            #expect(broadcast == "200")
            for phone in [phoneA, phoneB] {
                let list = try await activities(phone)
                #expect(list.contains(#""contentState":{"home": 1, "away": 0, "minute": 15}"#), "\(phone): \(list)")
                #expect(list.contains(#""applied":true"#), "\(list)")
            }
            let recorded = try await Self.rows(server, database: database, "SELECT count(*) FROM broadcasts")
            #expect(recorded == ["1"], "the broadcast is recorded once")

            // An update token is in its device's shard too: an update pushed to it through the
            // proxy reaches the activity at its owner.
            let startedToken = try await SilentPushdDeviceTests.admin(
                cluster.admin, "POST", "/v1/devices/\(phoneA)/apps/\(app)/activities", body: #"{"attributesType": "MatchAttributes"}"#)
            let updateToken = try #require(startedToken.json["pushToken"] as? String, "\(startedToken.json)")
            #expect(map.shard(of: updateToken) == map.shard(of: phoneA))
            let update = try await h2([
                "-o", "/dev/null", "-w", "%{http_code}", "-H", "apns-topic: \(app).push-type.liveactivity", "-H", "apns-push-type: liveactivity",
                "-d", #"{"aps":{"timestamp":1767226600,"event":"update","content-state":{"home":2,"away":0,"minute":30}}}"#,
                "http://127.0.0.1:\(cluster.h2c)/3/device/\(updateToken)",
            ])
            #expect(update == "200")
            #expect(try await activities(phoneA).contains(#""contentState":{"home":2,"away":0,"minute":30}"#))
        }
    }

    /// A broadcast answered while its activity's device had no owner (the owner stopped, and
    /// the survivor had not claimed its shard yet) reaches the activity when the survivor
    /// claims the shard, and its decision says why it came late. Two receivers on one
    /// database, no proxy: the broadcast goes straight to the survivor.
    @Test func aBroadcastAcceptedWhileAShardHadNoOwnerReachesItsActivityWhenTheShardIsClaimed() async throws {
        let server = try #require(PostgresServer.current)
        let url = server.url(database: try await server.newDatabase())
        let app = "com.example.app"
        let device = String(repeating: "5a", count: 32)
        func member(_ name: String, claimInterval: String) async throws -> (PeerProcess, [String: Int]) {
            try await SilentPushdProcessTests.startWithPorts(
                [
                    "--listen-channels-h2c", "127.0.0.1:0", "--cluster-shards", "2", "--cluster-claim-interval", claimInterval,
                    "--cluster-name", name, "--profile", "debugger",
                ], store: url)
        }
        func owned(_ admin: Int) async throws -> [Int] {
            try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/cluster").json["owned"] as? [Int] ?? []
        }
        let jwt = try DevProviderToken.make()
        func h2(_ arguments: [String]) async throws -> String {
            try await PeerProcess.run(
                "curl", ["-s", "--http2-prior-knowledge", "-H", "authorization: bearer \(jwt)"] + arguments, timeout: .seconds(30)
            ).output
        }

        // r1 owns both shards; r2, claiming every 10 s (so the broadcast below lands before its next claim), owns none while r1 lives.
        let (first, firstPorts) = try await member("r1", claimInterval: "200ms")
        defer { first.signal(SIGKILL) }
        let firstAdmin = try #require(firstPorts["admin"])
        for _ in 0..<100 where try await owned(firstAdmin).count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try await owned(firstAdmin) == [0, 1])
        let (second, secondPorts) = try await member("r2", claimInterval: "10s")
        defer { second.signal(SIGKILL) }
        let (secondAdmin, secondH2C) = (try #require(secondPorts["admin"]), try #require(secondPorts["h2c"]))

        // A channel, and an activity on it on r1's device.
        let created = try await h2([
            "-D", "-", "-o", "/dev/null", "-X", "POST", "-d", #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#,
            "http://127.0.0.1:\(try #require(firstPorts["channels-h2c"]))/1/apps/\(app)/channels",
        ])
        let channel = try #require(
            created.split(separator: "\r\n").first { $0.hasPrefix("apns-channel-id: ") }.map { String($0.dropFirst("apns-channel-id: ".count)) },
            "\(created)")
        let started = try await SilentPushdDeviceTests.admin(
            firstAdmin, "POST", "/v1/devices/\(device)/apps/\(app)/activities",
            body: #"{"attributesType": "MatchAttributes", "channel": "\#(channel)"}"#)
        #expect(started.status == 201, "\(started.json)")

        // r1 stops, freeing its shards; before r2's next claim, a broadcast to r2 is answered 200.
        first.signal(SIGTERM)
        #expect(await first.wait(timeout: .seconds(20)).status == 0)
        #expect(try await owned(secondAdmin).isEmpty)
        let answer = try await h2([
            "-o", "/dev/null", "-w", "%{http_code}", "-H", "apns-channel-id: \(channel)", "-H", "apns-push-type: LiveActivity",
            "-H", "apns-priority: 10", "-H", "apns-expiration: 0", "-d", "@" + Repository.root + "/payloads/liveactivity-broadcast.json",
            "http://127.0.0.1:\(secondH2C)/4/broadcasts/apps/\(app)",
        ])
        #expect(answer == "200")
        try #require(try await owned(secondAdmin).isEmpty, "r2 claimed the shard before the broadcast was answered: nothing was missed")

        // r2 claims the shard: the activity has the broadcast, saying it came late.
        var list = ""
        for _ in 0..<200 {
            list = try await PeerProcess.run(
                "curl", ["-s", "http://127.0.0.1:\(secondAdmin)/v1/devices/\(device)/apps/\(app)/activities"]
            ).output
            if list.contains(#""home": 1"#) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(list.contains(#""contentState":{"home": 1, "away": 0, "minute": 15}"#), "\(list)")
        #expect(list.contains("while no receiver of the cluster held this device"), "\(list)")
        second.signal(SIGTERM)
        #expect(await second.wait(timeout: .seconds(20)).status == 0)
    }

    /// A receiver given another shard count or kind of clock than its running cluster's, or a
    /// running receiver's name, a cluster without
    /// PostgreSQL or with a PostgreSQL that is down, refuses to start: exit code 2 and one
    /// line, which names the URL without its password.
    @Test func aWrongShardCountOrAStoreThatIsNotPostgreSQLOrIsDownStopsStartUpWithExitTwo() async throws {
        let server = try #require(PostgresServer.current)
        let url = server.url(database: try await server.newDatabase())
        let (first, _, _, _) = try await SilentPushdProcessTests.start(["--cluster-shards", "8", "--cluster-name", "one"], store: url)
        defer { first.signal(SIGKILL) }
        func start(_ arguments: [String]) async throws -> PeerResult {
            try await PeerProcess.run(
                try SilentPushdProcessTests.binary(), ["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off"] + arguments,
                timeout: .seconds(30))
        }
        let nowhere = try LoopbackPort.free()
        for (arguments, text) in [
            (["--store", url, "--cluster-shards", "4"], "--cluster-shards 4 differs"),
            (["--store", url, "--cluster-shards", "8", "--clock", "manual"], "give every receiver the same --clock"),
            (["--store", url], "is used by a running cluster of 8 shards; give this receiver --cluster-shards 8 to join it"),
            (
                ["--store", "postgres://silentpush:\(PostgresServer.password)@127.0.0.1:\(nowhere)/nowhere", "--cluster-shards", "8"],
                "postgres://silentpush@127.0.0.1:\(nowhere)/nowhere"
            ),
            (["--store", "memory", "--cluster-shards", "4"], "--cluster-shards needs a PostgreSQL --store"),
            (["--store", url, "--cluster-shards", "0"], "--cluster-shards must be a whole number from 1 to 1024"),
            (["--store", url, "--cluster-shards", "8", "--fresh"], "--fresh cannot empty a store a cluster shares"),
            (["--store", url, "--cluster-shards", "8", "--cluster-claim-interval", "10ms"], "--cluster-claim-interval must be at least 100ms"),
            (
                ["--store", url, "--cluster-shards", "8", "--cluster-name", "one"],
                "is named 'one' already; give each receiver its own --cluster-name"
            ),
        ] {
            let result = try await start(arguments)
            #expect(result.status == 2, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.split(separator: "\n").count == 1, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.contains(text), "\(arguments): \(result.errorOutput)")
            #expect(!result.errorOutput.contains(PostgresServer.password))
        }
    }
}
