import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `--fetch-exec` commands, run for real by `/bin/sh`.
@Suite struct ExecFetchHandlerTests {
    static let wake = Wake(
        id: 7, deviceToken: SamplePush.deviceToken, topic: SamplePush.topic, apnsID: "00000000-0000-4000-8000-000000000007",
        payload: Array(#"{"aps":{"content-available":1},"feed":"sports"}"#.utf8), priority: .normal,
        coalescedAPNsIDs: ["00000000-0000-4000-8000-000000000005", "00000000-0000-4000-8000-000000000006"],
        startedAt: DeviceInstant(millisecondsSinceEpoch: 0), deadline: DeviceInstant(millisecondsSinceEpoch: 30_000))

    static func temporaryPath(_ name: String) -> String {
        Scratch.directory.appendingPathComponent("exec-\(UUID().uuidString)-\(name)").path
    }

    @Test(arguments: [
        ("echo noData", FetchResult.noData),
        ("echo starting; echo newData", .newData),
        ("echo 'failed origin down'", .failed(reason: "origin down")),
        ("echo 'no such host' >&2; exit 3", .failed(reason: "exit 3: no such host")),
        ("echo 'here is some garbage'", .failed(reason: "unexpected result line: here is some garbage")),
        ("true", .failed(reason: "no result line")),
        ("echo newData; kill -9 $$", .failed(reason: "killed by signal 9")),
    ])
    func theLastLineOrTheExitStatusIsTheResult(command: String, expected: FetchResult) async {
        #expect(await ExecFetchHandler(command: command).fetch(Self.wake) == expected)
    }

    @Test func theCommandReadsThePayloadAndTheWakesVariables() async throws {
        let path = Self.temporaryPath("feed")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command =
            #"python3 -c 'import json, sys; print(json.load(sys.stdin)["feed"])' > "# + path
            + #"; echo "$SILENTPUSH_TOKEN $SILENTPUSH_TOPIC $SILENTPUSH_APNS_ID $SILENTPUSH_PRIORITY $SILENTPUSH_COALESCED" >> "# + path
            + "; echo newData"
        #expect(await ExecFetchHandler(command: command).fetch(Self.wake) == .newData)
        let written = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        #expect(
            written == "sports\n\(SamplePush.deviceToken) com.example.app 00000000-0000-4000-8000-000000000007 5 "
                + "00000000-0000-4000-8000-000000000005,00000000-0000-4000-8000-000000000006\n")
    }

    /// The store's password (`PGPASSWORD`) is the receiver's alone: a handler that prints its
    /// environment cannot put it in its wake's record. The rest of the environment is passed.
    @Test func theCommandDoesNotGetTheStoresPassword() async throws {
        setenv("PGPASSWORD", "store-secret-77", 1)
        defer { unsetenv("PGPASSWORD") }
        let environment = ExecFetchHandler.inheritedEnvironment
        #expect(environment["PGPASSWORD"] == nil)
        #expect(environment["PATH"] == ProcessInfo.processInfo.environment["PATH"])
        let path = Self.temporaryPath("environment")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(await ExecFetchHandler(command: "env > \(path); echo newData").fetch(Self.wake) == .newData)
        let written = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        #expect(written.contains("SILENTPUSH_TOKEN=") && !written.contains("store-secret-77"), "\(written)")
    }

    /// The command inherits only its standard input, output and error: a descriptor of the
    /// receiver not marked close-on-exec (as a socket may be) stays out of it, so a handler
    /// that outlives a killed receiver holds none of its ports or store sessions.
    @Test func theCommandInheritsNoDescriptorOfTheReceiver() async throws {
        let path = Self.temporaryPath("descriptors")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let held = open("/dev/null", O_RDONLY)
        try #require(held > 2)
        defer { close(held) }
        // What each of the shell's descriptors is (beside the three pipes, the shell's own
        // redirection to the file).
        let command = "for fd in /proc/$$/fd/*; do readlink $fd; done > \(path); echo newData"
        #expect(await ExecFetchHandler(command: command).fetch(Self.wake) == .newData)
        let targets = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self).split(separator: "\n")
        #expect(targets.filter { $0.hasPrefix("pipe:") }.count == 3, "\(targets)")
        #expect(!targets.contains("/dev/null") && !targets.contains { $0.hasPrefix("socket:") }, "\(targets)")
    }

    @Test func aCommandPastItsDeadlineLosesItsWholeProcessGroup() async throws {
        let path = Self.temporaryPath("group")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The shell, a child that ignores SIGTERM and a grandchild: all in one group.
        let command = "echo $$ > \(path); (trap '' TERM; sleep 60) & sh -c 'sleep 60' & wait; echo newData"
        let handler = ExecFetchHandler(command: command, killGrace: .milliseconds(300))
        let fetch = Task { await handler.fetch(Self.wake) }
        var group: pid_t = 0
        for _ in 0..<200 where group == 0 {
            group =
                pid_t(
                    String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if group == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await Task.sleep(for: .milliseconds(200))  // let the children start
        #expect(kill(-group, 0) == 0)
        fetch.cancel()
        #expect(await fetch.value == .deadlineExceeded)
        var gone = false
        for _ in 0..<200 where !gone {
            gone = kill(-group, 0) != 0 && errno == ESRCH
            if !gone { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(gone, "process group \(group) outlived the deadline")
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(group)"), "the shell was not reaped")
    }
}
