import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The live timeline at the admin listener's `/`, in headless Chromium (Debian's `chromium`,
/// installed by `make test`), driven by `Tests/timeline/browse.py` over the DevTools
/// protocol: it clicks what a user clicks and reads what the page then shows.
@Suite struct TimelinePageTests {
    /// What `browse.py` read, in order, after its steps all succeeded.
    struct Browsed {
        var reads: [(selector: String, text: String, html: String)]
        /// What each `evaluate` step's JavaScript returned, as text.
        var evaluated: [String] = []

        /// The text of the last read of `selector`.
        func text(_ selector: String) -> String { reads.last { $0.selector == selector }?.text ?? "" }
        /// The HTML of the last read of `selector`.
        func html(_ selector: String) -> String { reads.last { $0.selector == selector }?.html ?? "" }
        /// Every read of `selector`, in order.
        func all(_ selector: String) -> [(text: String, html: String)] { reads.filter { $0.selector == selector }.map { ($0.text, $0.html) } }
    }

    /// Runs `browse.py` on `url` with `steps` (flag, value), in order.
    static func browse(_ url: String, _ steps: [(String, String)]) async throws -> Browsed {
        try #require(PeerProcess.isInstalled("chromium"), "chromium is not installed: run `make test` (it installs it)")
        let result = try await PeerProcess.run(
            "python3", [Repository.root + "/Tests/timeline/browse.py", url] + steps.flatMap { ["--" + $0.0, $0.1] }, timeout: .seconds(120))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "browse.py: \(result.output) \(result.errorOutput)")
        if let error = object["error"] as? String { Issue.record("browse.py: \(error)") }
        #expect(result.status == 0)
        let reads = (object["reads"] as? [[String: Any]] ?? []).map {
            (selector: $0["selector"] as? String ?? "", text: $0["text"] as? String ?? "", html: $0["html"] as? String ?? "")
        }
        let evaluated = (object["evaluated"] as? [Any] ?? []).map { $0 as? String ?? "\($0)" }
        return Browsed(reads: reads, evaluated: evaluated)
    }

    static func push(_ n: Int) -> String { ".push[data-apns-id=\"\(SilentPushdDeviceTests.apnsID(n))\"]" }

    /// silentpushd on the manual clock (with `extra`), and the pushes `ids` sent to the sample
    /// device over h2c, each answered 200. Returns the process and its h2c and admin ports.
    static func started(_ extra: [String] = [], pushing ids: ClosedRange<Int>) async throws -> (PeerProcess, h2c: Int, admin: Int) {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"] + extra)
        let client = try await TestPushClient.connect(port: h2c)
        for n in ids { #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200) }
        await client.close()
        return (process, h2c, admin)
    }

    /// The page's own fetch (same origin) moving the manual clock an hour on; its value is the status.
    static let advanceAnHour =
        #"fetch("/v1/clock/advance", {method: "POST", headers: {"content-type": "application/json"}, body: '{"seconds": 3600}'}).then(r => r.status)"#

    /// The §4 walk on the manual clock: the page draws it, and clicking a push opens a panel
    /// with its fate and the reason it waits; clicking a wake, what it delivered and coalesced.
    @Test func clickingAPushOpensAPanelWithItsReason() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        // The first wakes the app, the second is coalesced into the third, which wakes it 15 minutes on.
        for n in 1...3 {
            #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200)
            #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 420}"#).status == 200)
        }
        // The fourth arrives 6 minutes after the last wake: it waits, and the panel says why.
        #expect(try await client.push(apnsID: SilentPushdDeviceTests.apnsID(4)).status == 200)
        await client.close()

        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [
                ("expect", Self.push(4)), ("read", "#rows"), ("click", Self.push(4)), ("expect", "#panel[data-kind=push] .why"),
                ("read", "#panel"), ("click", ".wake[data-wake-id=\"2\"]"), ("expect", "#panel[data-kind=wake]"), ("read", "#panel"),
            ])
        let rows = page.html("#rows")
        #expect(rows.contains(#"class="push fate-coalesced" data-apns-id="\#(SilentPushdDeviceTests.apnsID(2))""#), "\(rows.prefix(3000))")
        #expect(rows.contains(#"data-wake-id="1""#) && rows.contains(#"data-wake-id="2""#))
        #expect(!rows.contains(#"data-wake-id="3""#))
        #expect(rows.contains(#"data-result="noData""#))
        // The push's panel (read first), then the wake's.
        let panels = page.all("#panel")
        try #require(panels.count == 2)
        let pushPanel = panels[0]
        #expect(pushPanel.html.contains(#"data-why-rule="minimumInterval""#), "\(pushPanel.html)")
        #expect(pushPanel.text.contains("waiting: next wake at"), "\(pushPanel.text)")
        #expect(pushPanel.text.contains("pending"))
        #expect(pushPanel.text.contains("apns-push-type") && pushPanel.text.contains("background"), "the headers: \(pushPanel.text)")
        #expect(pushPanel.text.contains("content-available"), "the payload: \(pushPanel.text)")
        let wakePanel = panels[1].text
        #expect(wakePanel.contains("wake 2"), "\(wakePanel)")
        #expect(wakePanel.contains(SilentPushdDeviceTests.apnsID(3)) && wakePanel.contains(SilentPushdDeviceTests.apnsID(2)), "\(wakePanel)")
    }

    /// A provider that sends one apns-id again (a retry after 503s) has a dot for each push,
    /// each with its own fate, and each dot opens its own push.
    @Test func pushesThatShareAnAPNsIDEachHaveTheirDotAndFate() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let rule = #"{"match": {"device": "\#(SamplePush.deviceToken)"}, "count": 2, "action": {"reason": "ServiceUnavailable"}}"#
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/faults", body: rule).status == 201)
        let client = try await TestPushClient.connect(port: h2c)
        let id = SilentPushdDeviceTests.apnsID(1)
        #expect(try await [client.push(apnsID: id).status, client.push(apnsID: id).status, client.push(apnsID: id).status] == [503, 503, 200])
        await client.close()
        let pushes = try #require(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes").json["pushes"] as? [[String: Any]])
        let oldest = try #require(pushes.last?["apnsUniqueId"] as? String)
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [
                ("expect", Self.push(1)), ("read", "#rows"), ("click", ".push[data-push-id=\"\(oldest)\"]"), ("expect", "#panel[data-kind=push]"),
                ("read", "#panel"),
            ])
        let rows = page.html("#rows")
        #expect(rows.components(separatedBy: "data-apns-id=\"\(id)\"").count - 1 == 3, "\(rows.prefix(3000))")
        #expect(rows.components(separatedBy: #"data-fate="injected""#).count - 1 == 2 && rows.contains(#"data-fate="delivered""#))
        let panel = try #require(page.all("#panel").first)
        #expect(panel.html.contains(#"<span data-fate="injected">injected</span>"#), "the oldest push's own fate: \(panel.text)")
    }

    /// Devices whose tokens share a long prefix get names that tell them apart, the full token
    /// on hover, and their state as badges.
    @Test func rowsTellDevicesApartAndShowTheirState() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let prefix = String(repeating: "ab", count: 31)
        let (first, second) = (prefix + "01", prefix + "02")
        #expect(try await SilentPushdDeviceTests.admin(admin, "PATCH", "/v1/devices/\(second)", body: #"{"lowPowerMode": true}"#).status == 200)
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push(to: first, apnsID: SilentPushdDeviceTests.apnsID(1)).status == 200)
        #expect(try await client.push(to: second, apnsID: SilentPushdDeviceTests.apnsID(2)).status == 200)
        await client.close()

        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [
                ("expect", Self.push(2)), ("read", "section[data-device=\"\(first)\"] .label"),
                ("read", "section[data-device=\"\(second)\"] .label"), ("click", "section[data-device=\"\(second)\"] .label"),
                ("expect", "#panel[data-kind=row]"), ("read", "#panel"),
            ])
        let one = (text: page.text("section[data-device=\"\(first)\"] .label"), html: page.html("section[data-device=\"\(first)\"] .label"))
        let two = page.text("section[data-device=\"\(second)\"] .label")
        let (firstName, secondName) = (one.text.split(separator: "\n").first, two.split(separator: "\n").first)
        #expect(firstName != nil && firstName != secondName, "\(one.text) | \(two)")
        #expect(one.html.contains(#"title="\#(first) "#), "the full token on hover: \(one.html)")
        #expect(two.contains("Low Power"), "\(two)")
        #expect(!one.text.contains("Low Power"))
        // The row's panel: the full token, and why its push waits (Low Power Mode defers priority 5).
        #expect(page.text("#panel").contains(second), "\(page.text("#panel"))")
        #expect(page.text("#panel").contains("Low Power"), "\(page.text("#panel"))")
    }

    /// Long tokens that differ only in the middle are named by their ends and the digits
    /// where they part, short enough for the label, and a short token beside them keeps a
    /// short name.
    @Test func tokensThatDifferOnlyInTheMiddleGetShortDistinctNames() async throws {
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let ends = String(repeating: "cd", count: 49)
        let tokens = [ends + "0001" + ends, ends + "0002" + ends, String(repeating: "ef", count: 32)]
        let client = try await TestPushClient.connect(port: h2c)
        for (index, token) in tokens.enumerated() {
            #expect(try await client.push(to: token, apnsID: SilentPushdDeviceTests.apnsID(index + 1)).status == 200)
        }
        await client.close()
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/", [("expect", Self.push(3))] + tokens.map { ("read", "section[data-device=\"\($0)\"] .label .name") })
        let names = tokens.map { page.text("section[data-device=\"\($0)\"] .label .name") }
        #expect(Set(names).count == 3, "\(names)")
        #expect(names.allSatisfy { !$0.isEmpty && $0.count <= 24 }, "\(names)")
        #expect(names[0].contains("001") && names[1].contains("002"), "the digits where they part: \(names)")
    }

    /// The page listens to /v1/events: a move of the clock made while it is open shows, and
    /// the push it lets wake turns delivered, with no reload and no polling.
    @Test func changesShowWhileThePageIsOpen() async throws {
        let (process, _, admin) = try await Self.started(pushing: 1...2)
        defer { process.signal(SIGKILL) }
        let clock = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json
        let later = try SilentPushdDeviceTests.milliseconds(clock["now"]) + 3_600_000
        let laterText = ISO8601DateFormatter.withMilliseconds.string(from: Date(timeIntervalSince1970: Double(later) / 1000))

        // The page's own fetch moves the clock; then it waits for the news.
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [
                ("expect", Self.push(2) + "[data-fate=pending]"), ("expect", "#live.on"), ("evaluate", Self.advanceAnHour),
                ("expect", "#status[data-now=\"\(laterText)\"]"), ("expect", Self.push(2) + "[data-fate=delivered]"), ("read", "#status"),
            ])
        #expect(page.text("#status").contains("manual clock"))
    }

    /// With --admin-token, a page opened with a wrong token (or none) says how to open it, and
    /// keeps saying it: the clock's ticks do not draw an empty record over it.
    @Test func aWrongTokenIsSaidAndStaysSaid() async throws {
        let (process, _, admin) = try await Self.started(["--admin-token", "s3cret"], pushing: 1...1)
        defer { process.signal(SIGKILL) }
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/#token=wrong",
            [("wait", "2"), ("read", "#status"), ("evaluate", #"String(document.getElementById("empty").hidden)"#)])
        #expect(
            page.text("#status") == "the admin token in this page's address (#token=…) was refused: it must be silentpushd's --admin-token",
            "\(page.text("#status"))")
        #expect(page.evaluated == ["true"], "no \"No pushes yet\" beside it")
        let right = try await Self.browse("http://127.0.0.1:\(admin)/#token=s3cret", [("expect", Self.push(1)), ("read", "#status")])
        #expect(right.text("#status").contains("1 pushes"), "\(right.text("#status"))")
    }

    /// A token is all of the fragment after `token=`, percent-decoded only: a base64 token's
    /// `+` is not a space, and its `&` does not end it.
    @Test func anAdminTokenWithPlusAndAmpersandOpensThePage() async throws {
        let (process, _, admin) = try await Self.started(["--admin-token", "s3c+r/t=&x"], pushing: 1...1)
        defer { process.signal(SIGKILL) }
        let page = try await Self.browse("http://127.0.0.1:\(admin)/#token=s3c+r/t=&x", [("expect", Self.push(1)), ("read", "#status")])
        #expect(page.text("#status").contains("1 pushes"), "\(page.text("#status"))")
    }

    /// What leaves the record while the page is open leaves the page: a reset takes every
    /// push off it, with no reload.
    @Test func aResetWhileThePageIsOpenEmptiesIt() async throws {
        let (process, _, admin) = try await Self.started(pushing: 1...2)
        defer { process.signal(SIGKILL) }
        let reset = #"fetch("/v1/reset", {method: "POST", headers: {"content-type": "application/json"}, body: "{}"}).then(r => r.status)"#
        let gone = """
            new Promise(done => {
              const poll = setInterval(() => { if (!document.querySelector('.push')) { clearInterval(poll); done("gone"); } }, 50);
              setTimeout(() => done("still there: " + document.querySelectorAll('.push').length), 10000);
            })
            """
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [("expect", Self.push(2)), ("expect", "#live.on"), ("evaluate", reset), ("evaluate", gone), ("read", "#status")])
        #expect(page.evaluated == ["200", "gone"], "\(page.evaluated)")
        #expect(page.text("#status").contains("0 pushes"), "\(page.text("#status"))")
    }

    /// "older pushes" adds the page before the newest 1,000, and its pushes' fates follow the
    /// record as the newest do (they kept the fate they were loaded with).
    @Test func olderPushesAreLoadedAndTheirFatesFollowTheRecord() async throws {
        // 1 wakes the app and 2 waits for the interval; 3 to 1,005 go to another device.
        let (process, h2c, admin) = try await Self.started(pushing: 1...2)
        defer { process.signal(SIGKILL) }
        let client = try await TestPushClient.connect(port: h2c)
        let other = String(repeating: "ab", count: 32)
        for n in 3...1_005 { #expect(try await client.push(to: other, apnsID: SilentPushdDeviceTests.apnsID(n)).status == 200) }
        await client.close()
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [
                ("expect", Self.push(1_005)), ("expect", "#live.on"), ("read", "#status"), ("click", "#older"),
                ("expect", Self.push(2) + "[data-fate=pending]"), ("read", "#status"), ("evaluate", Self.advanceAnHour),
                ("expect", Self.push(2) + "[data-fate=delivered]"),
            ])
        let statuses = page.all("#status").map(\.text)
        #expect(statuses.first?.contains("1000 pushes") == true, "\(statuses)")
        #expect(statuses.last?.contains("1005 pushes") == true, "\(statuses)")
        #expect(page.evaluated == ["200"])
    }

    /// A render asked for just before a button goes down waits until it is up, so the click
    /// lands on the element the press went down on. (A refresh drawn between press and
    /// release replaced the dot, and the click then opened nothing.)
    @Test func aRenderWaitsWhileAButtonIsHeld() async throws {
        let (process, _, admin) = try await Self.started(pushing: 1...1)
        defer { process.signal(SIGKILL) }
        // The page's own functions, as the press and the refresh would call them.
        let script = """
            (async () => {
              const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
              const dot = document.querySelector('\(Self.push(1))');
              scheduleRender();
              document.body.dispatchEvent(new MouseEvent("mousedown", {bubbles: true}));
              await frames();
              const keptWhileHeld = dot.isConnected;
              document.body.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
              await new Promise(done => setTimeout(done, 0));
              await frames();
              return JSON.stringify({keptWhileHeld, drawnAfter: !dot.isConnected && document.querySelector('\(Self.push(1))') !== null});
            })()
            """
        let page = try await Self.browse("http://127.0.0.1:\(admin)/", [("expect", Self.push(1)), ("expect", "#live.on"), ("evaluate", script)])
        #expect(page.evaluated == [#"{"keptWhileHeld":true,"drawnAfter":true}"#])
    }

    @Test func taskRunsAreDrawnWithTheirKindAndOutcome() async throws {
        let config = #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["com.example.app.refresh"], "backgroundModes": ["fetch"]}}}"#
        let path = Scratch.directory.appendingPathComponent("timeline-\(UUID().uuidString).json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _, _, admin) = try await SilentPushdProcessTests.start(["--config", path, "--clock", "manual"])
        defer { process.signal(SIGKILL) }
        let tasks = "/v1/devices/\(String(repeating: "ab", count: 32))/apps/com.example.app/tasks"
        let submitted = try await SilentPushdDeviceTests.admin(
            admin, "POST", tasks, body: #"{"identifier": "com.example.app.refresh", "kind": "refresh"}"#)
        #expect(submitted.status == 201)
        let run = ".task[data-run-id=\"1\"]"
        let page = try await Self.browse(
            "http://127.0.0.1:\(admin)/",
            [("expect", run), ("read", run), ("click", run), ("expect", "#panel[data-kind=run]"), ("read", "#panel"), ("read", "#status")])
        #expect(
            page.html(run).contains(#"class="task outcome-completed" data-run-id="1" data-kind="refresh" data-outcome="completed""#),
            "\(page.html(run))")
        #expect(page.text("#panel").contains("refresh task run 1: completed"), "\(page.text("#panel"))")
        #expect(page.text("#panel").contains("com.example.app.refresh"))
        #expect(page.text("#status").contains("1 task runs"))
    }

    /// Each Live Activity is a lane of its update decisions, and each broadcast a marker whose
    /// fan-out (every update it made) clicking shows; a widget push's reload is a wake of its own.
    @Test func activitiesAreLanesAndABroadcastShowsItsFanOut() async throws {
        try await Receiver.withTesting { receiver in
            let bundle = SamplePush.topic
            let channel = try await receiver.createChannel(bundleID: bundle, storagePolicy: .noMessageStored).id
            let phones = [String(repeating: "a1", count: 32), String(repeating: "b2", count: 32)]
            for phone in phones {
                _ = try await receiver.device.startActivity(device: phone, bundleID: bundle, attributesType: "MatchAttributes", channel: channel)
            }
            let own = try await receiver.device.startActivity(device: phones[0], bundleID: bundle, attributesType: "OrderAttributes")
            let client = try await TestPushClient.connect(port: try #require(receiver.h2cPort))
            let timestamp = DevProviderToken.now
            let sent = try await client.broadcast(
                #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"home":1}}}"#, bundleID: bundle, channel: channel)
            #expect(sent.status == 200)
            await client.close()
            // The token activity takes one update by push; a widget push reloads the widgets.
            let update = try await ChannelManagementLiveTests.curl(
                "POST", "/3/device/\(try #require(own.pushToken))", port: try #require(receiver.h2cPort), tls: false,
                headers: ["apns-topic: \(bundle).push-type.liveactivity", "apns-push-type: liveactivity", "apns-priority: 10"],
                body: #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"eta":5}}}"#)
            #expect(update.status == 200, "\(update.body)")
            _ = try await WidgetReloadLiveTests.widgetPush(receiver, SilentPushdDeviceTests.apnsID(990))

            let marker = ".broadcast[data-request-id=\"\(sent.apnsID)\"]"
            let page = try await Self.browse(
                "http://127.0.0.1:\(try #require(receiver.adminPort))/",
                [
                    ("expect", marker), ("read", "#rows"), ("click", marker), ("expect", "#panel[data-kind=broadcast]"), ("read", "#panel"),
                    ("read", "#status"),
                ])
            let rows = page.html("#rows")
            #expect(rows.components(separatedBy: #"class="row activity-row""#).count - 1 == 3, "one lane per activity: \(rows.prefix(3000))")
            #expect(rows.contains(#"data-reached="2""#), "the broadcast reached both phones: \(rows.prefix(3000))")
            #expect(
                rows.components(separatedBy: #"class="update update-applied from-broadcast""#).count - 1 == 2,
                "its two updates, marked as the broadcast's")
            #expect(rows.contains(#"class="update update-applied" data-source=""#), "the token activity's own update")
            #expect(rows.contains(#"data-kind="widgets" data-result="reload""#), "the widget reload: \(rows.prefix(3000))")
            let panel = page.text("#panel")
            #expect(panel.contains("reached 2 activities"), "\(panel)")
            #expect(panel.components(separatedBy: "MatchAttributes: applied").count - 1 == 2, "\(panel)")
            #expect(page.text("#status").contains("3 Live Activities, 1 broadcasts"), "\(page.text("#status"))")
        }
    }

    /// Each background session is a lane from hand-over to relaunch: a bar per transfer by
    /// state (a waiting one says why), joined to the relaunch's run, which lists the
    /// transfers it was for; a file the relaunch did not move is marked.
    @Test func aBackgroundSessionIsALaneFromHandOverToRelaunch() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try BackgroundTransferLiveTests.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let relaunches = BackgroundTransferLiveTests.Relaunches()
        // The payload's URL names the session (after "s="); the "keep" session's relaunch moves its file.
        let handler = ClosureFetchHandler(withContext: { wake, context in
            guard let text = String(bytes: wake.payload, encoding: .utf8),
                let url = text.split(separator: "\"").first(where: { $0.hasPrefix("http") }).map(String.init),
                let session = url.split(separator: "s=").last.map(String.init)
            else { return .noData }
            do {
                try context.startBackgroundTransfer(TransferRequest(session: session, url: url, allowsCellular: session != "wifi"))
                return .newData
            } catch {
                return .failed(reason: "\(error)")
            }
        }) { task in
            relaunches.record(task, moveTo: task.session == "keep" ? keep : nil)
            task.setTaskCompleted(success: true)
        }
        try await Receiver.withTesting({ $0.fetchHandler = .handler(handler) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            for session in ["keep", "drop"] {
                try await BackgroundTransferLiveTests.push(client, "http://127.0.0.1:\(origin.port)/blob/1000?s=\(session)")
                try await receiver.waitForTransfers(session: session) { $0.first?.fileFate != nil }
                try await receiver.advanceClock(by: .seconds(16 * 60))
            }
            // On cellular, a transfer that may use Wi-Fi only waits.
            try await receiver.setDeviceState(DeviceState(networkType: .cellular))
            try await BackgroundTransferLiveTests.push(client, "http://127.0.0.1:\(origin.port)/blob/1000?s=wifi")
            let waiting = try await receiver.waitForTransfers(session: "wifi") { $0.first?.why != nil }
            await client.close()
            var ids: [String: TransferRecord] = [:]
            for session in ["keep", "drop", "wifi"] {
                let transfer: TransferRecord = try #require(try await receiver.transfers(session: session).first)
                ids[session] = transfer
            }
            let relaunch = try #require(try await receiver.taskRuns().first { $0.requestID == ids["keep"]?.relaunchRequestID })

            let transfer = { (session: String) in ".transfer[data-transfer-id=\"\(ids[session]!.id)\"]" }
            let run = ".relaunch[data-run-id=\"\(relaunch.id)\"]"
            let page = try await Self.browse(
                "http://127.0.0.1:\(try #require(receiver.adminPort))/",
                [
                    ("expect", transfer("wifi")), ("read", "#rows"), ("click", run), ("expect", "#panel[data-kind=run]"), ("read", "#panel"),
                    ("click", transfer("drop")), ("expect", "#panel[data-kind=transfer]"), ("read", "#panel"),
                    ("click", transfer("wifi")), ("expect", "#panel[data-kind=transfer] [data-state=waiting]"), ("read", "#panel"),
                    ("read", "#status"),
                ])
            let rows = page.html("#rows")
            #expect(rows.components(separatedBy: #"class="row transfer-row""#).count - 1 == 3, "one lane per session: \(rows.prefix(3000))")
            #expect(rows.contains(#"class="transfer state-done file-moved" data-transfer-id="\#(ids["keep"]!.id)""#), "\(rows.prefix(3000))")
            #expect(rows.contains(#"class="transfer state-done file-deleted" data-transfer-id="\#(ids["drop"]!.id)""#), "\(rows.prefix(3000))")
            #expect(rows.contains(#"class="transfer state-waiting" data-transfer-id="\#(ids["wifi"]!.id)""#), "\(rows.prefix(3000))")
            #expect(
                rows.contains(#"data-run-id="\#(relaunch.id)" data-kind="urlSession" data-outcome="completed" data-transfers="\#(ids["keep"]!.id)""#))
            #expect(rows.components(separatedBy: #"class="join""#).count - 1 == 2, "each relaunch joined to its transfer")
            let panels = page.all("#panel").map(\.text)
            #expect(panels.count == 3)
            #expect(panels.first?.contains("urlSession task run \(relaunch.id): completed") == true, "\(panels)")
            #expect(panels.first?.contains("transfer \(ids["keep"]!.id) (file moved)") == true, "\(panels)")
            #expect(panels.dropFirst().first?.contains("deleted: the relaunch's handler did not move it") == true, "\(panels)")
            #expect(waiting.first?.why == .wifiRequired)
            #expect(panels.last?.contains("does not allow cellular access and the device is not on Wi-Fi") == true, "\(panels)")
            #expect(panels.last?.contains("Wi-Fi only") == true)
            #expect(page.text("#status").contains("3 background transfers"), "\(page.text("#status"))")
        }
    }
}

extension ISO8601DateFormatter {
    /// `2026-11-22T04:42:47.000Z`, as the admin API writes times.
    fileprivate static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
