import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The live timeline at the admin listener's `/`, loaded in headless Chromium (Debian's
/// `chromium`, installed by `make test`) after a scripted run.
@Suite struct TimelinePageTests {
    static func dom(of url: String) async throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let result = try await PeerProcess.run(
            "chromium",
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--virtual-time-budget=3000",
                "--dump-dom", url,
            ], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.errorOutput)")
        return result.output
    }

    @Test func theWakesOfAScriptedRunAreOnThePage() async throws {
        try #require(PeerProcess.isInstalled("chromium"), "chromium is not installed: run `make test` (it installs it)")
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        // The first wakes the app, the second is coalesced into the third, which wakes it 15 minutes on.
        for (n, advance) in [(1, 420), (2, 420), (3, 420)] {
            #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200)
            #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": \#(advance)}"#).status == 200)
        }
        // The fourth arrives 6 minutes after the last wake: it waits, and the page says why.
        #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(4)).status == 200)
        await client.close()

        let page = try await Self.dom(of: "http://127.0.0.1:\(admin)/")
        #expect(page.contains(#"class="waiting" data-apns-id="\#(SilentPushdDeviceTests.apnsID(4))" data-why-rule="minimumInterval""#))
        #expect(page.contains("waiting: next wake at"), "\(page.prefix(3000))")
        #expect(page.contains("SilentPush timeline"))
        #expect(page.contains(#"data-wake-id="1""#) && page.contains(#"data-wake-id="2""#), "\(page.prefix(2000))")
        #expect(!page.contains(#"data-wake-id="3""#))
        #expect(page.contains("wake 2 at") && page.contains("coalesced \(SilentPushdDeviceTests.apnsID(2))"))
        #expect(page.contains(#"class="push fate-coalesced" data-apns-id="\#(SilentPushdDeviceTests.apnsID(2))""#))
        #expect(page.contains(#"data-result="noData""#))
    }

    @Test func taskRunsAreDrawnWithTheirKindAndOutcome() async throws {
        try #require(PeerProcess.isInstalled("chromium"), "chromium is not installed: run `make test` (it installs it)")
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["com.example.app.refresh"], "backgroundModes": ["fetch"]}}}"#
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path, "--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let tasks = "/v1/devices/\(String(repeating: "ab", count: 32))/apps/com.example.app/tasks"
        let submitted = try await SilentPushdDeviceTests.admin(
            admin, "POST", tasks, body: #"{"identifier": "com.example.app.refresh", "kind": "refresh"}"#)
        #expect(submitted.status == 201)
        let page = try await Self.dom(of: "http://127.0.0.1:\(admin)/")
        #expect(
            page.contains(#"class="task outcome-completed" data-run-id="1" data-kind="refresh" data-outcome="completed""#), "\(page.prefix(3000))")
        #expect(page.contains("refresh task com.example.app.refresh, run 1 at"))
        #expect(page.contains("1 task runs"))
    }
}
