import SilentPushCore
import Testing

/// Background transfers, rule by rule: each test asserts the actions and their `why`.
@Suite struct TransferPolicyTests {
    static let t0 = DeviceInstant(secondsSinceEpoch: 1_800_000_000)
    static let app = TransferPolicy.App(device: String(repeating: "ab", count: 32), topic: "com.example.app")
    static func at(_ seconds: Int64) -> DeviceInstant { t0.advanced(by: .seconds(seconds)) }

    static func request(
        session: String = "S", discretionary: Bool = false, allowsCellular: Bool = true, launchEvents: Bool = true
    ) throws -> TransferRequest {
        try TransferRequest(
            session: session, url: "http://127.0.0.1:8080/big.bin", discretionary: discretionary, allowsCellular: allowsCellular,
            sessionSendsLaunchEvents: launchEvents)
    }

    static let cellular = TransferPolicy.Conditions(online: true, wifi: false)
    static let wifiOnPower = TransferPolicy.Conditions(online: true, wifi: true, charging: true)

    @Test func settingsOutOfTheFlagsRangesAreNamed() {
        #expect(TransferPolicy.Settings().problem == nil)
        var settings = TransferPolicy.Settings()
        settings.retryDelay = .zero
        #expect(settings.problem == .retryDelay(.zero))
        #expect(settings.problem.map { "\($0)" }?.contains("--transfer-retry-delay") == true)
        settings.retryDelay = .seconds(Int64.max)
        #expect(settings.problem == .retryDelay(.seconds(Int64.max)))
        settings.retryDelay = .seconds(120)
        settings.maximumRetryDelay = .seconds(60)
        #expect(settings.problem == .maximumRetryDelayBelowRetryDelay)
        settings = TransferPolicy.Settings(maximumPerApp: 0)
        #expect(settings.problem == .maximumPerApp(0))
        settings = TransferPolicy.Settings(resourceTimeout: .seconds(-1))
        #expect(settings.problem == .resourceTimeout(.seconds(-1)))
        settings = TransferPolicy.Settings(requestTimeout: .seconds(86_401))
        #expect(settings.problem == .requestTimeout(.seconds(86_401)))
        // The flags' own limits are in range.
        settings = TransferPolicy.Settings(
            maximumPerApp: TransferPolicy.Settings.maximumCap, retryDelay: TransferPolicy.Settings.retryDelayLimit,
            maximumRetryDelay: TransferPolicy.Settings.maximumRetryDelayLimit, resourceTimeout: TransferPolicy.Settings.resourceTimeoutLimit,
            requestTimeout: TransferPolicy.Settings.requestTimeoutLimit)
        #expect(settings.problem == nil)
    }

