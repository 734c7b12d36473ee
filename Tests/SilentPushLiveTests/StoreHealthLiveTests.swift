import Foundation
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// A store that stops taking writes at runtime: pushes get 503, `/readyz` fails, `/healthz`
/// stays alive, and both recover without a restart once writes succeed again.
///
/// The fault is a full disk (a small tmpfs filled up). A read-only remount would be the
/// other real one, but Linux refuses it (EBUSY) while the store's files are open for writing.
@Suite(.serialized) struct StoreHealthLiveTests {
    /// Mounting needs root (CI runs as root); elsewhere the test cannot make the fault.
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let probe = Scratch.directory.appendingPathComponent("mount-probe-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        let mounted = (try? Process.run(URL(fileURLWithPath: "/bin/mount"), arguments: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]))
        mounted?.waitUntilExit()
        guard mounted?.terminationStatus == 0 else { return false }
        let unmounted = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [probe])
        unmounted?.waitUntilExit()
        return true
    }()

    static func mount(_ arguments: [String]) async throws {
        let result = try await PeerProcess.run("/bin/mount", arguments, timeout: .seconds(30))
        try #require(result.status == 0, "mount \(arguments): \(result.errorOutput)")
    }

    /// A new directory on a tmpfs of 8 MB, for a store a test fills up; `unmount` it after.
    static func smallDisk(_ name: String) async throws -> String {
        let directory = Scratch.directory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await mount(["-t", "tmpfs", "-o", "size=8m", "tmpfs", directory])
        return directory
    }

    static func unmount(_ directory: String) {
        _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: ["-l", directory])
    }

    /// Fills `directory`'s disk with a file of zeros; returns its path, to remove for room again.
    static func fill(_ directory: String) async throws -> String {
        let filler = directory + "/filler"
        _ = try await PeerProcess.run("/bin/sh", ["-c", "cat /dev/zero > '\(filler)'"], timeout: .seconds(60))
        return filler
    }

    static func get(_ admin: Int, _ path: String) async throws -> Int {
        let result = try await PeerProcess.run(
            "curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(admin)\(path)"], timeout: .seconds(30))
        return Int(result.output) ?? 0
    }

    @Test(.enabled(if: canMount)) func aStoreThatCannotBeWrittenGives503AndAFailingReadyzThenRecovers() async throws {
        let directory = try await Self.smallDisk("full")
        defer { Self.unmount(directory) }
        let store = directory + "/store.sqlite"
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: store)
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        defer { Task { await client.close() } }
        var accepted: [String] = []

        let before = try await client.push(priority: .normal)
        #expect(before.status == 200)
        accepted.append(before.apnsID)
        #expect(try await Self.get(admin, "/readyz") == 200)

        // The disk fills up: the WAL may still have room for a few commits, then none.
        let filler = try await Self.fill(directory)
        var refused: TestPushResponse?
        for _ in 0..<20_000 where refused == nil {
            let answer = try await client.push(priority: .normal)
            if answer.status == 200 { accepted.append(answer.apnsID) } else { refused = answer }
        }
        let firstRefusal = try #require(refused, "the store took 20,000 pushes on a full disk")
        #expect(firstRefusal.status == 503 && firstRefusal.reason == .serviceUnavailable, "\(firstRefusal)")
        let again = try await client.push(priority: .normal)
        #expect(again.status == 503 && again.reason == .serviceUnavailable, "\(again)")
        #expect(try await Self.get(admin, "/readyz") == 503)
        #expect(try await Self.get(admin, "/healthz") == 200)

        try FileManager.default.removeItem(atPath: filler)
        var recovered = false
        for _ in 0..<50 where !recovered {
            let answer = try await client.push(priority: .normal)
            if answer.status == 200 {
                recovered = true
                accepted.append(answer.apnsID)
            } else {
                #expect(answer.status == 503, "\(answer)")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(recovered, "pushes were still refused after the disk had room again")
        #expect(try await Self.get(admin, "/readyz") == 200)

        // Every 200 was recorded.
        for id in accepted.suffix(50) + accepted.prefix(1) {
            #expect(try await Self.get(admin, "/v1/pushes/\(id)") == 200, "push \(id) answered 200 has no record")
        }
        process.signal(SIGTERM)
        let log = await process.wait(timeout: .seconds(30)).errorOutput
        let lines = log.split(separator: "\n")
        #expect(lines.filter { $0.contains("the store cannot be written") }.count == 1, "\(log)")
        #expect(lines.filter { $0.contains("the store takes writes again") }.count == 1, "\(log)")
    }

    /// While the store takes no writes, a device change asked of the admin API is answered
    /// 503 with nothing changed, as a push is (it would be gone at the next restart); once
    /// the store takes writes again, the same change is taken.
    @Test(.enabled(if: canMount)) func aDeviceChangeWhileTheStoreTakesNoWritesIs503AndChangesNothing() async throws {
        let directory = try await Self.smallDisk("held")
        defer { Self.unmount(directory) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--profile", "fast"], store: directory + "/store.sqlite")
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        defer { Task { await client.close() } }
        let device = String(repeating: "ab", count: 32)
        #expect(try await client.push(to: device, priority: .normal).status == 200)
        func patch() async throws -> String {
            try await PeerProcess.run(
                "curl",
                [
                    "-sS", "-X", "PATCH", "-H", "content-type: application/json", "-d", #"{"lowPowerMode":true}"#, "-w", "\n%{http_code}",
                    "http://127.0.0.1:\(admin)/v1/devices/\(device)",
                ], timeout: .seconds(30)
            ).output
        }

        // The disk fills up, and pushes find out.
        let filler = try await Self.fill(directory)
        var refused = false
        for _ in 0..<20_000 where !refused {
            refused = try await client.push(priority: .normal).status == 503
        }
        try #require(refused, "the store took 20,000 pushes on a full disk")
        let answer = try await patch()
        #expect(answer.hasSuffix("\n503") && answer.contains("nothing was changed"), "\(answer)")
        let state = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/v1/devices/\(device)"], timeout: .seconds(30))
        #expect(state.output.contains(#""lowPowerMode":false"#), "\(state.output)")

        // Room again: the change is taken.
        try FileManager.default.removeItem(atPath: filler)
        #expect(try await patch().hasSuffix("\n200"))
        let changed = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/v1/devices/\(device)"], timeout: .seconds(30))
        #expect(changed.output.contains(#""lowPowerMode":true"#), "\(changed.output)")
    }
}
