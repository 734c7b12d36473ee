import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `silentpushd` and `pushsend` as a service account runs them (the systemd unit's
/// `User=silentpush`): no privilege a socket option could need. Run as root, the tests drop to
/// `nobody` with `setpriv`; as any other user, they run as it.
@Suite struct UnprivilegedLiveTests {
    /// The command prefix that drops root (to uid and gid 65534, `nobody` on every common
    /// distribution, whatever its group is named); none for another user.
    static var unprivileged: [String] { getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [] }

    /// Whether the built binaries can be run that way here: a checkout under a private home
    /// (`/root`, 0700) cannot be reached by `nobody`, and the test does not apply there.
    static func canRun() async -> Bool {
        guard getuid() != 0 || PeerProcess.isInstalled("setpriv"), let binary = BuiltProducts.path(of: "silentpushd") else { return false }
        let command = unprivileged + ["test", "-x", binary]
        return (try? await PeerProcess.run(command[0], Array(command.dropFirst())).status) == 0
    }

    @Test(.enabled("the built binaries can be run as nobody") { await canRun() })
    func aReceiverAndASenderWithoutPrivilegeExchangeAPush() async throws {
        // Somewhere `nobody` may write its ready file; the binaries are readable by all.
        let directory = try Scratch.newDirectory("unprivileged")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o777)
        chmod(Scratch.directory.path, 0o755)
        let ready = directory + "/ready.json"
        let command =
            Self.unprivileged + [
                try SilentPushdProcessTests.binary(), "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--store", "memory",
                "--ready-file", ready,
            ]
        let receiver = try PeerProcess(command[0], Array(command.dropFirst()), environment: ["TMPDIR": directory])
        var stopped = false
        defer { if !stopped { receiver.signal(SIGKILL) } }
        let port = try #require(try await SilentPushdProcessTests.readyPorts(ready, of: receiver, naming: ["h2c"])["h2c"])
        // Before the fix a socket option the kernel grants only root (SO_DEBUG, asked for as
        // TCP_NODELAY at the wrong level) closed every connection: curl's push got no answer.
        let pushed = try await PeerProcess.run(
            "curl",
            [
                "-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", "-d", #"{"aps":{"content-available":1}}"#,
                "http://127.0.0.1:\(port)\(SamplePush.path)",
            ] + SamplePush.headerArguments(jwt: try DevProviderToken.make()))
        #expect(pushed.output == "200", "\(pushed.output) \(pushed.errorOutput)")
        let pushsend = Self.unprivileged + [try #require(BuiltProducts.path(of: "pushsend")), "--url", "http://127.0.0.1:\(port)"]
        let sent = try await PeerProcess.run(pushsend[0], Array(pushsend.dropFirst()), environment: ["HOME": directory, "PATH": "/usr/bin:/bin"])
        #expect(sent.status == 0 && sent.output.hasPrefix("200 "), "\(sent.output) \(sent.errorOutput)")
        receiver.signal(SIGTERM)
        stopped = true
        _ = await receiver.wait(timeout: .seconds(30))
    }
}
