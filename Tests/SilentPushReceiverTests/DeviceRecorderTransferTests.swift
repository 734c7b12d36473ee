import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import Testing

/// Background transfers through the device side's state machine: event in, actions out. A
/// transfer's tries are actions for the executor; a session's end is a relaunch, a task
/// request of kind `urlSession` that takes the device's budgets like any launch.
@Suite struct DeviceRecorderTransferTests {
    static let device = DeviceRecorderTests.device
    static let app = DeviceRecorder.App(device: device, topic: "com.example.app")
    static func at(_ seconds: Int64) -> DeviceInstant { DeviceRecorderTests.at(seconds) }

    static func recorder(dailyBudget: Int? = nil) -> DeviceRecorder {
        var settings = WakeSettings.ios
        settings.dailyBudget = dailyBudget
        return DeviceRecorder(policy: DeviceRecorder.Policy(settings: settings), firstTaskRequestID: 7, armsTimers: true)
    }

    static func request(_ session: String = "S", discretionary: Bool = false) throws -> TransferRequest {
        try TransferRequest(session: session, url: "http://127.0.0.1:9/blob", discretionary: discretionary)
    }

    static func phases(_ actions: DeviceRecorder.Actions) -> [(UInt64, TransferRecord.State, String?)] {
        actions.changes.compactMap { if case .setTransferPhase(let id, let state, let why, _) = $0 { (id, state, why) } else { nil } }
    }

    /// A record of `GET /v1/transfers`, copied into a handler's answer, reads as its request:
    /// every field the admin API writes is a request's or a record's (none refused as unknown).
    @Test func theAdminAPIsRecordReadsBackAsItsRequest() throws {
        let request = try TransferRequest(
            session: "S", url: "http://127.0.0.1:9/up", method: .PUT, discretionary: true, allowsCellular: false, fromFile: "/tmp/body")
        let record = TransferRecord(id: 5, deviceToken: Self.device, topic: "com.example.app", request: request, handedOverAt: Self.at(0))
        let json = AdminAPI.json(record)
        guard case .object(let fields) = json else {
            Issue.record("not an object: \(json)")
            return
        }
        #expect(Set(fields.map(\.0)) == TransferRequest.requestFields.union(TransferRequest.recordFields))
        #expect(TransferRequest.parse(json.rendered) == .success(request))
    }

    /// `Content-Range` as a resume reads it: where a part starts, and the body's whole length.
    @Test func contentRangesAreReadAndNonsenseIsNot() {
        typealias Range = TransferClient.ContentRange
        #expect(Range("bytes 100-199/200").map { [$0.first, $0.completeLength] } == [100, 200])
        #expect(Range("bytes */50000").map { [$0.first, $0.completeLength] } == [nil, 50_000])
        #expect(Range("bytes 0-9/*").map { [$0.first, $0.completeLength] } == [0, nil])
        for nonsense in ["bytes 9-0/10", "bytes -1-5/10", "items 0-1/2", "bytes 0-1", "bytes 0-1/-3", "bytes 99999999999999999999-1/2", ""] {
            #expect(Range(nonsense) == nil, "\(nonsense)")
        }
    }

    @Test func aHandOverIsRecordedAndItsFirstTryStarts() throws {
        var recorder = Self.recorder()
        let actions = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        guard case .insertTransfer(let row) = actions.changes.first else { Issue.record("no row: \(actions.changes)"); return }
        #expect(row.id == 1 && row.wakeID == 3 && row.taskRunID == nil && row.session == "S")
        #expect(Self.phases(actions).map(\.1) == [.running])
        #expect(actions.transferStarts.map(\.id) == [1] && actions.transferStarts.first?.attempt == 1)
        #expect(actions.reply == .done)
    }

    @Test func atTheCapAHandOverIsRefusedAndRecordedFailed() throws {
        var settings = TransferPolicy.Settings()
        settings.maximumPerApp = 1
        var recorder = DeviceRecorder(policy: DeviceRecorder.Policy(settings: .ios), transfers: TransferPolicy(settings: settings), armsTimers: false)
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        let refused = recorder.handOver(try Self.request(), id: 2, app: Self.app, source: .taskRun(4), now: Self.at(1))
        #expect(refused.reply == .transferRefused(.tooMany))
        guard case .insertTransfer(let row) = refused.changes.first else { Issue.record("no row"); return }
        #expect(row.state == .failed && row.taskRunID == 4 && row.reason == "refused: " + TransferRefusal.tooMany.rawValue)
        #expect(refused.transferStarts.isEmpty)
        // Nothing of it was kept, so nothing is discarded.
        #expect(refused.transferDiscards.isEmpty)
    }

