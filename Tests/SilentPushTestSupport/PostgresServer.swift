import Foundation

/// A throwaway PostgreSQL cluster for tests: Debian's server (`make test` installs it),
/// made by `initdb` in a new temporary directory and run as the `postgres` user (the server
/// refuses root), listening on 127.0.0.1 on a free port. It has one password user and one
/// database, both `silentpush`. `stop()` stops it and removes the directory.
public final class PostgresServer: Sendable {
    /// The role and database the tests use.
    public static let user = "silentpush"
    /// The role's password: a test's own, never a secret.
    public static let password = "test-password-not-secret"

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// Its data, log and socket directory.
    public let directory: String
    private let binaries: String
    private let runAs: [String]

    /// `postgres://silentpush:PASSWORD@127.0.0.1:PORT/DATABASE`, or without the password;
    /// `through` another port on 127.0.0.1 that leads to the server (a `TCPRelay`'s).
    public func url(withPassword: Bool = true, database: String = PostgresServer.user, through relayPort: Int? = nil) -> String {
        "postgres://\(Self.user)\(withPassword ? ":" + Self.password : "")@127.0.0.1:\(relayPort ?? port)/\(database)"
    }

    /// A new empty database on this server; its name.
    public func newDatabase() async throws -> String {
        let name = "t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let made = try await psql("CREATE DATABASE \(name)")
        guard made.status == 0 else { throw Failure(description: "CREATE DATABASE: \(made.errorOutput)") }
        return name
    }

