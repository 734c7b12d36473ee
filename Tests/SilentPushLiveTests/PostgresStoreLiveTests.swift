import Foundation
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
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

        let port = try LoopbackPort.free()
        expectOneLine(
            try await start("postgres://silentpush:\(PostgresServer.password)@127.0.0.1:\(port)/nowhere"),
            containing: "postgres://silentpush@127.0.0.1:\(port)/nowhere")
        expectOneLine(try await start("postgres://silentpush:\(PostgresServer.password)@127.0.0.1:99999/x"), containing: "--store")
    }
}
