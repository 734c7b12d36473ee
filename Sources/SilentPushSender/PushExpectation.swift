import AsyncHTTPClient
import Foundation
import NIOCore
import SilentPushCore
import SilentPushNetworking
import SilentPushTransport

/// `pushsend expect`: an assertion about a receiver, checked through its admin API, for CI
/// in any language. A push reaches a fate, a device wakes a number of times, or an app's
/// Live Activities take a number of updates or reach a state, within a span of device time. On a manual clock the check moves the clock itself: to each time
/// the push waits until, and at most to the end of the span. On the system clock it polls
/// until the span has passed in real time.
package struct PushExpectation: Sendable {
    /// What is expected.
    package enum Target: Sendable, Equatable {
        /// The push with this apns-id has this fate.
        case fate(apnsID: String, fate: PushFate.Kind)
        /// The device (and app, when given) woke exactly `count` times: with a widgets or
        /// controls topic, its reloads; without a topic, its apps' fetch wakes.
        /// `since`: only wakes started at or after this device time (ms), so a device an earlier
        /// step woke can be checked again.
        case wakes(device: String, topic: String?, count: Int, since: Int64? = nil)
        /// The app's Live Activities on the device: exactly `applied` updates applied across
        /// them, and/or its newest activity in `state` (`active`, `stale`, `ended`, `dismissed`).
        case activities(device: String, topic: String, applied: Int?, state: String?)
        /// The device's background transfers (of the app, of the session, when given): at
        /// least one, and every one in `state`, and, when `file` is given, its relaunch did
        /// that with its file (`moved`, `deleted`).
        case transfers(device: String, topic: String?, session: String?, state: TransferRecord.State, file: TransferRecord.FileFate?)
    }

    /// The states a Live Activity can be in, as the admin API writes them.
    package static let activityStates = ["active", "stale", "ended", "dismissed"]

    /// What the check saw.
    package struct Outcome: Sendable, Equatable {
        /// Whether it held.
        package var met: Bool
        /// One line: what was expected and what was seen.
        package var line: String
        /// The assertion, as a test case's name.
        package var name: String
        /// Real seconds the check took.
        package var seconds: Double
    }

    package var admin: String
    package var token: String?
    package var target: Target
    package var within: Duration
    /// How often the system-clock check reads again.
    package var pollInterval: Duration = .milliseconds(200)

    package init(admin: String, token: String?, target: Target, within: Duration) {
        self.admin = admin.hasSuffix("/") ? String(admin.dropLast()) : admin
        self.token = token
        self.target = target
        self.within = within
    }

    /// The assertion in words: "push X is delivered within 20m".
    package var name: String {
        switch target {
        case .fate(let apnsID, let fate): "push \(apnsID) is \(fate.rawValue) within \(Self.words(within))"
        case .wakes(let device, let topic, let count, let since):
            "device \(device)\(topic.map { " (\($0))" } ?? "") wakes \(count) time\(count == 1 ? "" : "s")"
                + (since.map { " since \(ISO8601Timestamp.string(millisecondsSinceEpoch: $0))" } ?? "") + " within \(Self.words(within))"
        case .activities(let device, let topic, let applied, let state):
            "\(topic) on device \(device) has "
                + [applied.map { "\($0) Live Activity update\($0 == 1 ? "" : "s") applied" }, state.map { "its newest Live Activity \($0)" }]
                .compactMap { $0 }.joined(separator: " and ") + " within \(Self.words(within))"
        case .transfers(let device, let topic, let session, let state, let file):
            "device \(device)\(topic.map { " (\($0))" } ?? "")'s transfers\(session.map { " of session \($0)" } ?? "") are \(state.rawValue)"
                + (file.map { " with their file \($0.rawValue)" } ?? "") + " within \(Self.words(within))"
        }
    }

    /// Checks the expectation; throws `AdminExporter.Failure` when the admin API cannot be
    /// asked.
    package func run() async throws -> Outcome {
        let started = ContinuousClock.now
        let clock = try await object("/v1/clock")
        let manual = clock["clock"] as? String == "manual"
        guard let nowText = clock["now"] as? String, var now = ISO8601Timestamp.millisecondsSinceEpoch(parsing: nowText) else {
            throw AdminExporter.Failure.refused(status: 200, detail: "GET /v1/clock gave no time")
        }
        // `within` is at most ten years (checked by the command), so this cannot overflow.
        let deadline = now + within.components.seconds * 1000 + within.components.attoseconds / 1_000_000_000_000_000
        func finish(_ met: Bool, _ line: String) -> Outcome {
            let took = (ContinuousClock.now - started).components
            return Outcome(met: met, line: line, name: name, seconds: Double(took.seconds) + Double(took.attoseconds) / 1e18)
        }
        // Each pass reads, then moves the clock (manual) or waits (system). The system clock's
        // check ends with its span; a bound on the manual clock's passes keeps a receiver that
        // never settles from holding the check for ever.
        var passes = 0
        while !manual || passes < 10_000 {
            passes += 1
            let seen: (met: Bool, final: Bool, line: String, until: Int64?)
            switch target {
            case .fate(let apnsID, let fate): seen = try await fateSeen(apnsID: apnsID, expected: fate, manual: manual, now: now)
            case .wakes(let device, let topic, let count, let since):
                seen = try await wakesSeen(device: device, topic: topic, expected: count, since: since)
            case .activities(let device, let topic, let applied, let state):
                seen = try await activitiesSeen(device: device, topic: topic, applied: applied, state: state, now: now)
            case .transfers(let device, let topic, let session, let state, let file):
                seen = try await transfersSeen(device: device, topic: topic, session: session, state: state, file: file, now: now)
            }
            let timeLeft = manual ? now < deadline : ContinuousClock.now - started < within
            // An exact count holds only once the span is over: more can come until then.
            if seen.met, !(countsExactly && timeLeft) { return finish(true, "ok: \(seen.line)") }
            if seen.final || !timeLeft { return finish(false, "expected \(name); \(seen.line)") }
            if manual, seen.until == now {
                // Work under way in real time (a transfer running): wait for it, not the clock.
                try await Task.sleep(for: pollInterval)
            } else if manual {
                // To the time it waits until, when that comes within the span; else the span's end.
                let target = seen.until.map { $0 > now ? min($0, deadline) : deadline } ?? deadline
                try await advance(milliseconds: target - now)
                now = target
            } else {
                try await Task.sleep(for: pollInterval)
            }
        }
        return finish(false, "expected \(name); it did not settle")
    }

    /// Whether the target is a count that must be exact over the whole span (wakes, updates
    /// applied), not a state the record reaches.
    private var countsExactly: Bool {
        switch target {
        case .wakes: true
        case .activities(_, _, let applied, _): applied != nil
        case .fate, .transfers: false
        }
    }

    private func fateSeen(
        apnsID: String, expected: PushFate.Kind, manual: Bool, now: Int64
    ) async throws -> (met: Bool, final: Bool, line: String, until: Int64?) {
        // The sooner of the time that holds a waiting push (`why.until`; now: work under way in
        // real time) and its expiry, each not yet past: at its expiry a push waiting for a
        // device offline or out of budget changes. (The expiry is given in whole milliseconds,
        // the receiver keeps it finer: 1 ms on is past it.)
        func sooner(_ why: Any?, expiry: Any?) -> Int64? {
            let held = Self.time((why as? [String: Any])?["until"]).flatMap { $0 >= now ? $0 : nil }
            let pastExpiry = Self.time(expiry).map { $0 + 1 }.flatMap { $0 > now ? $0 : nil }
            return [held, pastExpiry].compactMap { $0 }.min()
        }
        guard let push = try await object("/v1/pushes/\(apnsID)", missingIsNil: true) else {
            // Moving a manual clock brings no push: the check ends there, the clock unmoved
            // (other checks share it). On the system clock the push may still come.
            return (false, manual, "no push \(apnsID) was received", nil)
        }
        let fate = push["fate"] as? String ?? "unknown"
        let why = push["why"] as? [String: Any]
        let text = why?["text"] as? String
        // A coalesced push's own expiry decides nothing: the push that replaced it does.
        let until = sooner(why, expiry: fate == PushFate.Kind.pending.rawValue ? push["expiresAt"] : nil)
        let line = "push \(apnsID) is \(fate)\(text.map { " (\($0))" } ?? "")"
        // Only a pending push, or one coalesced into a push still waiting for its wake or
        // reload (no wake yet: the wake, an expiry or a drop of its successor decides it), can
        // still change. (A Live Activity push coalesced is settled: no wake ever takes it.)
        let waiting =
            fate == PushFate.Kind.pending.rawValue
            || (fate == PushFate.Kind.coalesced.rawValue && push["pushType"] as? String != APNsPushType.liveactivity.rawValue
                && (push["wakeId"] == nil || push["wakeId"] is NSNull))
        // Met as every reader reports it now (one fate per push, however it is asked).
        let met = fate == expected.rawValue
        guard manual, waiting, !met, until == nil, fate == PushFate.Kind.coalesced.rawValue,
            let device = push["deviceToken"] as? String, let topic = push["topic"] as? String
        else { return (met, !waiting, line, until) }
        // Coalesced into a push still waiting: the push now waiting in its app's slot decides
        // it, so the clock moves to the time that one waits until or expires, not past it.
        let head = try await object("/v1/pushes?device=\(Self.encoded(device))&topic=\(Self.encoded(topic))&fate=pending&limit=1")
        let decider = (head["pushes"] as? [[String: Any]])?.first
        return (met, false, line, sooner(decider?["why"], expiry: decider?["expiresAt"]))
    }

    private func wakesSeen(
        device: String, topic: String?, expected: Int, since: Int64?
    ) async throws -> (met: Bool, final: Bool, line: String, until: Int64?) {
        var path = "/v1/wakes?device=\(device)&limit=1000"
        if let since {
            let time = ISO8601Timestamp.string(millisecondsSinceEpoch: since)
            path += "&from=\(Self.encoded(time))"
        }
        if let topic {
            path += "&topic=\(Self.encoded(topic))"
        } else {
            path += "&kind=\(WakeKind.fetch.rawValue)"
        }
        // Every page, so the line says how many there are, not how many were asked for.
        let count = try await pages(path, of: "wakes").records.count
        let line =
            "device \(device) woke \(count) time\(count == 1 ? "" : "s")"
            + (since.map { " since \(ISO8601Timestamp.string(millisecondsSinceEpoch: $0))" } ?? "")
        // More wakes than expected is final: wakes are never taken back.
        return (count == expected, count > expected, line, nil)
    }

    private func activitiesSeen(
        device: String, topic: String, applied: Int?, state: String?, now: Int64
    ) async throws -> (met: Bool, final: Bool, line: String, until: Int64?) {
        let encoded = Self.encoded(topic)
        let activities = try await object("/v1/devices/\(device)/apps/\(encoded)/activities")["activities"] as? [[String: Any]] ?? []
        let updates = activities.flatMap { $0["updates"] as? [[String: Any]] ?? [] }
        let count = updates.count { $0["applied"] as? Bool == true }
        let newest = activities.last?["state"] as? String
        // The next time a held update is due or an activity's state changes (stale, ended by the
        // system, dismissed), for a manual clock to move to: a state is seen before it passes.
        func time(_ value: Any?) -> Int64? { Self.time(value).flatMap { $0 > now ? $0 : nil } }
        let held = updates.compactMap { $0["outcome"] as? String == "waiting" ? time($0["until"]) : nil }
        let changes = activities.flatMap { activity -> [Int64] in
            switch activity["state"] as? String {
            case "active": [time(activity["staleDate"]), time(activity["activeUntil"])].compactMap { $0 }
            case "stale": [time(activity["activeUntil"])].compactMap { $0 }
            case "ended": [time(activity["dismissalDate"])].compactMap { $0 }
            default: []
            }
        }
        let until = (held + changes).min()
        let line =
            "\(topic) on device \(device) has \(activities.count) Live Activit\(activities.count == 1 ? "y" : "ies"), \(count) update\(count == 1 ? "" : "s") applied"
            + (newest.map { ", the newest \($0)" } ?? "")
        let met = (applied.map { $0 == count } ?? true) && (state.map { $0 == newest } ?? true)
        // Applied updates are never taken back; a dismissed activity stays dismissed.
        let final = applied.map { count > $0 } ?? false || (state != nil && state != "dismissed" && newest == "dismissed")
        return (met, final, line, until)
    }

    /// The relaunches of done transfers whose file is not settled yet: whether one runs in real
    /// time now (launched, or due), and the device times the others wait for: a pending one's
    /// (a penalty), a launched one's time limit (a manual clock moves there; the handler is
    /// given real time to end before it is crossed).
    private func relaunchWaits(device: String, transfers: [[String: Any]], now: Int64) async throws -> (runs: Bool, until: [Int64]) {
        let unsettled = transfers.filter { $0["state"] as? String == "done" && $0["file"] is NSNull && $0["relaunchRequestId"] is Int }
        guard !unsettled.isEmpty else { return (false, []) }
        let runs = try await object("/v1/task-runs?device=\(device)&neverRan=false&limit=1000")["runs"] as? [[String: Any]] ?? []
        var realTime = false
        var until: [Int64] = []
        for topic in Set(unsettled.compactMap { $0["topic"] as? String }).sorted() {
            let pending = try await object("/v1/devices/\(device)/apps/\(Self.encoded(topic))/tasks")["requests"] as? [[String: Any]] ?? []
            for transfer in unsettled where transfer["topic"] as? String == topic {
                let requestID = transfer["relaunchRequestId"] as? Int
                let wait: Int64?
                if let request = pending.first(where: { $0["id"] as? Int == requestID }) {
                    wait = Self.time((request["why"] as? [String: Any])?["until"])
                } else {
                    // Launched: its run's time limit, while it runs.
                    let run = runs.first { $0["requestId"] as? Int == requestID && $0["finishedAt"] is NSNull }
                    wait = Self.time(run?["deadline"])
                }
                if let wait, wait > now { until.append(wait) } else { realTime = true }
            }
        }
        return (realTime, until)
    }

    /// The most transfers one `--transfer` check reads, in pages of 1,000.
    static let transfersReadAtMost = 100_000

    /// The records (under `key`) of every page of the paged list `path`, following each
    /// page's `next`, until one has none or `atMost` records are read; `complete`: every page
    /// was read.
    private func pages(_ path: String, of key: String, atMost: Int = .max) async throws -> (records: [[String: Any]], complete: Bool) {
        var records: [[String: Any]] = []
        var cursor: String?
        repeat {
            let page = try await object(path + (cursor.map { "&cursor=\($0)" } ?? ""))
            records += page[key] as? [[String: Any]] ?? []
            cursor = page["next"] as? String
        } while cursor != nil && records.count < atMost
        return (records, cursor == nil)
    }

    private func transfersSeen(
        device: String, topic: String?, session: String?, state: TransferRecord.State, file: TransferRecord.FileFate?, now: Int64
    ) async throws -> (met: Bool, final: Bool, line: String, until: Int64?) {
        var path = "/v1/transfers?device=\(device)&limit=1000"
        if let topic { path += "&topic=\(Self.encoded(topic))" }
        if let session { path += "&session=\(Self.encoded(session))" }
        // Every page, up to a bound that keeps one check's reads finite.
        let (transfers, complete) = try await pages(path, of: "transfers", atMost: Self.transfersReadAtMost)
        guard complete else {
            return (
                false, true,
                "device \(device) has \(Self.transfersReadAtMost) transfers or more, past what one check reads: narrow it with --topic or --session",
                nil
            )
        }
        let states = transfers.map { $0["state"] as? String ?? "" }
        let met =
            !transfers.isEmpty && states.allSatisfy { $0 == state.rawValue }
            && (file.map { file in transfers.allSatisfy { $0["file"] as? String == file.rawValue } } ?? true)
        // An ended transfer's state never changes again.
        let ended = Set([TransferRecord.State.done, .failed, .cancelled].map(\.rawValue))
        let final = states.contains { ended.contains($0) && $0 != state.rawValue }
        // A try under way, or a relaunch launched (or due), runs in real time: `now` says wait
        // for it. Else a retry's time, or the time a relaunch still pending waits for (a
        // penalty), for a manual clock to move to. A done transfer with no relaunch asked yet
        // waits for its session's others, whose times are among the transfers'.
        let (relaunchRuns, relaunchTimes) = try await relaunchWaits(device: device, transfers: transfers, now: now)
        let underWay = relaunchRuns || transfers.contains { $0["state"] as? String == "running" }
        let times =
            transfers.compactMap { Self.time(($0["why"] as? [String: Any])?["until"]).flatMap { $0 > now ? $0 : nil } } + relaunchTimes
        let until = underWay && !met ? now : times.min()
        var counts: [String: Int] = [:]
        for transfer in transfers {
            let state = transfer["state"] as? String ?? ""
            // Asked about files: a done one says what became of its file.
            let key = file != nil && state == "done" ? "\(state) (file \(transfer["file"] as? String ?? "not settled yet"))" : state
            counts[key, default: 0] += 1
        }
        let summary = counts.keys.sorted().map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        let waiting = transfers.first { $0["state"] as? String == "waiting" }.flatMap { ($0["why"] as? [String: Any])?["text"] as? String }
        let line =
            "device \(device) has \(transfers.count) transfer\(transfers.count == 1 ? "" : "s")" + (summary.isEmpty ? "" : ": \(summary)")
            + (waiting.map { " (\($0))" } ?? "")
        return (met, final, line, until)
    }

    /// A time the admin API wrote (an ISO 8601 string), in device-clock ms; nil for anything
    /// else (null, absent, malformed).
    private static func time(_ value: Any?) -> Int64? {
        (value as? String).flatMap(ISO8601Timestamp.millisecondsSinceEpoch(parsing:))
    }

    private func advance(milliseconds: Int64) async throws {
        guard milliseconds > 0 else { return }
        // The receiver answers once it has played the whole span, each wake's handler given up
        // to its deadline in real time: minutes, not the seconds a read takes.
        _ = try await object("/v1/clock/advance", body: #"{"seconds": \#(Double(milliseconds) / 1000)}"#, timeout: .seconds(Self.advanceTimeout))
    }

    /// `text` as a path segment or query value: what is not a letter, digit, `.`, `-` or `_`
    /// percent-encoded.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_"))) ?? text
    }

    /// How long a move of the manual clock may take to answer, in seconds.
    static let advanceTimeout: Int64 = 600

    /// A JSON object from the admin API; nil for a 404 when `missingIsNil`.
    private func object(
        _ path: String, body: String? = nil, missingIsNil: Bool = false, timeout: TimeAmount = .seconds(5)
    ) async throws -> [String: Any]? {
        let url = admin + path
        var request = HTTPClientRequest(url: url)
        if let body {
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            // Every admin route answers well within the timeout; nobody listening is said at once.
            response = try await AdminExporter.execute(request, timeout: timeout)
            bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw AdminExporter.Failure.noAnswer(
                url: admin, what: (body == nil ? "GET " : "POST ") + path, seconds: Int(timeout.nanoseconds / 1_000_000_000))
        } catch is NIOTooManyBytesError {
            throw AdminExporter.Failure.refused(status: 200, detail: "an answer to \(path) over 16 MiB: narrow the check with --topic")
        } catch {
            throw AdminExporter.Failure.unreachable(url: admin, problem: AdminExporter.problem(error))
        }
        if response.status == .notFound, missingIsNil { return nil }
        guard response.status == .ok else {
            throw AdminExporter.Failure.refused(
                status: Int(response.status.code), body: bytes, location: response.headers.first(name: "Location"), asked: request.url)
        }
        return (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
    }

    private func object(_ path: String) async throws -> [String: Any] {
        try await object(path, body: nil, missingIsNil: false) ?? [:]
    }

    /// "20m", "90s", "1h30m", "500ms": a span as `--within` takes it.
    static func words(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        let milliseconds = duration.components.attoseconds / 1_000_000_000_000_000
        let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        let text =
            (hours > 0 ? "\(hours)h" : "") + (minutes > 0 ? "\(minutes)m" : "") + (rest > 0 ? "\(rest)s" : "")
            + (milliseconds > 0 ? "\(milliseconds)ms" : "")
        return text.isEmpty ? "0s" : text
    }

    /// A JUnit XML report of one outcome, as CI systems read it.
    package static func junit(_ outcome: Outcome, timestamp: String) -> String {
        let time = String(format: "%.3f", outcome.seconds)
        let failures = outcome.met ? 0 : 1
        let failure =
            outcome.met ? "" : "\n      <failure message=\"\(escaped(outcome.line))\" type=\"expectation\">\(escaped(outcome.line))</failure>"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="pushsend expect" tests="1" failures="\(failures)" time="\(time)">
              <testsuite name="pushsend expect" tests="1" failures="\(failures)" errors="0" time="\(time)" timestamp="\(escaped(timestamp))">
                <testcase classname="pushsend.expect" name="\(escaped(outcome.name))" time="\(time)">\(failure)
                  <system-out>\(escaped(outcome.line))</system-out>
                </testcase>
              </testsuite>
            </testsuites>

            """
    }

    /// A JUnit XML report of a check that could not be made (the admin API refused, or did not
    /// answer): one `testcase` with an `error`, so a report an earlier run left is replaced.
    package static func junit(name: String, error: String, timestamp: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="pushsend expect" tests="1" failures="0" errors="1" time="0.000">
          <testsuite name="pushsend expect" tests="1" failures="0" errors="1" time="0.000" timestamp="\(escaped(timestamp))">
            <testcase classname="pushsend.expect" name="\(escaped(name))" time="0.000">
              <error message="\(escaped(error))" type="admin">\(escaped(error))</error>
            </testcase>
          </testsuite>
        </testsuites>

        """
    }

    /// Text as XML character data or an attribute value.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // XML 1.0 has no way to write other control characters.
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r": out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
