import Foundation
import SilentPushTestSupport
import Testing

/// The throwaway PostgreSQL cluster the store and cluster tests run on: Debian's server,
/// made in a temporary directory, run as a non-root user on a free port, with a password.
@Suite struct PostgresServerTests {
    @Test func aClusterStartsAnswersWithItsPasswordOnlyAndIsGoneAfter() async throws {
        try #require(PostgresServer.isInstalled, "PostgreSQL's server is not installed: run `make test` (it installs it)")
        let server = try await PostgresServer.start()
        let answer = try await server.psql("select current_user, current_database(), (select usesuper from pg_user where usename = current_user)")
        #expect(answer.status == 0 && answer.output == "silentpush|silentpush|t\n", "\(answer.output) \(answer.errorOutput)")
        // The server process is not root's.
        let owner = try await PeerProcess.run("stat", ["-c", "%U", server.directory + "/data"])
        #expect(owner.output == (getuid() == 0 ? "postgres\n" : "\(String(cString: getpwuid(getuid()).pointee.pw_name))\n"))
        // Over TCP, a wrong password is refused.
        let refused = try await PeerProcess.run(
            "psql", ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", PostgresServer.user, "-c", "select 1"], environment: ["PGPASSWORD": "wrong"])
        #expect(refused.status != 0 && refused.errorOutput.contains("password authentication failed"), "\(refused.errorOutput)")
        // Down and up again on the same port, with what was committed.
        #expect(try await server.psql("create table kept (n int); insert into kept values (7)").status == 0)
        try await server.restart()
        #expect(try await server.psql("select n from kept").output == "7\n")
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.directory))
        #expect(try await server.psql("select 1").status != 0)
    }
}