    private init(port: Int, directory: String, binaries: String, runAs: [String]) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
    }

    /// Why the server could not be made or started, with what it said.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where Debian keeps the server's programs (`/usr/lib/postgresql/VERSION/bin`, the
    /// newest), or nil when they are on PATH (Homebrew) or missing.
    static func debianBinaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().last.map { "\(root)/\($0)/bin" }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
    }

    /// Whether a server can be started here.
    public static var isInstalled: Bool { debianBinaries() != nil || PeerProcess.isInstalled("initdb") }

    /// Makes and starts a new cluster; a port taken meanwhile is tried again with another.
    public static func start() async throws -> PostgresServer {
        guard isInstalled else { throw Failure(description: "PostgreSQL's server is not installed: run `make test` (it installs it)") }
        let binaries = debianBinaries().map { $0 + "/" } ?? ""
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // As root, everything runs as `postgres`, which owns the directory.
        let runAs = getuid() == 0 ? ["runuser", "-u", "postgres", "--"] : []
        if getuid() == 0 {
            let owned = try await PeerProcess.run("chown", ["postgres:postgres", directory])
            guard owned.status == 0 else { throw Failure(description: "chown: \(owned.errorOutput)") }
        }
        try Data(password.utf8).write(to: URL(fileURLWithPath: directory + "/password"))
        if getuid() == 0 { _ = try await PeerProcess.run("chown", ["postgres:postgres", directory + "/password"]) }
        let made = try await run(
            runAs, binaries + "initdb",
            [
                "-D", directory + "/data", "-U", user, "--pwfile", directory + "/password", "--auth-local", "trust", "--auth-host",
                "scram-sha-256", "--no-sync", "-E", "UTF8", "--locale", "C",
            ])
        guard made.status == 0 else { throw Failure(description: "initdb: \(made.output) \(made.errorOutput)") }
        var lastError = ""
        for _ in 0..<3 {
            let port = try LoopbackPort.free()
            let started = try await run(runAs, binaries + "pg_ctl", startArguments(directory: directory, port: port))
            if started.status == 0 {
                let server = PostgresServer(port: port, directory: directory, binaries: binaries, runAs: runAs)
                let created = try await run(runAs, binaries + "createdb", ["-h", directory, "-p", "\(port)", "-U", user, user])
                guard created.status == 0 else {
                    await server.stop()
                    throw Failure(description: "createdb: \(created.errorOutput)")
                }
                return server
            }
            lastError = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? started.errorOutput
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw Failure(description: "pg_ctl start: \(lastError.suffix(500))")
    }

    /// Turns TLS on, with a new self-signed certificate for 127.0.0.1, and refuses every
    /// connection without it; returns the certificate's PEM file (the authority to trust).
    public func requireTLS() async throws -> String {
        let certificate = directory + "/server.crt"
        let key = directory + "/server.key"
        let made = try await PeerProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", certificate,
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2",
            ])
        guard made.status == 0 else { throw Failure(description: "openssl: \(made.errorOutput)") }
        if !runAs.isEmpty { _ = try await PeerProcess.run("chown", ["postgres:postgres", certificate, key]) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        let hba = directory + "/data/pg_hba.conf"
        let rules = (try? String(contentsOfFile: hba, encoding: .utf8)) ?? ""
        try ("hostnossl all all 127.0.0.1/32 reject\n" + rules).write(toFile: hba, atomically: false, encoding: .utf8)
        for setting in ["ssl = on", "ssl_cert_file = '\(certificate)'", "ssl_key_file = '\(key)'"] {
            let set = try await psql("ALTER SYSTEM SET " + setting)
            guard set.status == 0 else { throw Failure(description: "ALTER SYSTEM: \(set.errorOutput)") }
        }
        let reloaded = try await psql("SELECT pg_reload_conf()")
        guard reloaded.status == 0 else { throw Failure(description: "pg_reload_conf: \(reloaded.errorOutput)") }
        try await Task.sleep(for: .milliseconds(300))  // the reload is signalled, not waited for
        return certificate
    }

    /// Runs a new cluster for `body`, then stops it.
    public static func with<Result>(_ body: (PostgresServer) async throws -> Result) async throws -> Result {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs SQL with `psql` as the test role on `database`, over TCP with the password; its output is
    /// unaligned and without headers (`-At`).
    public func psql(_ sql: String, database: String = PostgresServer.user) async throws -> PeerResult {
        try await PeerProcess.run(
            binaries + "psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
            environment: ["PGPASSWORD": Self.password])
    }

    /// Stops the server at once (`immediate`: a crash, as a test that kills it wants) and
    /// removes its directory.
    public func stop() async {
        _ = try? await Self.run(runAs, binaries + "pg_ctl", Self.stopArguments(directory: directory))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the server and starts it again on the same port: a database that went away
    /// and came back.
    public func restart(downFor pause: Duration = .zero) async throws {
        try await halt()
        if pause > .zero { try await Task.sleep(for: pause) }
        try await resume()
    }

    /// Stops the server at once and keeps its data, for `resume()`: a database that went away.
    public func halt() async throws {
        let stopped = try await Self.run(runAs, binaries + "pg_ctl", Self.stopArguments(directory: directory))
        guard stopped.status == 0 else { throw Failure(description: "pg_ctl stop: \(stopped.errorOutput)") }
    }

    /// Starts a halted server again on the same port: the database came back.
    public func resume() async throws {
        let started = try await Self.run(runAs, binaries + "pg_ctl", Self.startArguments(directory: directory, port: port))
        guard started.status == 0 else { throw Failure(description: "pg_ctl start: \(started.errorOutput)") }
    }

    /// `pg_ctl`'s arguments that start the cluster in `directory` on 127.0.0.1:`port` (its
    /// socket in `directory` too) and wait until it takes connections.
    private static func startArguments(directory: String, port: Int) -> [String] {
        [
            "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "30", "-o",
            "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1", "start",
        ]
    }

    /// `pg_ctl`'s arguments that stop the cluster at once (`immediate`: as a crash would).
    private static func stopArguments(directory: String) -> [String] {
        ["-D", directory + "/data", "-m", "immediate", "-w", "stop"]
    }

    private static func run(_ runAs: [String], _ program: String, _ arguments: [String]) async throws -> PeerResult {
        runAs.isEmpty
            ? try await PeerProcess.run(program, arguments, timeout: .seconds(60))
            : try await PeerProcess.run(runAs[0], Array(runAs.dropFirst()) + [program] + arguments, timeout: .seconds(60))
    }
}
