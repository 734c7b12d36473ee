import SilentPushCore
import Testing

/// `--store postgres://…`: read as libpq reads it, and never printed with its password.
@Suite struct PostgresURLTests {
    @Test func aFullURLIsReadWithItsEscapes() throws {
        let url = try PostgresURL("postgres://sp%2Dci:p%40ss%3Aword@db.example:6543/push%20records")
        #expect(url.user == "sp-ci" && url.password == "p@ss:word" && url.host == "db.example" && url.port == 6543)
        #expect(url.database == "push records")
        #expect(url.description == "postgres://sp-ci@db.example:6543/push%20records")
    }

    @Test func thePortAndDatabaseHaveLibpqsDefaults() throws {
        let url = try PostgresURL("postgresql://silentpush@127.0.0.1")
        #expect(url.port == 5432 && url.database == "silentpush" && url.password == nil)
        let v6 = try PostgresURL("postgres://u@[::1]:5433/d")
        #expect(v6.host == "::1" && v6.port == 5433 && v6.description == "postgres://u@[::1]:5433/d")
    }

    @Test func thePasswordComesFromTheURLElsePGPASSWORD() throws {
        #expect(try PostgresURL("postgres://u@h/d", environmentPassword: "env").password == "env")
        #expect(try PostgresURL("postgres://u:url@h/d", environmentPassword: "env").password == "url")
        #expect(try PostgresURL("postgres://u:@h/d").password == "")
    }

    @Test(arguments: [
        ("mysql://u:hunter2@h/d", "a PostgreSQL store is postgres://USER@HOST:PORT/DATABASE"),
        ("postgres://h/d", "names no user"),
        ("postgres://:hunter2@h/d", "names no user"),
        ("postgres://u:hunter2@/d", "names no host"),
        ("postgres://u:hunter2@h:0/d", "the port must be a number from 1 to 65535"),
        ("postgres://u:hunter2@h:65536/d", "the port must be a number from 1 to 65535"),
        ("postgres://u:hunter2@h:99999999999999999999999/d", "the port must be a number from 1 to 65535"),
        ("postgres://u:hunter2@h:-1/d", "the port must be a number from 1 to 65535"),
        ("postgres://u:hunter2@[::1/d", "has a '[' with no ']'"),
        ("postgres://u:hunter2@h/d%zz", "the database has a '%' that is not followed by two hex digits"),
        ("postgres://u:hunter2@h/d%00", "the database is not UTF-8 text"),
        ("postgres://u:hunter2@h/d%ff", "the database is not UTF-8 text"),
        ("postgres://u:hunter2@h/d?sslmode=prefer", "sslmode 'prefer' is not one of disable, require, verify-ca, verify-full"),
        ("postgres://u:hunter2@h/d?connect_timeout=3", "parameters (connect_timeout) are not supported but sslmode and sslrootcert"),
        ("postgres://u@h/d?password=hun@ter2hunter2", "has an '@' after its host"),
        ("postgres://u@h/d@x", "has an '@' after its host"),
        ("postgres://u:hunter2/x@h/d", "or a '/' or '?' in its password: percent-encode them (%40, %2F, %3F)"),
        // A password in the query is no more shown than one in the user part.
        ("postgres://u@h/d?sslmode=require&password=hunter2", "postgres://u@h/d?…: parameters (sslmode, password) are not supported"),
        ("postgres://u@h/d?sslrootcert=%zz", "the sslrootcert has a '%' that is not followed by two hex digits"),
        ("postgres://u@h/d?sslrootcert=/ca.pem", "sslrootcert goes with sslmode=require, verify-ca or verify-full"),
        ("postgres://u:hunter2@h/" + String(repeating: "d", count: 3000), "longer than 2048 bytes"),
    ])
    func aBadURLSaysWhatToFixAndNeverItsPassword(text: String, message: String) {
        #expect(throws: PostgresURL.Problem.self) { try PostgresURL(text) }
        do {
            _ = try PostgresURL(text)
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(!error.description.contains("hunter2"), "\(error.description)")
        }
    }