    @Test func requestsAreReadAndRefusedWithAClearReason() throws {
        let read = try TransferRequest.parse(
            #"{"session":"S1","url":"https://example.com/a.zip","method":"PUT","discretionary":true,"allowsCellular":false}"#
        ).get()
        #expect(read.session == "S1" && read.method == .PUT && read.discretionary && !read.allowsCellular && read.sessionSendsLaunchEvents)
        #expect(read.fromFile == nil)
        let upload = try TransferRequest.parse(#"{"session":"U","url":"http://e.com/up","method":"POST","fromFile":"/var/tmp/photo.jpg"}"#).get()
        #expect(upload.method == .POST && upload.fromFile == "/var/tmp/photo.jpg")
        // null, as the admin API writes a download's, is no file.
        #expect(try TransferRequest.parse(#"{"session":"S","url":"http://e.com/a","fromFile":null}"#).get().fromFile == nil)
        // A URL's credentials stay out of log lines and errors.
        #expect(URLUserInfo.masked("https://user:secret@example.com/a@b") == "https://***@example.com/a@b")
        #expect(URLUserInfo.masked("https://token@example.com/a") == "https://***@example.com/a")
        #expect(URLUserInfo.masked("http://example.com/a@b?x=1") == "http://example.com/a@b?x=1")
        #expect(URLUserInfo.masked("not a url @ all") == "not a url @ all")
        for url in [
            "http://[::1]:8080/a", "https://user@example.com/a", "https://user:pw@example.com/a", "http://127.0.0.1:1/a", "HTTP://Example.COM",
            "http://example.com:/a", "http://[fe80::1%25en0]:8080/", "http://bücher.example/", "http://ex%41mple.com/", "http://example.com./",
        ] {
            #expect(throws: Never.self) { try TransferRequest(session: "S", url: url) }
        }
        let refused: [(String, TransferRefusal)] = [
            (#"{"session":"S","url":"ftp://example.com/a"}"#, .notHTTP),
            (#"{"session":"S","url":"http:///nohost"}"#, .notHTTP),
            (#"{"session":"S","url":"http://[::1"}"#, .notHTTP),
            (#"{"session":"S","url":"http://example.com:99999/a"}"#, .notHTTP),
            (#"{"session":"S","url":"http://exa<mple.com/a"}"#, .notHTTP),
            (#"{"session":"S","url":"http://[:]/"}"#, .notHTTP),
            (#"{"session":"S","url":"http://./"}"#, .notHTTP),
            (#"{"session":"S","url":"http://a<b>@example.com/"}"#, .notHTTP),
            (#"{"session":"S","url":"file:///etc/passwd"}"#, .notHTTP),
            (#"{"session":"S","url":"http://e.com/","method":"DELETE"}"#, .unknownMethod),
            (#"{"url":"http://e.com/"}"#, .missingSession),
            (#"{"session":"","url":"http://e.com/"}"#, .badSession),
            (#"{"session":"S"}"#, .missingURL),
            (#"{"session":"S","url":"http://e.com/","discretionary":"yes"}"#, .badFlag),
            (#"{"session":"S","url":"http://e.com/","fromFile":"/tmp/a"}"#, .uploadWithGET),
            (#"{"session":"S","url":"http://e.com/","method":"PUT","fromFile":"relative/a"}"#, .badFile),
            (#"{"session":"S","url":"http://e.com/","method":"PUT","fromFile":7}"#, .badFile),
            (#"[1]"#, .notAnObject),
            (#"{"session":"S","url":"http://e.com/a","url":"http://e.com/b"}"#, .repeatedField),
            (#"{"session":"S","url":"http://e.com/"} x"#, .notAnObject),
            // URLSession's own names, which the device does not model, and a misspelt flag.
            (#"{"session":"S","url":"http://e.com/","earliestBeginDate":"2030-01-01T00:00:00Z"}"#, .unknownField),
            (#"{"session":"S","url":"http://e.com/","allowsCellularAccess":false}"#, .unknownField),
            (#"{"session":"S","url":"http://e.com/","discretionery":true}"#, .unknownField),
        ]
        for (text, refusal) in refused {
            #expect(TransferRequest.parse(text) == .failure(refusal), "\(text)")
        }
        #expect(TransferRefusal.notHTTP.rawValue.contains("http or https"))
        // A record as the admin API writes it reads as its request: its other fields are skipped.
        let record =
            #"{"id":4,"deviceToken":"aa","topic":"t","session":"S","url":"http://e.com/","method":"GET","discretionary":false,"allowsCellular":true,"sessionSendsLaunchEvents":true,"fromFile":null,"wakeId":1,"taskRunId":null,"handedOverAt":"2030-01-01T00:00:00Z","state":"done","attempts":1,"bytes":3,"status":200,"finishedAt":null,"lastError":null,"relaunchRequestId":null,"file":"moved","why":{"rule":"done"}}"#
        #expect(TransferRequest.parse(record) == .success(try TransferRequest(session: "S", url: "http://e.com/")))
    }

    @Test func aTryThatCanNeverCompleteFailsTheTransferWithoutARetry() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        let actions = policy.cannotComplete(1, reason: "gone", now: Self.at(1))
        #expect(actions.first == .phase(id: 1, .ended(.failed(reason: "gone"))), "\(actions)")
        #expect(!actions.contains { if case .start = $0 { true } else { false } })
        // Its session ended with it: the app is relaunched to hear of the failure.
        #expect(actions.contains { if case .relaunch(_, "S", [1]) = $0 { true } else { false } }, "\(actions)")
        // A second report of it changes nothing.
        #expect(policy.cannotComplete(1, reason: "gone", now: Self.at(2)).isEmpty)
    }

    @Test func aTransferRunsAtOnceWhenItsConditionsHold() throws {
        var policy = TransferPolicy()
        let actions = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        #expect(actions == [.phase(id: 1, .running(attempt: 1)), .start(id: 1, attempt: 1)])
    }

    @Test func offlineItWaitsAndStartsWhenTheNetworkReturns() throws {
        var policy = TransferPolicy()
        let offline = TransferPolicy.Conditions(online: false)
        #expect(
            try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: offline, now: Self.at(0)) == [.phase(id: 1, .waiting(.offline))])
        #expect(
            policy.conditionsChanged(.init(), device: Self.app.device, now: Self.at(10)) == [
                .phase(id: 1, .running(attempt: 1)), .start(id: 1, attempt: 1),
            ])
    }

    @Test func withoutCellularAccessItWaitsForWiFi() throws {
        var policy = TransferPolicy()
        let held = try policy.submit(try Self.request(allowsCellular: false), id: 1, for: Self.app, conditions: Self.cellular, now: Self.at(0))
        #expect(held == [.phase(id: 1, .waiting(.wifiRequired))])
        #expect(WaitReason<DeviceInstant>.wifiRequired.rule == .wifiRequired)
        #expect(policy.conditionsChanged(.init(), device: Self.app.device, now: Self.at(5)).contains(.start(id: 1, attempt: 1)))
    }

    @Test func discretionaryItWaitsForWiFiAndPowerOutOfLowPowerMode() throws {
        var policy = TransferPolicy()
        let held = try policy.submit(try Self.request(discretionary: true), id: 1, for: Self.app, conditions: Self.cellular, now: Self.at(0))
        let why = WaitReason<DeviceInstant>.discretionary(wifi: false, charging: false, lowPowerMode: false)
        #expect(held == [.phase(id: 1, .waiting(why))])
        #expect(why.text(time: { _ in "" }) == "waiting: a discretionary transfer waits for Wi-Fi, external power")
        // Wi-Fi alone is not enough; Wi-Fi and power in Low Power Mode neither.
        #expect(
            policy.conditionsChanged(.init(wifi: true), device: Self.app.device, now: Self.at(1)) == [
                .phase(id: 1, .waiting(.discretionary(wifi: true, charging: false, lowPowerMode: false)))
            ])
        let lowPower = TransferPolicy.Conditions(online: true, wifi: true, charging: true, lowPowerMode: true)
        #expect(
            policy.conditionsChanged(lowPower, device: Self.app.device, now: Self.at(2)).first
                == .phase(id: 1, .waiting(.discretionary(wifi: true, charging: true, lowPowerMode: true))))
        #expect(policy.conditionsChanged(Self.wifiOnPower, device: Self.app.device, now: Self.at(3)).contains(.start(id: 1, attempt: 1)))
    }

    @Test func aRunningTransferCutOffByItsConditionsResumesWhenTheyReturn() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(allowsCellular: false), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        #expect(
            policy.conditionsChanged(Self.cellular, device: Self.app.device, now: Self.at(5)) == [
                .interrupt(id: 1), .phase(id: 1, .waiting(.wifiRequired)),
            ])
        #expect(
            policy.conditionsChanged(.init(), device: Self.app.device, now: Self.at(9)) == [
                .phase(id: 1, .running(attempt: 2)), .start(id: 1, attempt: 2),
            ])
    }

    @Test func aFailedTryIsRetriedAfterADelayThatDoubles() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        #expect(policy.finished(1, completed: nil, now: Self.at(10)) == [.phase(id: 1, .waiting(.transferRetry(attempt: 2, until: Self.at(70))))])
        #expect(policy.nextDeadline == Self.at(70))
        #expect(policy.advance(to: Self.at(69)).isEmpty)
        #expect(policy.advance(to: Self.at(70)) == [.phase(id: 1, .running(attempt: 2)), .start(id: 1, attempt: 2)])
        #expect(policy.finished(1, completed: nil, now: Self.at(80)) == [.phase(id: 1, .waiting(.transferRetry(attempt: 3, until: Self.at(200))))])
        let stored = WaitReason<DeviceInstant>.transferRetry(attempt: 3, until: Self.at(200))
        #expect(WaitReason(stored: stored.stored) == stored)
        #expect(
            WaitReason(stored: WaitReason<DeviceInstant>.discretionary(wifi: true, charging: false, lowPowerMode: true).stored)
                == .discretionary(wifi: true, charging: false, lowPowerMode: true))
    }

    @Test func pastItsResourceTimeoutItFailsAndTheAppIsRelaunchedToHearIt() throws {
        var policy = TransferPolicy(settings: .init(resourceTimeout: .seconds(3600)))
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        #expect(policy.advance(to: Self.at(3599)).isEmpty)
        #expect(
            policy.advance(to: Self.at(3600)) == [
                .phase(id: 1, .ended(.failed(reason: "timed out: not done within the resource timeout (1 h, --transfer-timeout)"))),
                .relaunch(app: Self.app, session: "S", transfers: [1]),
            ])
    }

    @Test func whenASessionsTransfersAreDoneTheAppIsRelaunchedForIt() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        _ = try policy.submit(try Self.request(), id: 2, for: Self.app, conditions: .init(), now: Self.at(0))
        _ = try policy.submit(try Self.request(session: "other", launchEvents: false), id: 3, for: Self.app, conditions: .init(), now: Self.at(0))
        #expect(policy.finished(1, completed: 10, now: Self.at(5)) == [.phase(id: 1, .ended(.done(bytes: 10)))])
        #expect(
            policy.finished(2, completed: 20, now: Self.at(6)) == [
                .phase(id: 2, .ended(.done(bytes: 20))), .relaunch(app: Self.app, session: "S", transfers: [1, 2]),
            ])
        // A session that sends no launch events ends quietly.
        #expect(policy.finished(3, completed: 5, now: Self.at(7)) == [.phase(id: 3, .ended(.done(bytes: 5)))])
    }

    @Test func forceQuitCancelsTheAppsTransfersAndNothingRelaunches() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        _ = try policy.submit(try Self.request(), id: 2, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        #expect(
            policy.forceQuit(device: Self.app.device, now: Self.at(5)) == [
                .interrupt(id: 1), .phase(id: 1, .ended(.cancelled)), .phase(id: 2, .ended(.cancelled)),
            ])
        #expect(policy.finished(1, completed: 10, now: Self.at(6)).isEmpty, "a late answer changes nothing")
    }

    /// A done transfer whose session a force-quit cancels is abandoned: no relaunch will
    /// hand it over.
    @Test func forceQuitAbandonsTheDoneTransfersOfASessionStillOpen() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        _ = try policy.submit(try Self.request(), id: 2, for: Self.app, conditions: .init(), now: Self.at(0))
        #expect(policy.finished(1, completed: 10, now: Self.at(3)) == [.phase(id: 1, .ended(.done(bytes: 10)))])
        #expect(
            policy.forceQuit(device: Self.app.device, now: Self.at(5)) == [
                .abandon(id: 1), .interrupt(id: 2), .phase(id: 2, .ended(.cancelled)),
            ])
        #expect(policy.transfers.isEmpty)
    }

    /// A device is kept in memory only while it has a transfer not ended: its conditions go
    /// with its last transfer, and a state change of a device with none keeps nothing.
    @Test func aDeviceIsKeptOnlyWhileItHasATransferNotEnded() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(), now: Self.at(0))
        #expect(policy.trackedDevices == 1)
        _ = policy.finished(1, completed: 10, now: Self.at(1))
        #expect(policy.trackedDevices == 0)
        for n in 0..<50 { _ = policy.conditionsChanged(.init(online: false), device: String(n), now: Self.at(2)) }
        #expect(policy.trackedDevices == 0)
        // The device's conditions come with its next hand-over.
        _ = try policy.submit(try Self.request(), id: 2, for: Self.app, conditions: .init(online: false), now: Self.at(3))
        #expect(policy.transfers[2]?.phase == .waiting(.offline))
    }

    @Test func anAppHasACapOnTransfersNotYetDone() throws {
        var policy = TransferPolicy(settings: .init(maximumPerApp: 2))
        _ = try policy.submit(try Self.request(), id: 1, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        _ = try policy.submit(try Self.request(), id: 2, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        #expect(throws: TransferRefusal.tooMany) {
            try policy.submit(try Self.request(), id: 3, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        }
        #expect(policy.transfers[3] == nil)
        let other = TransferPolicy.App(device: Self.app.device, topic: "com.example.other")
        #expect(throws: Never.self) { try policy.submit(try Self.request(), id: 4, for: other, conditions: .init(online: false), now: Self.at(0)) }
    }

    /// `sessionSendsLaunchEvents` is the session's, as URLSessionConfiguration has it: a
    /// transfer saying otherwise than the session's others is refused; another session may.
    @Test func aSessionHasOneSayOnLaunchEvents() throws {
        var policy = TransferPolicy()
        _ = try policy.submit(try Self.request(launchEvents: false), id: 1, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        #expect(throws: TransferRefusal.launchEventsDiffer) {
            try policy.submit(try Self.request(launchEvents: true), id: 2, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        }
        #expect(policy.transfers[2] == nil)
        #expect(throws: Never.self) {
            _ = try policy.submit(try Self.request(launchEvents: false), id: 3, for: Self.app, conditions: .init(online: false), now: Self.at(0))
            _ = try policy.submit(
                try Self.request(session: "T", launchEvents: true), id: 4, for: Self.app, conditions: .init(online: false), now: Self.at(0))
        }
    }

    /// A transfer put back while it waited for a retry waits for that retry's time (it was
    /// tried again at once); one whose retry time has passed is tried at once.
    @Test func aRestoredRetryWaitsForItsTime() throws {
        var policy = TransferPolicy()
        let restored = policy.restore(
            try Self.request(), id: 1, for: Self.app, handedOverAt: Self.at(0), attempts: 1, ended: nil,
            retry: (attempt: 2, until: Self.at(60)), conditions: .init(), now: Self.at(10))
        #expect(restored.isEmpty, "\(restored)")
        #expect(policy.transfers[1]?.phase == .waiting(.transferRetry(attempt: 2, until: Self.at(60))))
        #expect(policy.advance(to: Self.at(59)).isEmpty)
        #expect(policy.advance(to: Self.at(60)) == [.phase(id: 1, .running(attempt: 2)), .start(id: 1, attempt: 2)])
        var late = TransferPolicy()
        let due = late.restore(
            try Self.request(), id: 1, for: Self.app, handedOverAt: Self.at(0), attempts: 1, ended: nil,
            retry: (attempt: 2, until: Self.at(60)), conditions: .init(), now: Self.at(70))
        #expect(due == [.phase(id: 1, .running(attempt: 2)), .start(id: 1, attempt: 2)])
    }

    /// A stored count of tries past any real one (a row edited by hand) is bounded as it is
    /// put back: the next try and the retry after it count on without overflowing.
    @Test func aRestoredCountOfTriesIsBounded() throws {
        var policy = TransferPolicy()
        let restored = policy.restore(
            try Self.request(), id: 1, for: Self.app, handedOverAt: Self.at(0), attempts: .max, ended: nil, conditions: .init(), now: Self.at(1))
        let attempts = Int(Int32.max)
        #expect(restored == [.phase(id: 1, .running(attempt: attempts + 1)), .start(id: 1, attempt: attempts + 1)])
        #expect(
            policy.finished(1, completed: nil, now: Self.at(2))
                == [.phase(id: 1, .waiting(.transferRetry(attempt: attempts + 2, until: Self.at(2).advanced(by: .seconds(3600)))))])
    }
}
