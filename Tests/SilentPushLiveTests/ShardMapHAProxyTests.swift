import Foundation
import SilentPushCore
import SilentPushTestSupport
import Testing

/// The shard function against HAProxy's own: Debian's `haproxy` computes
/// `path,field(4,/),lower,crc32,mod(N)` for `/3/device/{token}`, the expression a cluster's
/// proxy routes with, and it must name the shard `ShardMap` names for every token.
@Suite struct ShardMapHAProxyTests {
    @Test func haproxyNamesTheShardShardMapNames() async throws {
        try #require(PeerProcess.isInstalled("haproxy"), "haproxy is not installed: run `make test` (it installs it)")
        let shards = 5
        let map = try #require(ShardMap(count: shards))
        let directory = Scratch.directory.appendingPathComponent("haproxy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try LoopbackPort.free()
        let config = """
            global
              maxconn 100
            defaults
              mode http
              timeout connect 5s
              timeout client 30s
              timeout server 30s
            frontend shards
              bind 127.0.0.1:\(port)
              http-request return status 200 content-type text/plain lf-string "%[path,field(4,/),lower,crc32,mod(\(shards))]\\n"
            """
        try Data((config + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/haproxy.cfg"))
        let checked = try await PeerProcess.run("haproxy", ["-c", "-f", directory + "/haproxy.cfg"])
        #expect(checked.status == 0, "\(checked.output) \(checked.errorOutput)")
        let proxy = try PeerProcess("haproxy", ["-db", "-f", directory + "/haproxy.cfg"])
        defer { proxy.signal(SIGKILL) }

        // Tokens in both cases and of both lengths APNs gives (32 and 100 bytes).
        let tokens = (0..<1000).map { index -> String in
            let hex = String(UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
            let digits = String(repeating: "0", count: 16 - hex.count) + hex
            let token = String(repeating: digits, count: 13).prefix(index % 2 == 0 ? 64 : 200)
            return index % 3 == 0 ? token.uppercased() : String(token)
        }
        // One curl asks for them all, in order, over one connection.
        let urls = tokens.map { "url = \"http://127.0.0.1:\(port)/3/device/\($0)\"\n" }.joined()
        try Data(urls.utf8).write(to: URL(fileURLWithPath: directory + "/urls"))
        // Once it listens (curl's status is its last URL's: each try is one URL)...
        for _ in 0..<100 {
            if try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(port)/3/device/ff"]).status == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // ... all of them, stopping at the first that fails.
        let answered = try await PeerProcess.run("curl", ["-sS", "--fail-early", "-K", directory + "/urls"])
        let named = answered.output.split(separator: "\n").map { Int($0) }
        #expect(answered.status == 0 && named.count == tokens.count, "curl: \(answered.status) \(answered.errorOutput.prefix(300))")
        let mismatched = zip(tokens, named).filter { token, shard in map.shard(of: token) != shard }
        #expect(mismatched.isEmpty, "\(mismatched.count) differ, e.g. \(mismatched.prefix(2))")
        // Every shard got some: the function spreads what HAProxy routes.
        #expect(Set(named.compactMap { $0 }).count == shards)
    }
}