    @Test func aForgottenDevicesTransfersStopAndTheirFilesGo() throws {
        var recorder = Self.recorder()
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        let forgotten = recorder.forget(Self.device, now: Self.at(1)) { _ in }
        #expect(forgotten.transferInterrupts == [1] && forgotten.transferDiscards == [1])
        #expect(recorder.transfers.transfers.isEmpty)
    }

    @Test func aDoneTransferKeepsItsFileForTheRelaunch() throws {
        var recorder = Self.recorder()
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        let done = recorder.transferTryEnded(1, attempt: 1, .completed(bytes: 10, status: 200, etag: nil, lastModified: nil), now: Self.at(5))
        #expect(done.transferDiscards.isEmpty)
    }

    @Test func aTransferPastItsResourceTimeoutFailsAndItsBytesAreDiscarded() throws {
        var settings = TransferPolicy.Settings()
        settings.resourceTimeout = .seconds(60)
        var recorder = DeviceRecorder(policy: DeviceRecorder.Policy(settings: .ios), transfers: TransferPolicy(settings: settings), armsTimers: false)
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        _ = recorder.transferTryEnded(1, attempt: 1, .cutOff(error: "gone", bytes: 3), now: Self.at(1))
        let timedOut = recorder.advance(to: Self.at(61))
        #expect(timedOut.changes.contains { if case .finishTransfer(1, .failed, _, _, _, _, _, _) = $0 { true } else { false } })
        #expect(timedOut.transferDiscards == [1])
    }