    /// A line that quotes URLs back shows each without its password, and the rest as it is.
    @Test func aLineQuotingURLsMasksEachPassword() {
        #expect(
            PostgresURL.maskingPasswords(in: "Unexpected argument 'postgres://u:hunter2@h/d' and postgresql://v:pa/ss@h:5/e?x=1 (check --store)")
                == "Unexpected argument 'postgres://u:***@h/d' and postgresql://v:***@h:5/e?… (check --store)")
        #expect(
            PostgresURL.maskingPasswords(in: "cannot open the store 'postgres://u@h/d?sslmode=require': no TLS")
                == "cannot open the store 'postgres://u@h/d?…': no TLS")
        #expect(PostgresURL.maskingPasswords(in: "no URL here: a:b@c, http://u:p@h/x?q=1") == "no URL here: a:b@c, http://u:p@h/x?q=1")
        // A raw password with a quote, a space and an '@' in it is masked whole.
        #expect(PostgresURL.maskingPasswords(in: "Unexpected argument 'postgres://u:hun t'e@r2@h/d'") == "Unexpected argument 'postgres://u:***@h/d'")
        // A URL the message masked already keeps its host, and the words after it their '@'.
        let refused = "--store: postgres://u:***@127.0.0.1:5/d has an '@' after its host, or a '/' or '?' in its password"
        #expect(PostgresURL.maskingPasswords(in: refused) == refused)
        // A raw password that begins as a mask does is still masked whole.
        #expect(PostgresURL.maskingPasswords(in: "'postgres://u:***@x@h/d'") == "'postgres://u:***@h/d'")
    }

    /// The message for an '@' left in a password names the URL's host and database, through
    /// the masking every line of silentpushd's goes through.
    @Test func anAtInAPasswordIsNamedWithTheURLsHost() {
        #expect(throws: PostgresURL.Problem.self) { try PostgresURL("postgres://tricky:p@ss:w/rd%x?y#z@127.0.0.1:59105/tdb") }
        do {
            _ = try PostgresURL("postgres://tricky:p@ss:w/rd%x?y#z@127.0.0.1:59105/tdb")
        } catch {
            let line = PostgresURL.maskingPasswords(in: "--store: \(error.description)")
            #expect(line.contains("127.0.0.1:59105/tdb has an '@' after its host"), "\(line)")
            #expect(!line.contains("ss:w"))
        }
    }

    /// libpq's `sslmode` and `sslrootcert`, read and shown again (they are no secret).
    @Test func theTLSParametersAreReadAsLibpqReadsThem() throws {
        let url = try PostgresURL("postgres://u:hunter2@h/d?sslmode=verify-full&sslrootcert=/etc/ssl/db%20ca.pem")
        #expect(url.tls == .verifyFull && url.rootCertificate == "/etc/ssl/db ca.pem")
        #expect(url.description == "postgres://u@h:5432/d?sslmode=verify-full&sslrootcert=/etc/ssl/db%20ca.pem")
        #expect(try PostgresURL("postgres://u@h/d").tls == .disable)
        #expect(try PostgresURL("postgres://u@h/d?sslmode=require").tls == .require)
    }

    @Test func redactedHidesThePasswordAndTheQuery() {
        #expect(PostgresURL.redacted("postgres://u:hunter2@h:5/d") == "postgres://u:***@h:5/d")
        #expect(PostgresURL.redacted("postgres://u@h/d") == "postgres://u@h/d")
        #expect(PostgresURL.redacted("postgres://u:a@b@h/d") == "postgres://u:***@h/d")
        #expect(PostgresURL.redacted("postgres://u:p?q@h/d?password=hunter2") == "postgres://u:***@h/d?…")
        #expect(PostgresURL.redacted("postgres://h/d?password=hunter2") == "postgres://h/d?…")
        // An '@' in the query is not the user's, and a colon there masks nothing before it.
        #expect(PostgresURL.redacted("postgres://u@h/d?password=hun@ter2") == "postgres://u@h/d?…")
        #expect(PostgresURL.redacted("postgres://u@h/d?password=hunter2@") == "postgres://u@h/d?…")
        #expect(PostgresURL.redacted("postgres://u@h/d?x=hun:ter2@c") == "postgres://u@h/d?…")
    }
}
