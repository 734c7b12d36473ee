import Foundation
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `silentpushd --store postgres://…` against a real PostgreSQL server: an empty database
/// migrated at start-up, every push answered 200 in it after a kill -9, a restart that
/// resumes from it, and bad input stopped with exit code 2 and one line that never holds the
/// password.
@Suite(.postgres) struct PostgresStoreLiveTests {
    @Test func everyPushAnswered200IsInPostgreSQLAfterAKillAndARestartResumesFromIt() async throws {
        let server = try #require(PostgresServer.current)
        let url = server.url(database: try await server.newDatabase())
        let (process, _, h2c, _) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: url)
        let accepted = try await SilentPushdDeviceTests.streamPushes(h2c: h2c, enough: 1_000) { process.signal(SIGKILL) }
        let result = await process.wait(timeout: .seconds(10))
        #expect(result.status != 0)
        #expect(accepted.count >= 1_000)
        #expect(!result.errorOutput.contains(PostgresServer.password))

        // The database as the killed process left it (its session, and the owner lock, ended with it).
        do {
            let store = try await PushStore.open(.postgres(try PostgresURL(url)))
            var missing: [String] = []
            for id in accepted where try await store.push(apnsID: id) == nil { missing.append(id) }
            #expect(missing.isEmpty, "\(missing.count) of \(accepted.count) pushes answered 200 are not in PostgreSQL")
            try await store.close()
        }
        let (restarted, _, _, admin) = try await SilentPushdProcessTests.start(["--profile", "fast", "--log-level", "debug"], store: url)
        for id in accepted.suffix(20) {
            let fate = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(id)")
            #expect(fate.status == 200)
            #expect(SilentPushdDeviceTests.fateAndReasonAgree(fate.json), "\(fate.json)")
        }
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/readyz").status == 200)
        restarted.signal(SIGTERM)
        let stopped = await restarted.wait(timeout: .seconds(20))
        #expect(stopped.status == 0, "\(stopped.errorOutput)")
        #expect(stopped.errorOutput.contains("resumed"), "the restart says what it resumed: \(stopped.errorOutput)")
        #expect(!stopped.errorOutput.contains(PostgresServer.password), "a log line holds the password")
    }

    /// PostgreSQL stops under a running receiver, alone or in a cluster: pushes are answered
    /// 503 `ServiceUnavailable` and `/readyz` fails, and every push answered 200 before is
    /// kept. Once the server is back, the same process takes pushes and `/readyz` passes.
    @Test(arguments: [[], ["--cluster-shards", "4", "--cluster-claim-interval", "200ms"]])
    func aStoreThatGoesDownIsAnswered503AndTheReceiverRecoversWithoutARestart(_ cluster: [String]) async throws {
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(
                ["--profile", "fast"] + cluster, store: server.url(database: database))
            defer { process.signal(SIGKILL) }
            let client = try await TestPushClient.connect(port: h2c)
            var accepted: [String] = []
            var refused: [TestPushResponse] = []
            /// Pushes until `done` holds for an answer, for at most `limit`; true if it held.
            func push(until done: (TestPushResponse) async throws -> Bool, within limit: Duration) async throws -> Bool {
                let clock = ContinuousClock()
                let end = clock.now + limit
                while clock.now < end {
                    let answer = try await client.push(apnsID: UUID().uuidString.lowercased())
                    if answer.status == 200 { accepted.append(answer.apnsID) } else { refused.append(answer) }
                    if try await done(answer) { return true }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return false
            }
            #expect(try await push(until: { $0.status == 200 }, within: .seconds(10)))

            try await server.halt()
            let down = try await push(until: { $0.status == 503 }, within: .seconds(10))
            #expect(down, "a push is refused once the store is gone")
            let readiness = try await SilentPushdDeviceTests.admin(admin, "GET", "/readyz")
            #expect(readiness.status == 503, "\(readiness.json)")
            #expect(!"\(readiness.json)".contains(PostgresServer.password))
            // The records cannot be read now: 503, a retry passes once the store is back.
            let stats = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/stats")
            #expect(stats.status == 503, "\(stats.json)")
            if !cluster.isEmpty {
                // The cluster as this receiver holds it, and why its peers cannot be read.
                let state = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/cluster")
                #expect(state.status == 200 && state.json["storeError"] is String && state.json["members"] is NSNull, "\(state.json)")
            }
            // Down for a few claim intervals: still refused, nothing answered 200.
            let acceptedWhileDown = accepted.count
            _ = try await push(until: { _ in false }, within: .seconds(2))
            #expect(accepted.count == acceptedWhileDown, "a push was answered 200 while the store was down")
            #expect(!refused.isEmpty && refused.allSatisfy { $0.status == 503 && $0.reason == .serviceUnavailable }, "\(refused)")

            try await server.resume()
            let back = try await push(
                until: { answer in
                    guard answer.status == 200 else { return false }
                    return try await SilentPushdDeviceTests.admin(admin, "GET", "/readyz").status == 200
                }, within: .seconds(30))
            #expect(back, "the receiver takes pushes again without a restart")
            await client.close()

            let stored = try await server.psql("SELECT apns_id FROM pushes", database: database)
            let ids = Set(stored.output.split(separator: "\n").map(String.init))
            #expect(Set(accepted).isSubset(of: ids), "\(Set(accepted).subtracting(ids).count) pushes answered 200 are not in PostgreSQL")
            #expect(!refused.contains { ids.contains($0.apnsID) }, "a push answered 503 was recorded")

            process.signal(SIGTERM)
            let stopped = await process.wait(timeout: .seconds(20))
            #expect(stopped.status == 0, "\(stopped.errorOutput)")
            #expect(!stopped.errorOutput.contains(PostgresServer.password), "a log line holds the password")
            #expect(stopped.errorOutput.contains("check that PostgreSQL is up and reachable"), "\(stopped.errorOutput)")
        }
    }

    /// A store that comes back is found taking writes with no push to find it out: the first
    /// push after it is answered 200, not refused to start a probe.
    @Test func aStoreThatComesBackIsProbedWithNoPushToProbeIt() async throws {
        try await PostgresServer.with { server in
            let (process, _, h2c, _) = try await SilentPushdProcessTests.start(store: server.url(database: try await server.newDatabase()))
            defer { process.signal(SIGKILL) }
            let client = try await TestPushClient.connect(port: h2c)
            #expect(try await client.push().status == 200)
            try await server.halt()
            var refused = false
            for _ in 0..<50 where !refused {
                refused = try await client.push().status == 503
                if !refused { try await Task.sleep(for: .milliseconds(100)) }
            }
            try #require(refused, "a push is refused once the store is gone")
            try await server.resume()
            try await Task.sleep(for: .seconds(4))  // a probe a second, and the reconnect
            let first = try await client.push()
            #expect(first.status == 200, "\(first.status) \(String(describing: first.reason))")
            await client.close()
        }
    }

    /// A receiver whose session ended (PostgreSQL restarted) while a second receiver took the
    /// store writes nothing more: what it held of its devices is the other's now. Its pushes
    /// are answered 503, `/readyz` and its log say why; the second goes on.
    @Test func aReceiverWhoseStoreAnotherTookWhileItsSessionWasGoneWritesNothingMore() async throws {
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let (first, _, firstPort, firstAdmin) = try await SilentPushdProcessTests.start(
                ["--profile", "fast"], store: server.url(database: database))
            defer { first.signal(SIGKILL) }
            let client = try await TestPushClient.connect(port: firstPort)
            #expect(try await client.push().status == 200)
            try await server.restart(downFor: .zero)
            let (second, _, secondPort, _) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: server.url(database: database))
            defer { second.signal(SIGKILL) }
            var answers: [Int] = []
            for _ in 0..<3 { answers.append((try? await client.push().status) ?? 0) }
            #expect(answers.allSatisfy { $0 == 503 }, "\(answers)")
            let readiness = try await SilentPushdDeviceTests.admin(firstAdmin, "GET", "/readyz")
            #expect(readiness.status == 503 && "\(readiness.json)".contains("another receiver owned the store"), "\(readiness.json)")
            await client.close()
            let other = try await TestPushClient.connect(port: secondPort)
            #expect(try await other.push().status == 200)
            await other.close()
            first.signal(SIGKILL)
            let log = await first.wait(timeout: .seconds(20)).errorOutput
            #expect(log.contains("another receiver owns the store now"), "\(log)")
            #expect(!log.contains(PostgresServer.password))
            let rows = try await server.psql("SELECT count(*) FROM pushes", database: database)
            #expect(rows.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(rows.output)")
        }
    }

    /// An export asked for while PostgreSQL is down is a 503 problem document, as the JSON
    /// page is, not a 200 whose stream breaks off; once the server is back it streams.
    @Test func anExportWhileTheStoreIsDownIsA503() async throws {
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: server.url(database: database))
            defer { process.signal(SIGKILL) }
            let client = try await TestPushClient.connect(port: h2c)
            defer { Task { await client.close() } }
            #expect(try await client.push().status == 200)
            func export(_ accept: String, _ path: String) async throws -> (status: String, body: String) {
                let result = try await PeerProcess.run(
                    "curl", ["-sS", "-H", "accept: \(accept)", "-w", "\n%{http_code}", "http://127.0.0.1:\(admin)\(path)"], timeout: .seconds(60))
                let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
                return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
            }

            try await server.halt()
            for (accept, path) in [("text/csv", "/v1/pushes"), ("application/x-ndjson", "/v1/pushes"), ("text/csv", "/v1/wakes")] {
                let answer = try await export(accept, path)
                #expect(answer.status == "503" && answer.body.contains("the store cannot be reached now"), "\(accept) \(path): \(answer)")
            }
            try await server.resume()
            var streamed = false
            for _ in 0..<100 where !streamed {
                let answer = try await export("text/csv", "/v1/pushes")
                streamed = answer.status == "200" && answer.body.split(separator: "\n").count == 2
                if !streamed { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(streamed, "the export did not stream once the store was back")
        }
    }

    /// A database of a newer schema, a server that is not there, a second receiver on a
    /// database in use, and a URL that is not one: exit code 2, one line, no password.
    @Test func badStoresStopStartUpWithExitTwoAndOneLineWithoutThePassword() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let url = server.url(database: database)
        let shown = server.url(withPassword: false, database: database)
        func start(_ store: String) async throws -> PeerResult {
            try await PeerProcess.run(
                try SilentPushdProcessTests.binary(),
                ["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", store], timeout: .seconds(30))
        }
        func expectOneLine(_ result: PeerResult, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(result.status == 2, "\(result.errorOutput)", sourceLocation: sourceLocation)
            #expect(result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)", sourceLocation: sourceLocation)
            #expect(result.errorOutput.contains(text), "\(result.errorOutput)", sourceLocation: sourceLocation)
            #expect(!result.errorOutput.contains(PostgresServer.password), "\(result.errorOutput)", sourceLocation: sourceLocation)
        }

        // In use by another receiver: refused while it runs.
        let (first, _, _, _) = try await SilentPushdProcessTests.start([], store: url)
        expectOneLine(try await start(url), containing: "is in use")
        first.signal(SIGTERM)
        _ = await first.wait(timeout: .seconds(20))

        let bumped = try await PeerProcess.run(
            "psql",
            ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", PostgresServer.user, "-d", database, "-c", "UPDATE schema_version SET version = 999"],
            environment: ["PGPASSWORD": PostgresServer.password])
        try #require(bumped.status == 0, "\(bumped.errorOutput)")
        expectOneLine(try await start(url), containing: "schema version 999")
        expectOneLine(try await start(url), containing: shown)

        // Nothing listens there: the line says so in a few words, not in SwiftNIO's.
        let port = try LoopbackPort.free()
        let nobody = try await start("postgres://silentpush:\(PostgresServer.password)@127.0.0.1:\(port)/nowhere")
        expectOneLine(
            nobody, containing: "'postgres://silentpush@127.0.0.1:\(port)/nowhere': cannot connect to PostgreSQL: connection refused (check --store)")
        #expect(!nobody.errorOutput.contains("errno") && !nobody.errorOutput.contains("SingleConnectionFailure"), "\(nobody.errorOutput)")
        expectOneLine(try await start("postgres://silentpush:\(PostgresServer.password)@127.0.0.1:99999/x"), containing: "--store")
        // A wrong password: one from PGPASSWORD is named, as the URL does not show it.
        let wrongInURL = try await start(url.replacingOccurrences(of: ":\(PostgresServer.password)@", with: ":wrong@"))
        expectOneLine(wrongInURL, containing: "password authentication failed")
        #expect(!wrongInURL.errorOutput.contains("PGPASSWORD"), "\(wrongInURL.errorOutput)")
        let wrongInEnvironment = try await PeerProcess.run(
            try SilentPushdProcessTests.binary(), ["--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", shown],
            environment: ["PGPASSWORD": "wrong"], timeout: .seconds(30))
        expectOneLine(wrongInEnvironment, containing: "password authentication failed for user \"silentpush\": the password is PGPASSWORD's")
        // TLS asked of a server that has none: said in words, not as postgres-nio's code.
        expectOneLine(try await start(url + "?sslmode=require"), containing: "the PostgreSQL server does not take TLS connections")
    }
}