    @Test func aCompletedSessionRelaunchesTheAppThroughTheWakePolicy() throws {
        var recorder = Self.recorder()
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        let done = recorder.transferTryEnded(1, attempt: 1, .completed(bytes: 10, status: 200, etag: "\"e\"", lastModified: nil), now: Self.at(5))
        #expect(
            done.changes.contains {
                if case .finishTransfer(1, .done, _, 10, nil, 200, "\"e\"", nil) = $0 { true } else { false }
            })
        // The relaunch: a request of kind urlSession, named after the session, launched now.
        let request = done.changes.compactMap { if case .insertTaskRequest(let record) = $0 { record } else { nil } }.first
        #expect(request?.request.kind == .urlSession && request?.request.identifier == "S" && request?.id == 7)
        #expect(done.changes.contains { if case .setTransferRelaunch([1], 7) = $0 { true } else { false } })
        #expect(done.taskRuns.map(\.request.kind) == [.urlSession])
        #expect(done.taskRuns.first?.deadline == Self.at(5).advanced(by: WakeSettings.ios.relaunchTime))
    }

    @Test func theRelaunchWaitsForTheDevicesBudgetLikeAnyLaunch() throws {
        var recorder = Self.recorder(dailyBudget: 1)
        // A push spends the day's one launch.
        _ = DeviceRecorderTests.receive(&recorder, 1, at: Self.at(0))
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(1), now: Self.at(1))
        let done = recorder.transferTryEnded(1, attempt: 1, .completed(bytes: 1, status: 200, etag: nil, lastModified: nil), now: Self.at(2))
        #expect(done.taskRuns.isEmpty)
        let pending = done.changes.compactMap { if case .setTaskRequest(7, .pending, let why, _) = $0 { why } else { nil } }
        #expect(pending.first.flatMap { $0 }.flatMap(WaitReason<DeviceInstant>.init(stored:))?.rule == .dailyBudget, "\(done.changes)")
    }

    @Test func aReportOfAnOlderTryIsIgnored() throws {
        var recorder = Self.recorder()
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        _ = recorder.setDeviceState(DeviceState(network: .offline), for: Self.device, now: Self.at(1)) { _ in }
        let back = recorder.setDeviceState(DeviceState(), for: Self.device, now: Self.at(2)) { _ in }
        #expect(back.transferStarts.map(\.attempt) == [2])
        let stale = recorder.transferTryEnded(1, attempt: 1, .cutOff(error: "gone", bytes: 3), now: Self.at(3))
        #expect(stale.changes.isEmpty)
    }

    @Test func offlineTheRunningTryIsStoppedAndTheTransferWaits() throws {
        var recorder = Self.recorder()
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        let offline = recorder.setDeviceState(DeviceState(network: .offline), for: Self.device, now: Self.at(1)) { _ in }
        #expect(offline.transferInterrupts == [1])
        #expect(Self.phases(offline).map(\.1) == [.waiting])
        #expect(Self.phases(offline).first?.2.flatMap(WaitReason<DeviceInstant>.init(stored:)) == .offline)
    }

    @Test func forceQuitCancelsAndNothingRelaunches() throws {
        var recorder = Self.recorder()
        _ = recorder.handOver(try Self.request(), id: 1, app: Self.app, source: .wake(3), now: Self.at(0))
        let quit = recorder.setDeviceState(DeviceState(forceQuit: true), for: Self.device, now: Self.at(1)) { _ in }
        #expect(quit.transferInterrupts == [1])
        // Its partial file goes: nothing will hand it to the app.
        #expect(quit.transferDiscards == [1])
        #expect(quit.changes.contains { if case .finishTransfer(1, .cancelled, _, _, _, _, _, _) = $0 { true } else { false } })
        #expect(!quit.changes.contains { if case .insertTaskRequest = $0 { true } else { false } })
        #expect(recorder.transfers.transfers.isEmpty)
    }

    @Test func aRestartPutsBackWhatWasRunningAndRelaunchesAnEndedSession() throws {
        var recorder = Self.recorder()
        var running = TransferRecord(id: 1, deviceToken: Self.device, topic: Self.app.topic, request: try Self.request("A"), handedOverAt: Self.at(0))
        running.state = .running
        running.attempts = 1
        var done = TransferRecord(id: 2, deviceToken: Self.device, topic: Self.app.topic, request: try Self.request("B"), handedOverAt: Self.at(0))
        done.state = .done
        done.finishedAt = Self.at(1)
        let actions = recorder.restoreTransfers([running, done], now: Self.at(10))
        #expect(actions.transferStarts.map(\.id) == [1] && actions.transferStarts.first?.attempt == 2)
        #expect(actions.changes.contains { if case .setTransferRelaunch([2], _) = $0 { true } else { false } })
        #expect(actions.taskRuns.first?.request.identifier == "B")
    }

    /// A request refused at hand-over is put back in no session by a restart: one that asked
    /// for launch events beside a session that sends none leaves the session's next transfer
    /// to be taken, as before the restart.
    @Test func aRestartPutsBackNoRefusedRequest() throws {
        var recorder = Self.recorder()
        var running = TransferRecord(
            id: 1, deviceToken: Self.device, topic: Self.app.topic,
            request: try TransferRequest(session: "S", url: "http://127.0.0.1:9/blob", sessionSendsLaunchEvents: false), handedOverAt: Self.at(0))
        running.state = .running
        running.attempts = 1
        let refused = TransferRecord(
            refused: .launchEventsDiffer, id: 2, deviceToken: Self.device, topic: Self.app.topic, session: "S", url: "http://127.0.0.1:9/other",
            sessionSendsLaunchEvents: true, at: Self.at(1))
        #expect(refused.wasRefused && refused.request != nil)
        let restored = recorder.restoreTransfers([running, refused], now: Self.at(10))
        #expect(restored.transferStarts.map(\.id) == [1])
        let next = try TransferRequest(session: "S", url: "http://127.0.0.1:9/third", sessionSendsLaunchEvents: false)
        #expect(recorder.handOver(next, id: 3, app: Self.app, source: .wake(5), now: Self.at(11)).reply == .done)
    }

    /// A part on disk that its record does not say (the receiver ended without a stop) is
    /// recorded as the try's cut-off; one it says already, and an ended transfer's, are not.
    @Test func aRestartRecordsThePartARunningTryLeftWithoutAStop() throws {
        var recorder = Self.recorder()
        func record(_ id: UInt64, bytes: Int64, ended: Bool = false) throws -> TransferRecord {
            var record = TransferRecord(
                id: id, deviceToken: Self.device, topic: Self.app.topic, request: try Self.request("S\(id)"), handedOverAt: Self.at(0))
            record.state = ended ? .done : .running
            record.finishedAt = ended ? Self.at(1) : nil
            record.attempts = 1
            record.bytes = bytes
            return record
        }
        let records = [try record(1, bytes: 0), try record(2, bytes: 500), try record(3, bytes: 900, ended: true)]
        let actions = recorder.restoreTransfers(records, keptParts: [1: 300, 2: 500, 3: 100], now: Self.at(10))
        let cutOffs: [(UInt64, Int64)] = actions.changes.compactMap {
            if case .setTransferCutOff(let id, _, let bytes) = $0 { (id, bytes) } else { nil }
        }
        #expect(cutOffs.map(\.0) == [1] && cutOffs.map(\.1) == [300], "\(cutOffs)")
        #expect(Set(actions.transferStarts.map(\.id)) == [1, 2])
    }
}
