import Foundation
import Synchronization
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// Background transfers against a real origin (`Tests/origin/origin_server.py`): handed over
/// by a wake's handler, run by the device under its conditions, and the relaunch for the
/// session with its files.
@Suite struct BackgroundTransferLiveTests {
    static let device = SamplePush.deviceToken
    static let topic = SamplePush.topic

    /// What the relaunch's handler saw and did.
    final class Relaunches: Sendable {
        private let seen = Mutex<[(session: String?, files: [TransferFile], kept: [String: [UInt8]])]>([])

        var all: [(session: String?, files: [TransferFile], kept: [String: [UInt8]])] { seen.withLock { $0 } }

        func record(_ task: BackgroundTask, moveTo directory: String?) {
            var kept: [String: [UInt8]] = [:]
            for file in task.files {
                guard let path = file.path, let directory else { continue }
                let destination = directory + "/\(file.transferID)"
                if (try? FileManager.default.moveItem(atPath: path, toPath: destination)) != nil {
                    kept[destination] = Array(FileManager.default.contents(atPath: destination) ?? Data())
                }
            }
            seen.withLock { $0.append((task.session, task.files, kept)) }
        }
    }

    /// A new directory a relaunch's handler moves its files to (the caller removes it).
    static func keptDirectory() throws -> String {
        try Scratch.newDirectory("kept")
    }

    /// The bytes of `/blob/N` from 0 to `count`.
    static func blob(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

    /// A handler whose wakes hand over `requests` (the payload's `transfer` URLs), and whose
    /// relaunches record what they get, moving the files to `keep` (nil: leaving them), then
    /// calling `edit` with the path of each file moved.
    static func handler(
        _ relaunches: Relaunches, keep: String?, edit: (@Sendable (String) -> Void)? = nil,
        request: @escaping @Sendable (String) throws -> TransferRequest
    ) -> FetchHandlerChoice {
        .handler(
            ClosureFetchHandler(withContext: { wake, context in
                guard let text = String(bytes: wake.payload, encoding: .utf8),
                    let url = text.split(separator: "\"").first(where: { $0.hasPrefix("http") }).map(String.init)
                else { return .noData }
                do {
                    try context.startBackgroundTransfer(try request(url))
                    return .newData
                } catch {
                    return .failed(reason: "\(error)")
                }
            }) { task in
                relaunches.record(task, moveTo: keep)
                if let keep, let edit {
                    for file in task.files where file.path != nil { edit(keep + "/\(file.transferID)") }
                }
                task.setTaskCompleted(success: true)
            })
    }

    /// The first wake, once it has ended.
    static func endedWake(_ receiver: Receiver) async throws -> WakeRecord {
        for _ in 0..<500 {
            if let wake = try await receiver.wakes().first, wake.finishedAt != nil { return wake }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no wake ended within 5 s")
        throw CancellationError()
    }

    /// The relaunch for `session` once its run has ended; nil if none ended within 10 s.
    static func endedRelaunch(_ receiver: Receiver, session: String) async throws -> TaskRunRecord? {
        for _ in 0..<1000 {
            if let run = try await receiver.taskRuns().first(where: { $0.identifier == session && $0.outcome != nil }) { return run }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    static func push(_ client: TestPushClient, _ url: String) async throws {
        let answer = try await client.push(#"{"aps":{"content-available":1},"transfer":"\#(url)"}"#, to: device)
        #expect(answer.status == 200)
    }

    @Test(arguments: DeviceClock.Mode.allCases)
    func aDownloadOutlivesTheWakeAndTheRelaunchGetsItsFile(clock: DeviceClock.Mode) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.clock = clock
            $0.wakeSettings.deadline = .milliseconds(500)
            $0.fetchHandler = Self.handler(relaunches, keep: keep) { try TransferRequest(session: "S1", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            // 400 kB at 200 kB/s: about two seconds, while the wake's handler answered at once
            // and its wake, limited to 500 ms, has ended.
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/400000?rate=200000")
            let ended = try await Self.endedWake(receiver)
            let whileEnded = try #require(try await receiver.transfers(session: "S1").first)
            #expect(ended.result == .newData && whileEnded.state == .running, "the wake ended while its transfer ran: \(whileEnded)")
            let done = try await receiver.waitForTransfers(session: "S1") { $0.first?.fileFate != nil }
            let transfer = try #require(done.first)
            #expect(transfer.state == .done && transfer.bytes == 400_000 && transfer.status == 200, "\(transfer)")
            #expect(transfer.wakeID == (try await receiver.wakes().first?.id))
            #expect(transfer.fileFate == .moved)
            let wake = try #require(try await receiver.wakes().first)
            #expect(wake.result == .newData && wake.finishedAt! <= transfer.handedOverAt.advanced(by: .seconds(1)))
            // On the system clock the transfer ends past the wake's own time limit.
            if clock == .system { #expect(try #require(transfer.finishedAt) > wake.deadline, "\(transfer) \(wake)") }
            // The relaunch: a run of kind urlSession with the session's id and its file.
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.kind == .urlSession && run.identifier == "S1" && run.outcome == .completed, "\(run)")
            #expect(transfer.relaunchRequestID == run.requestID)
            let seen = try #require(relaunches.all.first)
            #expect(seen.session == "S1" && seen.files.map(\.transferID) == [transfer.id] && seen.files.first?.bytes == 400_000)
            #expect(seen.kept.values.first == Self.blob(400_000))
            await client.close()
        }
    }

    @Test(arguments: DeviceClock.Mode.allCases)
    func aFileTheHandlerDoesNotMoveIsGoneAfterTheRelaunch(clock: DeviceClock.Mode) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.clock = clock
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "S2", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/1000")
            let done = try await receiver.waitForTransfers(session: "S2") { $0.first?.fileFate != nil }
            #expect(done.first?.fileFate == .deleted, "\(done)")
            let path = try #require(relaunches.all.first?.files.first?.path)
            #expect(!FileManager.default.fileExists(atPath: path))
            // pushsend expect --file moved says what it saw of the file.
            let expected = try await PushSendExpectTests.pushsend([
                "expect", "--admin", "http://127.0.0.1:\(try #require(receiver.adminPort))", "--device", Self.device, "--session", "S2",
                "--transfer", "done", "--file", "moved",
            ])
            #expect(
                expected.status == 1 && expected.output.contains("1 transfer: 1 done (file deleted)"), "\(expected.output)\(expected.errorOutput)")
            await client.close()
        }
    }

    /// A done transfer whose file is not on the receiver when its relaunch starts (deleted
    /// from the contents directory, or never on a cluster's new owner) is handed to the app
    /// with no path and an error saying the file is gone, and no file fate is recorded.
    @Test func aDoneTransferWhoseFileIsGoneIsHandedOverWithoutAPath() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("transfer-gone-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "F", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            // About a second: Low Power Mode comes while it runs, and holds the relaunch.
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/40000?rate=40000")
            try await receiver.waitForTransfers(session: "F") { $0.first?.state == .running }
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true))
            let done = try await receiver.waitForTransfers(session: "F") { $0.first?.relaunchRequestID != nil }
            let transfer = try #require(done.first)
            #expect(transfer.state == .done && transfer.bytes == 40_000, "\(transfer)")
            let pending = try await receiver.taskRequests().first { $0.request.kind == .urlSession }
            #expect(pending?.state == .pending && pending?.why?.rule == .lowPowerMode, "\(String(describing: pending))")
            try FileManager.default.removeItem(atPath: directory + "/store.sqlite-contents/transfers/\(transfer.id)")
            try await receiver.setDeviceState(DeviceState())
            let run = try await Self.endedRelaunch(receiver, session: "F")
            #expect(run?.outcome == .completed, "\(String(describing: run))")
            let files = try #require(relaunches.all.first?.files)
            #expect(files.map(\.path) == [nil] && files.map(\.bytes) == [40_000], "\(files)")
            #expect(files.map(\.error) == ["its file is gone: not in this receiver's contents directory"], "\(files)")
            #expect(try await receiver.transfers(session: "F").first?.fileFate == nil)
            await client.close()
        }
    }

    /// The tries the origin saw for a blob of `size`: where each started.
    static func starts(_ origin: HTTPFetchHandlerTests.Origin, size: Int) -> [Int] {
        origin.log.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("blob \(size) from=") else { return nil }
            return Int(line.dropFirst("blob \(size) from=".count).prefix { $0.isNumber })
        }
    }

    @Test(arguments: DeviceClock.Mode.allCases)
    func offlineItStopsAndResumesWhereItWasWhenTheNetworkReturns(clock: DeviceClock.Mode) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.clock = clock
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "S3", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/600000?rate=300000")
            try await receiver.waitForTransfers(session: "S3") { $0.first?.state == .running }
            try await Task.sleep(for: .milliseconds(600))
            try await receiver.setDeviceState(DeviceState(network: .offline))
            let waiting = try await receiver.waitForTransfers(session: "S3") { $0.first?.state == .waiting }
            #expect(waiting.first?.why == .offline, "\(waiting)")
            // The part the stopped try kept is what the record says it has.
            let stopped = try await receiver.waitForTransfers(session: "S3") { $0.first?.lastError != nil }
            #expect(stopped.first?.lastError == "stopped: the device went offline", "\(stopped)")
            let kept = try #require(stopped.first?.bytes)
            #expect(kept > 0 && kept < 600_000, "\(stopped)")
            try await receiver.setDeviceState(DeviceState(network: .online))
            let done = try await receiver.waitForTransfers(session: "S3", timeout: .seconds(20)) { $0.first?.fileFate != nil }
            let transfer = try #require(done.first)
            #expect(transfer.state == .done && transfer.bytes == 600_000 && transfer.attempts == 2, "\(transfer)")
            // The second try asked for the rest, and the app got every byte once.
            let starts = Self.starts(origin, size: 600_000)
            #expect(starts.count == 2 && starts[0] == 0 && starts[1] == Int(kept), "\(origin.log)")
            #expect(relaunches.all.first?.files.first?.bytes == 600_000)
            // Each byte counted once: the stopped try's, then the rest.
            #expect(receiver.metric("silentpush_transfer_bytes_total") == 600_000)
            await client.close()
        }
    }

    @Test func anOriginFailingMidwayIsRetriedAfterItsDelayAndResumes() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.fetchHandler = Self.handler(relaunches, keep: keep) { try TransferRequest(session: "S4", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/300000?fail=1&cut=100000&name=flaky")
            let cut = try await receiver.waitForTransfers(session: "S4") { $0.first?.state == .waiting }
            let waiting = try #require(cut.first)
            guard case .transferRetry(let attempt, let until)? = waiting.why else {
                Issue.record("not waiting to retry: \(waiting)")
                return
            }
            // The manual clock stood still: the retry is the first delay after the hand-over.
            #expect(attempt == 2 && until == waiting.handedOverAt.advanced(by: .seconds(60)), "\(waiting)")
            // The bytes that arrived before the cut are kept (TCP may lose the last ones in flight).
            #expect(waiting.lastError != nil && waiting.bytes > 0 && waiting.bytes <= 100_000, "\(waiting)")
            // In the receiver's words, not the HTTP parser's ("stream ended at an unexpected time").
            #expect(waiting.lastError?.hasSuffix("closed the connection before the answer ended") == true, "\(waiting)")
            // The retry comes when the device's clock reaches it, not before.
            try await receiver.advanceClock(by: .seconds(30))
            #expect(try await receiver.transfers(session: "S4").first?.state == .waiting)
            let admin = "http://127.0.0.1:\(try #require(receiver.adminPort))"
            let early = try await PushSendExpectTests.pushsend([
                "expect", "--admin", admin, "--device", Self.device, "--transfer", "done", "--within", "10s",
            ])
            #expect(
                early.status == 1 && early.output.contains("1 waiting (waiting: the last try did not finish (lastError says why); try 2"),
                "\(early.output)\(early.errorOutput)")
            // pushsend moves the clock to the retry, then waits for the try and the relaunch.
            let expected = try await PushSendExpectTests.pushsend([
                "expect", "--admin", admin, "--device", Self.device, "--session", "S4", "--transfer", "done", "--file", "moved",
                "--within", "1m",
            ])
            #expect(expected.status == 0 && expected.output.hasPrefix("ok: device"), "\(expected.output)\(expected.errorOutput)")
            let done = try await receiver.waitForTransfers(session: "S4") { $0.first?.fileFate != nil }
            #expect(done.first?.state == .done && done.first?.attempts == 2, "\(done)")
            #expect(Self.starts(origin, size: 300_000) == [0, Int(waiting.bytes)], "\(origin.log)")
            #expect(relaunches.all.first?.kept.values.first == Self.blob(300_000))
            await client.close()
        }
    }

    /// A try cut off keeps its part, and the transfer's `bytes` is that part's size; the next
    /// try asks for the rest, and the bytes metric counts each byte of the answer once. The
    /// URL downloaded again is a 304: the whole file, and no byte counted.
    @Test func aResumedDownloadCountsEachByteOnceAndA304None() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "B", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let url = "http://127.0.0.1:\(origin.port)/blob/300000?fail=1&cut=100000&name=counted"
            try await Self.push(client, url)
            let cut = try await receiver.waitForTransfers(session: "B") { $0.first?.state == .waiting }
            let kept = try #require(cut.first?.bytes)
            #expect(kept > 0 && kept <= 100_000, "\(cut)")
            #expect(receiver.metric("silentpush_transfer_bytes_total") == Double(kept))
            try await receiver.advanceClock(by: .seconds(60))
            let done = try await receiver.waitForTransfers(session: "B") { $0.first?.fileFate != nil }
            #expect(done.first?.state == .done && done.first?.bytes == 300_000 && done.first?.attempts == 2, "\(done)")
            #expect(Self.starts(origin, size: 300_000) == [0, Int(kept)], "\(origin.log)")
            // The second try added the rest, not the file again.
            #expect(receiver.metric("silentpush_transfer_bytes_total") == 300_000)
            try await Self.push(client, url)
            let both = try await receiver.waitForTransfers(session: "B") { $0.count == 2 && $0[1].fileFate != nil }
            #expect(both.last?.state == .done && both.last?.bytes == 300_000 && both.last?.status == 200, "\(both)")
            #expect(Self.starts(origin, size: 300_000) == [0, Int(kept)], "a 304 sends no body: \(origin.log)")
            #expect(relaunches.all.last?.files.first?.bytes == 300_000)
            #expect(receiver.metric("silentpush_transfer_bytes_total") == 300_000)
            await client.close()
        }
    }

    /// A resumed try whose 206 holds less than the rest (a shorter range, as its
    /// Content-Range says) does not finish the file: it is a cut, and the next try resumes
    /// after it, so the app is handed the whole body, once.
    @Test func aResumeAnsweredWithAShorterRangeIsResumedAgainNotDone() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "R", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/300000?fail=1&cut=100000&short=1&name=shortened")
            let cut = try await receiver.waitForTransfers(session: "R") { $0.first?.state == .waiting }
            let kept = try #require(cut.first?.bytes)
            try await receiver.advanceClock(by: .seconds(60))
            let short = try await receiver.waitForTransfers(session: "R") {
                ($0.first?.attempts == 2 && $0.first?.state == .waiting) || $0.first?.fileFate != nil
            }
            #expect(short.first?.state == .waiting && short.first?.bytes == kept + 1_000, "\(short)")
            #expect(short.first?.lastError?.contains("answered 206 with the body to byte \(kept + 1_000) of 300000") == true, "\(short)")
            try await receiver.advanceClock(by: .seconds(120))
            let done = try await receiver.waitForTransfers(session: "R") { $0.first?.fileFate != nil }
            #expect(done.first?.state == .done && done.first?.bytes == 300_000 && done.first?.attempts == 3, "\(done)")
            #expect(Self.starts(origin, size: 300_000) == [0, Int(kept), Int(kept) + 1_000], "\(origin.log)")
            #expect(relaunches.all.first?.files.first?.bytes == 300_000)
            #expect(receiver.metric("silentpush_transfer_bytes_total") == 300_000)
            await client.close()
        }
    }

    /// A resumed try that gets no answer (the origin is gone) leaves the part it would have
    /// resumed, and the transfer's `bytes` still says its size.
    @Test func aResumedTryThatGetsNoAnswerKeepsItsPart() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("transfer-no-answer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            // The connection pool tries to connect again until this timeout.
            $0.transfers.requestTimeout = .seconds(1)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "G", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/300000?fail=1&cut=100000&name=gone")
            let cut = try await receiver.waitForTransfers(session: "G") { $0.first?.state == .waiting }
            let kept = try #require(cut.first)
            #expect(kept.bytes > 0 && kept.bytes <= 100_000, "\(kept)")
            // The origin goes away: the second try, asking for the rest, is refused a connection.
            origin.stop()
            _ = await origin.process.wait(timeout: .seconds(5))
            try await receiver.advanceClock(by: .seconds(60))
            let again = try await receiver.waitForTransfers(session: "G") { transfers in
                if case .transferRetry(3, _)? = transfers.first?.why { true } else { false }
            }
            let transfer = try #require(again.first)
            #expect(transfer.attempts == 2 && transfer.bytes == kept.bytes, "\(transfer)")
            let part = directory + "/store.sqlite-contents/transfers/\(transfer.id).part"
            #expect((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int64) == kept.bytes)
            #expect(receiver.metric("silentpush_transfer_bytes_total") == Double(kept.bytes))
            await client.close()
        }
    }

    /// A resume the origin answers 416: a part kept whole (its length the body's, as the 416
    /// says) completes with no byte sent again; a part longer than the body starts over.
    @Test(arguments: [50_000, 50_010])
    func aResumeAnswered416CompletesAPartKeptWholeOrStartsOver(kept: Int) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("transfers-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // What a receiver stopped between the last byte and the end left for transfer 1.
        let transfers = directory + "/store.sqlite-contents/transfers"
        try FileManager.default.createDirectory(atPath: transfers, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: transfers + "/1.part", contents: Data(Self.blob(kept)))
        try #""blob-50000""#.write(toFile: transfers + "/1.part.validator", atomically: true, encoding: .utf8)
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            $0.transfers.retryDelay = .milliseconds(200)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "R", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/50000")
            if kept != 50_000 {
                let cut = try await receiver.waitForTransfers(session: "R") { $0.first?.state == .waiting }
                #expect(cut.first?.lastError?.contains("cannot resume at byte 50010 (416): the next try starts over") == true, "\(cut)")
                #expect(!FileManager.default.fileExists(atPath: transfers + "/1.part"), "what was kept is gone")
                try await receiver.advanceClock(by: .seconds(1))
            }
            let done = try await receiver.waitForTransfers(session: "R", timeout: .seconds(20)) { $0.first?.state == .done }
            let transfer = try #require(done.first)
            #expect(transfer.status == 200 && transfer.bytes == 50_000, "\(transfer)")
            #expect(origin.log.contains("blob 50000 unsatisfiable from=\(kept)"), "\(origin.log)")
            if kept == 50_000 {
                #expect(transfer.attempts == 1 && !origin.log.contains("blob 50000 from=0"), "no byte sent again: \(origin.log)")
                #expect(transfer.etag == #""blob-50000""#, "the part's validator is the body's: \(transfer)")
            } else {
                #expect(transfer.attempts == 2 && origin.log.contains("blob 50000 from=0"), "started over: \(origin.log)")
            }
            await client.close()
        }
    }

    @Test func discretionaryOnCellularWaitsForWiFiAndPower() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { url in
                try TransferRequest(
                    session: url.contains("cellular") ? "wifi-only" : "discretionary", url: url,
                    discretionary: !url.contains("cellular"), allowsCellular: !url.contains("cellular"))
            }
        }) { receiver in
            try await receiver.setDeviceState(DeviceState(networkType: .cellular))
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/2000?via=discretionary")
            let discretionary = try await receiver.waitForTransfers(session: "discretionary") { $0.first?.why != nil }
            #expect(discretionary.first?.why == .discretionary(wifi: false, charging: false, lowPowerMode: false), "\(discretionary)")
            try await receiver.advanceClock(by: .seconds(16 * 60))
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/2000?via=cellular")
            let wifiOnly = try await receiver.waitForTransfers(session: "wifi-only") { $0.first?.why != nil }
            #expect(wifiOnly.first?.why == .wifiRequired, "\(wifiOnly)")
            // Wi-Fi: the one that may not use cellular runs; the discretionary one waits for power.
            try await receiver.setDeviceState(DeviceState(networkType: .wifi))
            try await receiver.waitForTransfers(session: "wifi-only") { $0.first?.state == .done }
            #expect(
                try await receiver.transfers(session: "discretionary").first?.why == .discretionary(wifi: true, charging: false, lowPowerMode: false))
            try await receiver.setDeviceState(DeviceState(charging: true, networkType: .wifi))
            let done = try await receiver.waitForTransfers(session: "discretionary") { $0.first?.state == .done }
            #expect(done.first?.bytes == 2000)
            await client.close()
        }
    }

    @Test(arguments: DeviceClock.Mode.allCases)
    func forceQuitCancelsTheTransferAndNothingRelaunches(clock: DeviceClock.Mode) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("transfer-quit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.clock = clock
            $0.store = .file(directory + "/store.sqlite")
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "S5", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/500000?rate=100000")
            try await receiver.waitForTransfers(session: "S5") { $0.first?.state == .running }
            let kept = directory + "/store.sqlite-contents/transfers"
            func parts() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: kept)) ?? []).filter { $0.hasSuffix(".part") } }
            for _ in 0..<100 where parts().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            #expect(parts().count == 1, "a part of the body arrived before the force-quit")
            try await receiver.setDeviceState(DeviceState(forceQuit: true))
            let cancelled = try await receiver.waitForTransfers(session: "S5") { $0.first?.state == .cancelled }
            #expect(cancelled.first?.state == .cancelled && cancelled.first?.relaunchRequestID == nil, "\(cancelled)")
            // The system discards a cancelled download's data (once the stopped try has unwound).
            for _ in 0..<100 where !parts().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            #expect(parts().isEmpty, "\(parts())")
            try await receiver.setDeviceState(DeviceState())
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await receiver.taskRuns().isEmpty && relaunches.all.isEmpty)
            await client.close()
        }
    }

    /// A cancelled transfer says why: the app was force-quit, or deleted by a reinstall.
    @Test func aCancelledTransferSaysWhetherTheAppWasForceQuitOrDeleted() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "C", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/500000?rate=100000")
            try await receiver.waitForTransfers(session: "C") { $0.first?.state == .running }
            try await receiver.setDeviceState(DeviceState(forceQuit: true))
            let quit = try await receiver.waitForTransfers(session: "C") { $0.first?.state == .cancelled }
            #expect(quit.first?.reason == "the app was force-quit: the system cancels its background transfers", "\(quit)")
            try await receiver.setDeviceState(DeviceState())
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/500001?rate=100000")
            try await receiver.waitForTransfers(session: "C") { $0.count == 2 && $0.last?.state == .running }
            _ = try await receiver.device.reinstall(Self.device)
            let deleted = try await receiver.waitForTransfers(session: "C") { $0.count == 2 && $0.last?.state == .cancelled }
            #expect(
                deleted.last?.reason == "the app was deleted (uninstalled or reinstalled): the system cancels its background transfers", "\(deleted)")
            await client.close()
        }
    }

    /// A force-quit while a session has one transfer done and another running: the done
    /// one's file goes at once (`fileFate` `deleted`), and a restart relaunches nothing for
    /// the session (its cancelled transfer is not read back, the done one must not be either).
    @Test func aForceQuitDiscardsTheSessionsDoneFileAndARestartRelaunchesNothing() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-quit-done")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            // One wake hands over both: a slow download, then a quick one.
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { _, context in
                    for url in ["/blob/500000?rate=100000", "/blob/1000"] {
                        _ = try? context.startBackgroundTransfer(TransferRequest(session: "S8", url: "http://127.0.0.1:\(origin.port)" + url))
                    }
                    return .newData
                }) { task in
                    relaunches.record(task, moveTo: nil)
                    task.setTaskCompleted(success: true)
                })
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let both = try await receiver.waitForTransfers(session: "S8") { $0.count == 2 && $0.last?.state == .done }
            let done = try #require(both.last)
            #expect(both.first?.state == .running, "\(both)")
            #expect(FileManager.default.fileExists(atPath: directory + "/store.sqlite-contents/transfers/\(done.id)"))
            try await receiver.setDeviceState(DeviceState(forceQuit: true))
            let ended = try await receiver.waitForTransfers(session: "S8") { $0.first?.state == .cancelled && $0.last?.fileFate != nil }
            #expect(ended.last?.id == done.id && ended.last?.fileFate == .deleted && ended.last?.relaunchRequestID == nil, "\(ended)")
            for _ in 0..<100 where FileManager.default.fileExists(atPath: directory + "/store.sqlite-contents/transfers/\(done.id)") {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/store.sqlite-contents/transfers/\(done.id)"))
            await client.close()
        }
        try await Receiver.withTesting(configure) { receiver in
            #expect(receiver.resumed.transfers == 0)
            try await receiver.setDeviceState(DeviceState())
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await receiver.taskRuns().isEmpty && relaunches.all.isEmpty)
            #expect(try await receiver.taskRequests().isEmpty)
        }
    }

    /// Retention prunes ended transfers with what the receiver kept for them: the file of a
    /// session that sends no launch events (never handed over), and the body kept for a 304
    /// once no record left names its URL.
    @Test func retentionDeletesAPrunedTransfersFileAndThenItsURLsCache() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-retention")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.clock = .manual
            $0.store = .file(directory + "/store.sqlite")
            $0.wakeSettings = .debugger
            $0.retention = .init(maximumAge: .seconds(86_400), maximumPushes: nil)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) {
                try TransferRequest(session: "Q", url: $0, sessionSendsLaunchEvents: false)
            }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let transfers = directory + "/store.sqlite-contents/transfers"
            func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: transfers + "/" + name) }
            func cached() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: transfers + "/cache")) ?? []).count }
            let url = "http://127.0.0.1:\(origin.port)/blob/1000"
            try await Self.push(client, url)
            let first = try #require(try await receiver.waitForTransfers(session: "Q") { $0.first?.state == .done }.first)
            #expect(exists(String(first.id)) && cached() == 1)
            try await receiver.advanceClock(by: .seconds(36 * 3600))
            try await Self.push(client, url)
            let both = try await receiver.waitForTransfers(session: "Q") { $0.count == 2 && $0.last?.state == .done }
            let second = try #require(both.last)
            try await receiver.advanceClock(by: .seconds(14 * 3600))
            // The first is 50 hours old, the second 14: the second still names the URL's body.
            let pruned = try await receiver.pruneStore()
            #expect(pruned.transfers.map(\.id) == [first.id], "\(pruned)")
            #expect(!exists(String(first.id)) && exists(String(second.id)) && cached() == 1)
            try await receiver.advanceClock(by: .seconds(11 * 3600))
            #expect(try await receiver.pruneStore().transfers.map(\.id) == [second.id])
            #expect(!exists(String(second.id)) && cached() == 0)
            #expect(try await receiver.transfers(session: "Q").isEmpty && relaunches.all.isEmpty)
            await client.close()
        }
    }

    /// A relaunch still running when the receiver stops is interrupted, not terminated: its
    /// files stay, and the next start relaunches the app for the session again, with them.
    @Test func aRelaunchTheStopInterruptsRunsAgainWithItsFilesAtTheNextStart() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-relaunch-stop")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let relaunches = Relaunches()
        let first = Atomic(true)
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.shutdownGrace = .milliseconds(200)
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { wake, context in
                    let url = String(decoding: wake.payload, as: UTF8.self).split(separator: "\"").first { $0.hasPrefix("http") }
                    _ = try? context.startBackgroundTransfer(TransferRequest(session: "R", url: url.map(String.init) ?? ""))
                    return .newData
                }) { task in
                    // The first run hangs past the stop; the next moves the file away.
                    if first.exchange(false, ordering: .relaxed) {
                        try? await Task.sleep(for: .seconds(3600))
                        return
                    }
                    relaunches.record(task, moveTo: keep)
                    task.setTaskCompleted(success: true)
                })
        }
        var id: UInt64 = 0
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/1000")
            let done = try await receiver.waitForTransfers(session: "R") { $0.first?.relaunchRequestID != nil }
            id = try #require(done.first?.id)
            for _ in 0..<200 where try await receiver.taskRuns().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await receiver.taskRuns().first?.outcome == nil, "the relaunch runs")
            await client.close()
        }
        try await Receiver.withTesting(configure) { receiver in
            var runs = try await receiver.taskRuns()
            for _ in 0..<500 where runs.count < 2 || runs.last?.outcome == nil {
                try await Task.sleep(for: .milliseconds(10))
                runs = try await receiver.taskRuns()
            }
            #expect(runs.map(\.outcome) == [.interrupted, .completed], "\(runs)")
            let moved = try #require(relaunches.all.first?.kept[keep + "/\(id)"])
            #expect(moved == Self.blob(1000))
            let transfer = try #require(try await receiver.transfers(session: "R").first)
            #expect(transfer.fileFate == .moved, "\(transfer)")
        }
    }

    /// A download that completes while the receiver drains (a wake holds the drain open) is
    /// recorded done, and the next start relaunches the app with its file: nothing is asked of
    /// the origin again.
    @Test func aDownloadDoneDuringTheDrainIsKeptAndRelaunchedAtTheNextStart() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-drain")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.wakeSettings = .debugger
            $0.shutdownGrace = .seconds(10)
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { wake, context in
                    let text = String(decoding: wake.payload, as: UTF8.self)
                    if let url = text.split(separator: "\"").first(where: { $0.hasPrefix("http") }) {
                        _ = try? context.startBackgroundTransfer(TransferRequest(session: "D", url: String(url)))
                    } else {
                        try? await Task.sleep(for: .seconds(3))  // holds the drain open
                    }
                    return .newData
                }) { task in
                    relaunches.record(task, moveTo: nil)
                    task.setTaskCompleted(success: true)
                })
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/150000?rate=100000")
            try await receiver.waitForTransfers(session: "D") { $0.first?.state == .running }
            try await Self.push(client, "hold")
            for _ in 0..<200 where try await receiver.wakes().count < 2 { try await Task.sleep(for: .milliseconds(10)) }
            await client.close()
        }
        #expect(relaunches.all.isEmpty, "the relaunch waits for the next start")
        try await Receiver.withTesting(configure) { receiver in
            let done = try await receiver.waitForTransfers(session: "D") { $0.first?.fileFate != nil }
            #expect(done.first?.state == .done && done.first?.bytes == 150_000 && done.first?.attempts == 1, "\(done)")
            #expect(relaunches.all.first?.files.first?.bytes == 150_000)
            #expect(Self.starts(origin, size: 150_000) == [0], "\(origin.log)")
        }
    }

    /// A session's transfer that failed before a restart, while another ran on, is still the
    /// session's after it: the relaunch hands it over with its reason, beside the other's file.
    @Test func aFailedTransferOfASessionStillRunningIsRelaunchedAfterARestart() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-failed-restart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "S", url: $0) }
        }
        let redirects = "http://127.0.0.1:\(origin.port)/redirect/\(HTTPFetchHandler.redirectLimit + 1)"
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/400000?rate=200000")
            try await receiver.waitForTransfers(session: "S") { $0.first?.state == .running }
            try await Self.push(client, redirects)
            try await receiver.waitForTransfers(session: "S") { $0.contains { $0.state == .failed } }
            await client.close()
        }
        #expect(relaunches.all.isEmpty, "the session had a transfer running")
        try await Receiver.withTesting(configure) { receiver in
            let ended = try await receiver.waitForTransfers(session: "S") { $0.allSatisfy { $0.relaunchRequestID != nil } }
            #expect(ended.count == 2 && Set(ended.compactMap(\.relaunchRequestID)).count == 1, "\(ended)")
            _ = try await Self.endedRelaunch(receiver, session: "S")
            let files = try #require(relaunches.all.first?.files)
            #expect(files.compactMap(\.error) == ["more than \(HTTPFetchHandler.redirectLimit) redirects from \(redirects)"], "\(files)")
            #expect(files.filter { $0.path != nil }.map(\.bytes) == [400_000], "\(files)")
        }
    }

    /// A try the receiver's stop cuts leaves its part in the record (`bytes`, and a
    /// `lastError` that says so), still running; the next start resumes from that part.
    @Test func aTryTheStopCutsKeepsItsPartInTheRecord() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-stop-cut")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.store = .file(directory + "/store.sqlite")
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "K", url: $0) }
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/400000?rate=100000")
            try await receiver.waitForTransfers(session: "K") { $0.first?.state == .running }
            try await Task.sleep(for: .milliseconds(700))
            await client.close()
        }
        let store = try await PushStore.open(.file(directory + "/store.sqlite"))
        let cut = try #require(try await store.transfer(id: 1))
        try await store.close()
        #expect(cut.state == .running && cut.bytes > 0 && cut.bytes < 400_000, "\(cut)")
        #expect(cut.lastError == "stopped: the receiver stopped; its next start resumes it", "\(cut)")
        try await Receiver.withTesting(configure) { receiver in
            let done = try await receiver.waitForTransfers(session: "K") { $0.first?.state == .done }
            #expect(done.first?.bytes == 400_000 && done.first?.attempts == 2, "\(done)")
            #expect(Self.starts(origin, size: 400_000) == [0, Int(cut.bytes)], "\(origin.log)")
        }
    }

    /// After `kill -9` during a try, the restart reads the part on disk into the record
    /// (`bytes`, and a `lastError` that says the receiver ended without a stop) before the
    /// next try, which resumes from it, ends.
    @Test func aRestartAfterKill9RecordsThePartTheTryLeft() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let work = try Scratch.newDirectory("transfer-kill9")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let size = 400_000
        let script = """
            cat >/dev/null
            [ "$SILENTPUSH_TASK_KIND" = urlSession ] && exit 0
            echo 'transfer {"session":"K","url":"http://127.0.0.1:\(origin.port)/blob/\(size)?rate=100000"}'
            echo newData
            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: work + "/handler.sh"))
        let arguments = ["--fetch-exec", "sh \(work)/handler.sh"]
        func transfer(_ admin: Int) async throws -> [String: Any]? {
            (try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers").json["transfers"] as? [[String: Any]])?.first
        }
        let (first, _, h2c, admin) = try await SilentPushdProcessTests.start(arguments, store: work + "/store.sqlite")
        defer { first.signal(SIGKILL) }
        let pushed = try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(Self.device)", port: h2c, tls: false,
            headers: ["apns-topic: \(Self.topic)", "apns-push-type: background", "apns-priority: 5"], body: #"{"aps":{"content-available":1}}"#)
        #expect(pushed.status == 200)
        for _ in 0..<200 {
            if try await transfer(admin)?["state"] as? String == "running" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(1_200))
        first.signal(SIGKILL)
        _ = await first.wait()

        let (second, _, _, restartedAdmin) = try await SilentPushdProcessTests.start(arguments, store: work + "/store.sqlite")
        defer { second.signal(SIGKILL) }
        let restarted = try #require(try await transfer(restartedAdmin))
        let kept = restarted["bytes"] as? Int ?? 0
        #expect(kept > 0 && kept < size, "\(restarted)")
        #expect(restarted["lastError"] as? String == "stopped: the receiver ended without a stop; its next start resumes it", "\(restarted)")
        var done: [String: Any]?
        for _ in 0..<200 {
            done = try await transfer(restartedAdmin)
            if done?["state"] as? String == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(done?["state"] as? String == "done" && done?["bytes"] as? Int == size, "\(String(describing: done))")
        // The next try asked for the rest from where the part ended.
        #expect(Self.starts(origin, size: size) == [0, kept], "\(origin.log)")
    }

    /// Forgetting a device deletes what the receiver kept for its transfers: the file of a
    /// done one whose relaunch waits (the device is in Low Power Mode), and the body kept for
    /// a later 304 of its URL.
    /// A reinstall deletes the app's container: the relaunch waiting for its session is
    /// cancelled and the file its download kept is deleted, so the new install never gets
    /// the old one's file (it stayed pending and handed it over once Low Power Mode ended).
    @Test func aReinstallCancelsTheRelaunchWaitingAndDeletesItsFile() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-reinstall")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "R", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/1000")
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true))
            let done = try await receiver.waitForTransfers(session: "R") { $0.first?.relaunchRequestID != nil }
            let id = try #require(done.first?.id)
            let file = directory + "/store.sqlite-contents/transfers/\(id)"
            #expect(FileManager.default.fileExists(atPath: file))
            // The app's cancelAllTaskRequests() does not reach the relaunch, and says so.
            #expect(try await receiver.device.cancelTasks(device: Self.device, topic: Self.topic) == 0)
            _ = try await receiver.reinstall(Self.device)
            let request = try await receiver.taskRequests().first { $0.request.kind == .urlSession }
            #expect(request?.state == .cancelled, "\(String(describing: request))")
            let deleted = try await receiver.waitForTransfers(session: "R") { $0.first?.fileFate != nil }
            #expect(deleted.first?.fileFate == .deleted, "\(deleted)")
            #expect(!FileManager.default.fileExists(atPath: file))
            try await receiver.setDeviceState(DeviceState())
            await receiver.settle()
            #expect(relaunches.all.isEmpty, "\(relaunches.all)")
            await client.close()
        }
    }

    @Test func forgettingADeviceDeletesItsTransfersFiles() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = try Scratch.newDirectory("transfer-forget")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "F", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/1000")
            let transfers = directory + "/store.sqlite-contents/transfers"
            func files() -> [String] {
                let top = (try? FileManager.default.contentsOfDirectory(atPath: transfers)) ?? []
                let cache = (try? FileManager.default.contentsOfDirectory(atPath: transfers + "/cache")) ?? []
                return top.filter { $0 != "cache" } + cache.map { "cache/" + $0 }
            }
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true))
            let done = try await receiver.waitForTransfers(session: "F") { $0.first?.relaunchRequestID != nil }
            let id = try #require(done.first?.id)
            #expect(done.first?.etag != nil, "\(done)")
            #expect(files().contains(String(id)) && files().contains { $0.hasPrefix("cache/") }, "\(files())")
            #expect(relaunches.all.isEmpty, "Low Power Mode holds the relaunch")
            try await receiver.device.forget(device: Self.device)
            #expect(files().isEmpty, "\(files())")
            #expect(try await receiver.transfers(session: "F").isEmpty)
            await client.close()
        }
    }

    @Test(arguments: DeviceClock.Mode.allCases)
    func aRestartedReceiverResumesTheTransfer(clock: DeviceClock.Mode) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("transfer-restart-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relaunches = Relaunches()
        let configure: (inout ReceiverConfiguration) -> Void = {
            $0.clock = clock
            $0.store = .file(directory + "/store.sqlite")
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "S6", url: $0) }
        }
        try await Receiver.withTesting(configure) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/blob/600000?rate=300000")
            try await receiver.waitForTransfers(session: "S6") { $0.first?.state == .running }
            try await Task.sleep(for: .milliseconds(700))
            await client.close()
        }
        // Stopped mid-transfer: the record says running, and part of the file is kept in the
        // store's contents directory.
        let kept = directory + "/store.sqlite-contents/transfers"
        let parts = try FileManager.default.contentsOfDirectory(atPath: kept).filter { $0.hasSuffix(".part") }
        #expect(parts.count == 1, "\(parts)")
        let partial = (try? FileManager.default.attributesOfItem(atPath: kept + "/" + (parts.first ?? ""))[.size] as? Int) ?? 0
        #expect(partial > 0 && partial < 600_000, "\(partial)")
        try await Receiver.withTesting(configure) { receiver in
            #expect(receiver.resumed.transfers == 1)
            let done = try await receiver.waitForTransfers(session: "S6", timeout: .seconds(20)) { $0.first?.fileFate != nil }
            #expect(done.first?.state == .done && done.first?.bytes == 600_000 && done.first?.attempts == 2, "\(done)")
            let starts = Self.starts(origin, size: 600_000)
            #expect(starts.count == 2 && starts[1] > 0, "\(origin.log)")
            #expect(relaunches.all.count == 1)
        }
    }

    /// The resident memory of process `pid`, in kB.
    static func rss(_ pid: Int32) -> Int {
        let status = String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/status") ?? Data(), as: UTF8.self)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// `silentpushd` with an exec handler: a wake hands over a 50 MB download and two requests
    /// the device refuses; the relaunch moves its file away. The receiver's memory stays
    /// within 20 MB of what it was idle: the body goes to disk as it arrives.
    @Test func anExecHandlerHandsOverA50MBDownloadThatNeverSitsInMemory() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let work = Scratch.directory.appendingPathComponent("exec-transfer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work + "/kept", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let size = 50 * 1024 * 1024
        let script = """
            cat >/dev/null
            if [ "$SILENTPUSH_TASK_KIND" = urlSession ]; then
              echo "$SILENTPUSH_SESSION" > \(work)/session
              mv "$SILENTPUSH_FILES" \(work)/kept/ && exit 0
              exit 1
            fi
            echo 'transfer {"session":"big","url":"http://127.0.0.1:\(origin.port)/blob/\(size)"}'
            echo 'transfer {"session":"bad","url":"ftp://alice:s3cret@127.0.0.1/file"}'
            echo 'transfer {"session":"bad","url":"http://127.0.0.1/","method":"DELETE"}'
            echo newData
            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: work + "/handler.sh"))
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--fetch-exec", "sh \(work)/handler.sh"])
        defer { process.signal(SIGKILL) }
        try await Task.sleep(for: .milliseconds(300))
        let idle = Self.rss(process.pid)
        let sampling = Task {
            var peak = 0
            while !Task.isCancelled {
                peak = max(peak, Self.rss(process.pid))
                try? await Task.sleep(for: .milliseconds(20))
            }
            return peak
        }
        let pushed = try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(Self.device)", port: h2c, tls: false,
            headers: ["apns-topic: \(Self.topic)", "apns-push-type: background", "apns-priority: 5"], body: #"{"aps":{"content-available":1}}"#)
        #expect(pushed.status == 200)
        var transfers: [[String: Any]] = []
        for _ in 0..<600 {
            transfers = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers").json["transfers"] as? [[String: Any]] ?? []
            if transfers.contains(where: { $0["file"] as? String != nil }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        sampling.cancel()
        let peak = await sampling.value
        let big = try #require(transfers.first { $0["session"] as? String == "big" }, "\(transfers)")
        #expect(big["state"] as? String == "done" && big["bytes"] as? Int == size && big["file"] as? String == "moved", "\(big)")
        // The refusals are recorded with the wake that handed them over, with their reasons.
        let wake = try #require(big["wakeId"] as? Int)
        let ofWake = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers?wake=\(wake)").json["transfers"] as? [[String: Any]] ?? []
        let reasons = ofWake.compactMap { ($0["why"] as? [String: Any])?["text"] as? String }.sorted()
        #expect(
            reasons
                == [
                    "refused: " + TransferRefusal.unknownMethod.rawValue, "refused: " + TransferRefusal.notHTTP.rawValue,
                    "its file holds the origin's whole answer; the app was relaunched for its session and moved the file",
                ].sorted(), "\(ofWake)")
        // A password in a URL is not shown.
        #expect(ofWake.contains { $0["url"] as? String == "ftp://***@127.0.0.1/file" } && !"\(ofWake)".contains("s3cret"), "\(ofWake)")
        // The relaunch got the session and moved the whole file away.
        #expect(String(decoding: FileManager.default.contents(atPath: work + "/session") ?? Data(), as: UTF8.self) == "big\n")
        let kept = try FileManager.default.contentsOfDirectory(atPath: work + "/kept")
        #expect(kept.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: work + "/kept/" + (kept.first ?? ""))
        #expect((attributes[.size] as? Int) == size)
        print("50 MB transfer: idle RSS \(idle) kB, peak \(peak) kB, +\((peak - idle) / 1024) MB")
        #expect(peak - idle < 20 * 1024, "idle \(idle) kB, peak \(peak) kB")
        let metrics = try await PeerProcess.run("curl", ["-sS", "http://127.0.0.1:\(admin)/metrics"]).output
        #expect(metrics.contains("silentpush_transfers_ended_total{state=\"done\"} 1"), "\(metrics)")
        // The two refused were handed over too: handed over = ended + not yet ended.
        #expect(metrics.contains("silentpush_transfers_ended_total{state=\"failed\"} 2"), "\(metrics)")
        #expect(metrics.contains("silentpush_transfers_handed_over_total 3"), "\(metrics)")
        #expect(metrics.contains("silentpush_transfer_bytes_total \(size)"))
    }

    /// The http handler: a feed that is a manifest hands its `transfers` over; the relaunch
    /// POSTs the session and its files to the handler's URL.
    @Test func anHTTPHandlersManifestHandsOverItsTransfers() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try origin.write(
            "manifest",
            // The origin's own content may give a key twice (only the transfers are the device's to read).
            #"{"edition":7,"edition":8,"transfers":[{"session":"M","url":"http://127.0.0.1:\#(origin.port)/blob/5000"},{"session":"M","url":"gopher://x","discretionary":true,"sessionSendsLaunchEvents":false},"#
                + #"{"session":"M","url":"http://127.0.0.1:\#(origin.port)/upload/x","method":"PUT","fromFile":"/etc/hostname"},"#
                + #"{"session":"M","url":"http://e.com/one","url":"http://e.com/two"}]}"#)
        try await Receiver.withTesting({
            $0.fetchHandler = .url(try! FetchURLTemplate("http://127.0.0.1:\(origin.port)/feed/manifest"))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let done = try await receiver.waitForTransfers { $0.contains { $0.fileFate != nil } }
            let transfer = try #require(done.first { $0.state == .done }, "\(done)")
            #expect(transfer.session == "M" && transfer.bytes == 5000 && transfer.etag == "\"blob-5000\"")
            // A refused transfer is recorded with the flags it asked for.
            #expect(
                done.contains {
                    $0.state == .failed && $0.reason == "refused: " + TransferRefusal.notHTTP.rawValue && $0.url == "gopher://x" && $0.discretionary
                        && !$0.sessionSendsLaunchEvents
                }, "\(done)")
            // A transfer naming a field twice is refused on its own, recorded with what it said
            // first, and URLSession's defaults for the flags it did not give.
            #expect(
                done.contains {
                    $0.reason == "refused: " + TransferRefusal.repeatedField.rawValue && $0.session == "M" && $0.url == "http://e.com/one"
                        && $0.sessionSendsLaunchEvents && $0.allowsCellular && !$0.discretionary
                }, "\(done)")
            // An origin may not have the receiver upload its own files: refused, and recorded as the PUT it was.
            let upload = try #require(done.first { $0.reason == "refused: " + TransferRefusal.fileFromOrigin.rawValue }, "\(done)")
            #expect(upload.method == .PUT && upload.fromFile == "/etc/hostname" && upload.state == .failed)
            #expect(!origin.log.contains("upload PUT"), "\(origin.log)")
            // The relaunch was POSTed to the feed's URL, which answers no {"success": …}: it failed, and left the file.
            #expect(transfer.fileFate == .deleted)
            #expect(origin.log.contains("POST /feed/manifest"), "\(origin.log)")
            #expect(try await receiver.taskRuns().first?.kind == .urlSession)
            await client.close()
        }
    }

    /// An http handler's answer whose `transfers` is not an array hands nothing over, and says
    /// so in a refused transfer of its wake (it was silently taken as the origin's content).
    @Test func anHTTPHandlersTransfersThatAreNotAnArrayAreRefused() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try origin.write("manifest", #"{"transfers":{"session":"M","url":"http://127.0.0.1:\#(origin.port)/blob/5000"}}"#)
        try await Receiver.withTesting({
            $0.fetchHandler = .url(try! FetchURLTemplate("http://127.0.0.1:\(origin.port)/feed/manifest"))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let refused = try await receiver.waitForTransfers { !$0.isEmpty }
            #expect(refused.map(\.reason) == ["refused: " + TransferRefusal.transfersNotAnArray.rawValue], "\(refused)")
            #expect(refused.first?.state == .failed && refused.first?.wakeID != nil, "\(refused)")
            await client.close()
        }
    }

    /// A second transfer of a URL asks with the validators the first got; a 304 hands the app
    /// the body kept then. An origin that sends an ETag is asked with `If-None-Match`, one
    /// that sends only `Last-Modified` with `If-Modified-Since`.
    @Test(arguments: [false, true])
    func aURLTransferredBeforeIsAskedForWithItsValidators(lastModifiedOnly: Bool) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(relaunches, keep: keep) { try TransferRequest(session: "V", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let url = "http://127.0.0.1:\(origin.port)/blob/3000" + (lastModifiedOnly ? "?validators=modified" : "")
            try await Self.push(client, url)
            try await receiver.waitForTransfers(session: "V") { $0.count == 1 && $0[0].fileFate != nil }
            try await Self.push(client, url)
            let both = try await receiver.waitForTransfers(session: "V") { $0.count == 2 && $0[1].fileFate != nil }
            #expect(both.map(\.state) == [.done, .done] && both.map(\.bytes) == [3000, 3000], "\(both)")
            let asked = origin.log.split(separator: "\n").filter { $0.hasPrefix("GET /blob/3000") }
            #expect(asked.count == 2, "\(origin.log)")
            if lastModifiedOnly {
                #expect(both.map(\.etag) == [nil, nil] && both.allSatisfy { $0.lastModified != nil }, "\(both)")
                #expect(asked.last?.contains("if-none-match=None if-modified-since=") == true, "\(origin.log)")
                #expect(asked.last?.hasSuffix("if-modified-since=None") == false, "\(origin.log)")
            } else {
                #expect(asked.last?.contains("if-none-match=\"blob-3000\"") == true, "\(origin.log)")
            }
            #expect(Self.starts(origin, size: 3000) == [0], "one body sent: the second was a 304")
            #expect(relaunches.all.count == 2 && relaunches.all.allSatisfy { $0.kept.values.first == Self.blob(3000) })
            await client.close()
        }
    }

    /// The app owns the file it moves away: editing it in place does not change the body the
    /// receiver keeps for the URL, and a later download answered 304 hands out the origin's.
    @Test func anAppEditingItsMovedFileLeavesWhatA304HandsOut() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        // The store's contents and the app's directory on one file system: a move keeps the file's inode.
        let directory = Scratch.directory.appendingPathComponent("transfer-edit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keep = directory + "/kept"
        try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
        let edit = Array(" edited by the app".utf8)
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            $0.wakeSettings = .debugger
            $0.fetchHandler = Self.handler(
                relaunches, keep: keep,
                edit: { path in
                    guard let handle = FileHandle(forWritingAtPath: path) else { return }
                    _ = try? handle.seekToEnd()
                    try? handle.write(contentsOf: edit)
                    try? handle.close()
                }
            ) { try TransferRequest(session: "E", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let url = "http://127.0.0.1:\(origin.port)/blob/3000"
            try await Self.push(client, url)
            let first = try await receiver.waitForTransfers(session: "E") { $0.count == 1 && $0[0].fileFate != nil }
            #expect(first.first?.etag == "\"blob-3000\"" && first.first?.fileFate == .moved, "\(first)")
            let firstID = try #require(first.first?.id)
            #expect(FileManager.default.contents(atPath: keep + "/\(firstID)").map(Array.init) == Self.blob(3000) + edit)
            try await Self.push(client, url)
            let both = try await receiver.waitForTransfers(session: "E") { $0.count == 2 && $0[1].fileFate != nil }
            #expect(both.map(\.state) == [.done, .done] && both.last?.bytes == 3000, "\(both)")
            #expect(Self.starts(origin, size: 3000) == [0], "the second was a 304: \(origin.log)")
            // The 304's file is the origin's body, not the app's edit of the first.
            #expect(relaunches.all.count == 2 && relaunches.all.last?.kept.values.first == Self.blob(3000))
            await client.close()
        }
    }

    /// A relaunch whose handler never calls the completion handler is expired, then
    /// terminated; the app's next relaunch waits out the penalty.
    @Test func aRelaunchThatNeverCompletesIsTerminatedAndTheNextWaits() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Receiver.withTesting({
            $0.wakeSettings.relaunchTime = .seconds(1)
            $0.wakeSettings.taskExpirationGrace = .seconds(1)
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { wake, context in
                    _ = try? context.startBackgroundTransfer(
                        TransferRequest(session: "N\(wake.id)", url: "http://127.0.0.1:\(origin.port)/blob/100"))
                    return .newData
                }) { task in
                    // Never calls setTaskCompleted: waits until cancelled.
                    task.expirationHandler = {}
                    try? await Task.sleep(for: .seconds(3600))
                })
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            try await receiver.waitForTransfers { $0.first?.relaunchRequestID != nil }
            try await receiver.advanceClock(by: .seconds(3))
            let run = try #require(try await receiver.taskRuns().first)
            #expect(run.kind == .urlSession && run.outcome == .terminated, "\(run)")
            // The next session's relaunch waits for the penalty (and the push's interval first).
            try await receiver.advanceClock(by: .seconds(16 * 60))
            try await Self.push(client, "-")
            try await receiver.waitForTransfers { $0.count == 2 && $0.allSatisfy { $0.relaunchRequestID != nil } }
            let request = try #require(try await receiver.taskRequests().first { $0.state == .pending && $0.request.kind == .urlSession })
            #expect(request.why?.rule == .taskPenalty, "\(request)")
            // pushsend expect moves the manual clock to the penalty's end, then to the relaunch's
            // time limit (it waited in real time for a relaunch that was not running, for ever).
            let admin = "http://127.0.0.1:\(try #require(receiver.adminPort))"
            let expect = try await PushSendExpectTests.pushsend([
                "expect", "--admin", admin, "--device", Self.device, "--transfer", "done", "--file", "deleted", "--within", "2h",
            ])
            #expect(expect.status == 0, "\(expect.output)\(expect.errorOutput)")
            #expect(try await receiver.taskRuns().filter { $0.kind == .urlSession }.count == 2)
            #expect(try await receiver.taskRequests().allSatisfy { $0.state != .pending }, "the penalty is over: the relaunch ran")
            await client.close()
        }
    }

    /// Many transfers from one origin at once (each device has its own connections) each get a
    /// connection: none waits behind a shared pool until its try is cut off.
    @Test func twelveTransfersFromOneOriginRunAtOnce() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        try await Receiver.withTesting({
            // Each body takes about 2 s; a try that waited 1 s for a connection would be cut off.
            $0.transfers.requestTimeout = .seconds(1)
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { _, context in
                    for index in 0..<12 {
                        _ = try? context.startBackgroundTransfer(
                            TransferRequest(session: "P", url: "http://127.0.0.1:\(origin.port)/blob/40000?rate=20000&n=\(index)"))
                    }
                    return .newData
                }))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let transfers = try await receiver.waitForTransfers(session: "P", timeout: .seconds(30)) {
                $0.count == 12 && $0.allSatisfy { $0.state == .done }
            }
            #expect(transfers.count == 12 && transfers.allSatisfy { $0.state == .done && $0.attempts == 1 && $0.bytes == 40_000 }, "\(transfers)")
            await client.close()
        }
    }

    /// How a task's handler is given: in Swift, as a command, or as a URL.
    enum TaskHandler: String, CaseIterable, Sendable { case swift, exec, http }

    /// A background task's run hands a transfer over as a wake does: the transfer names the
    /// run, and the session's relaunch follows with its file.
    @Test(arguments: TaskHandler.allCases)
    func aTaskRunHandsATransferOver(_ kind: TaskHandler) async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let url = "http://127.0.0.1:\(origin.port)/blob/4000"
        let relaunches = Relaunches()
        let handler: FetchHandlerChoice
        switch kind {
        case .swift:
            handler = .swift { task in
                if task.kind == .urlSession {
                    relaunches.record(task, moveTo: keep)
                } else {
                    _ = try? task.startBackgroundTransfer(TransferRequest(session: "T", url: url))
                }
                task.setTaskCompleted(success: true)
            }
        case .exec:
            let script = keep + "/handler.sh"
            try Data(
                """
                cat >/dev/null
                if [ "$SILENTPUSH_TASK_KIND" = urlSession ]; then mv "$SILENTPUSH_FILES" \(keep)/kept; exit 0; fi
                echo 'transfer {"session":"T","url":"\(url)"}'
                """.utf8
            ).write(to: URL(fileURLWithPath: script))
            handler = .exec("sh \(script)")
        case .http:
            let escaped = try #require(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            handler = .url(try FetchURLTemplate("http://127.0.0.1:\(origin.port)/task/transfer?session=T&url=\(escaped)"))
        }
        try await Receiver.withTesting({
            $0.fetchHandler = handler
            $0.apps = [Self.topic: AppDeclaration(permittedTaskIdentifiers: ["com.example.refresh"], backgroundModes: [.fetch])]
        }) { receiver in
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            let done = try await receiver.waitForTransfers(session: "T") { $0.first?.fileFate != nil }
            let transfer = try #require(done.first)
            let runs = try await receiver.taskRuns()
            let refresh = try #require(runs.first { $0.kind == .refresh }, "\(runs)")
            #expect(transfer.taskRunID == refresh.id && transfer.wakeID == nil, "\(transfer)")
            #expect(transfer.state == .done && transfer.bytes == 4000, "\(transfer)")
            let relaunch = try #require(runs.first { $0.kind == .urlSession }, "\(runs)")
            #expect(relaunch.requestID == transfer.relaunchRequestID && relaunch.identifier == "T" && relaunch.outcome == .completed)
            switch kind {
            case .swift: #expect(relaunches.all.first?.kept.values.first == Self.blob(4000) && transfer.fileFate == .moved)
            case .exec:
                #expect(FileManager.default.contents(atPath: keep + "/kept").map(Array.init) == Self.blob(4000) && transfer.fileFate == .moved)
            // The origin is told of the file, and leaves it: it is deleted.
            case .http: #expect(origin.log.contains("relaunch session=T files=1 bytes=4000") && transfer.fileFate == .deleted, "\(origin.log)")
            }
        }
    }

    /// The config keys (and so their flags) reach the device: a cap of one transfer refuses
    /// the second with its reason, and the relaunch runs for the time given.
    @Test func theTransferKeysReachTheDevice() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let work = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        try Data(
            """
            cat >/dev/null
            [ "$SILENTPUSH_TASK_KIND" = urlSession ] && exit 0
            echo 'transfer {"session":"C","url":"http://127.0.0.1:\(origin.port)/blob/100"}'
            echo 'transfer {"session":"C","url":"http://127.0.0.1:\(origin.port)/blob/200"}'
            echo newData
            """.utf8
        ).write(to: URL(fileURLWithPath: work + "/handler.sh"))
        let config = try SilentPushdConfigTests.write(#"{"transferLimit": 1, "relaunchTime": "7s", "transferRetryDelay": "5s"}"#)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--config", config, "--fetch-exec", "sh \(work)/handler.sh"])
        defer { process.signal(SIGKILL) }
        let pushed = try await ChannelManagementLiveTests.curl(
            "POST", "/3/device/\(Self.device)", port: h2c, tls: false,
            headers: ["apns-topic: \(Self.topic)", "apns-push-type: background", "apns-priority: 5"], body: #"{"aps":{"content-available":1}}"#)
        #expect(pushed.status == 200)
        var runs: [[String: Any]] = []
        for _ in 0..<200 {
            runs = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/task-runs").json["runs"] as? [[String: Any]] ?? []
            if runs.contains(where: { $0["outcome"] is String }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let run = try #require(runs.first, "\(runs)")
        #expect(run["kind"] as? String == "urlSession")
        #expect(try SilentPushdDeviceTests.milliseconds(run["deadline"]) - SilentPushdDeviceTests.milliseconds(run["startedAt"]) == 7_000, "\(run)")
        let transfers = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers").json["transfers"] as? [[String: Any]] ?? []
        let states = transfers.compactMap { $0["state"] as? String }.sorted()
        #expect(states == ["done", "failed"], "\(transfers)")
        let refused = try #require(transfers.first { $0["state"] as? String == "failed" })
        #expect((refused["why"] as? [String: Any])?["text"] as? String == "refused: " + TransferRefusal.tooMany.rawValue, "\(refused)")
        let handedOver = try #require(transfers.first { $0["state"] as? String == "done" })
        #expect(refused["wakeId"] as? Int != nil && refused["wakeId"] as? Int == handedOver["wakeId"] as? Int, "\(transfers)")
    }

    /// An upload answered 307 is sent again, whole, where the answer says (as URLSession does
    /// for an upload from a file), up to the redirect limit; past it the transfer fails.
    @Test func aRedirectedUploadIsSentAgainWhereTheAnswerSays() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let body = Self.blob(50_000)
        try await Receiver.withTesting({
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { wake, context in
                    let photo = keep + "/photo-\(wake.id)"
                    _ = FileManager.default.createFile(atPath: photo, contents: Data(body))
                    for (session, route, hops) in [("twice", "moved", 2), ("far", "moved", 6), ("permanently", "moved301", 1)] {
                        _ = try? context.startBackgroundTransfer(
                            session: session, url: "http://127.0.0.1:\(origin.port)/\(route)/\(hops)/\(session)", method: .PUT, fromFile: photo)
                    }
                    _ = try? context.startBackgroundTransfer(
                        session: "seen", url: "http://127.0.0.1:\(origin.port)/seeother/seen", method: .POST, fromFile: photo)
                    return .newData
                }))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let twice = try await receiver.waitForTransfers(session: "twice") { $0.first?.state == .done }
            #expect(twice.first?.status == 201, "\(twice)")
            #expect(origin.log.contains("upload PUT twice bytes=50000 sha256=\(SHA256Digest.hex(body))"), "\(origin.log)")
            // A 301 to a PUT keeps it a PUT, its copy sent again (only a POST becomes a GET).
            let permanently = try await receiver.waitForTransfers(session: "permanently") { $0.first?.state == .done }
            #expect(permanently.first?.status == 201, "\(permanently)")
            #expect(origin.log.contains("upload PUT permanently bytes=50000 sha256=\(SHA256Digest.hex(body))"), "\(origin.log)")
            // A 303 makes a POST a GET with no body, and a 307 after it keeps that: no copy rides it.
            let seen = try await receiver.waitForTransfers(session: "seen") { $0.first?.state == .done }
            #expect(seen.first?.status == 200, "\(seen)")
            #expect(origin.log.contains("landed seen bytes=0"), "\(origin.log)")
            let far = try await receiver.waitForTransfers(session: "far") { $0.first?.state == .failed }
            #expect(far.first?.state == .failed && far.first?.attempts == 1, "\(far)")
            #expect(far.first?.reason?.hasPrefix("more than 5 redirects from http://127.0.0.1:") == true, "\(far)")
            await client.close()
        }
    }

    /// An upload (`fromFile`, PUT): the device sends the copy of the file it took at hand-over,
    /// so the app may delete its own at once; the origin's answer is the relaunch's file. A
    /// file it cannot read, or one with GET, is refused in the wake's record.
    @Test func anUploadSendsTheFileTheAppHandedOver() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let keep = try Self.keptDirectory()
        defer { try? FileManager.default.removeItem(atPath: keep) }
        let body = Self.blob(300_000)
        let digest = SHA256Digest.hex(body)
        let relaunches = Relaunches()
        let refusals = Mutex<[TransferRefusal]>([])
        try await Receiver.withTesting({
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { wake, context in
                    let photo = keep + "/photo-\(wake.id)"
                    _ = FileManager.default.createFile(atPath: photo, contents: Data(body))
                    _ = try? context.startBackgroundTransfer(
                        session: "up", url: "http://127.0.0.1:\(origin.port)/upload/photo", method: .PUT, fromFile: photo)
                    // A link is followed to its file, whose bytes are copied.
                    try? FileManager.default.createSymbolicLink(atPath: keep + "/link", withDestinationPath: photo)
                    _ = try? context.startBackgroundTransfer(
                        session: "linked", url: "http://127.0.0.1:\(origin.port)/upload/linked", method: .POST, fromFile: keep + "/link")
                    // The system has its copy: the app's may go.
                    try? FileManager.default.removeItem(atPath: photo)
                    // A FIFO is not a file to send: refused without being opened (which would block).
                    _ = mkfifo(keep + "/fifo", 0o600)
                    for (method, path) in [(TransferRequest.Method.PUT, keep + "/missing"), (.GET, keep + "/any"), (.PUT, keep + "/fifo")] {
                        do throws(TransferRefusal) {
                            try context.startBackgroundTransfer(
                                session: "bad", url: "http://127.0.0.1:\(origin.port)/upload/x", method: method, fromFile: path)
                        } catch {
                            refusals.withLock { $0.append(error) }
                        }
                    }
                    return .newData
                }) { task in
                    relaunches.record(task, moveTo: task.session == "bad" ? nil : keep)
                    task.setTaskCompleted(success: true)
                })
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let done = try await receiver.waitForTransfers(session: "up") { $0.first?.fileFate != nil }
            let upload = try #require(done.first)
            #expect(
                upload.state == .done && upload.status == 201 && upload.method == .PUT && upload.fromFile?.hasSuffix("/photo-1") == true, "\(upload)")
            #expect(origin.log.contains("upload PUT photo bytes=300000 sha256=\(digest)"), "\(origin.log)")
            // The relaunch's file is the origin's answer.
            let answer = try #require(relaunches.all.first { $0.session == "up" }?.kept.values.first)
            #expect(String(decoding: answer, as: UTF8.self).contains(digest), "\(String(decoding: answer, as: UTF8.self))")
            #expect(refusals.withLock { $0 } == [.badFile, .uploadWithGET, .badFile])
            let linked = try await receiver.waitForTransfers(session: "linked") { $0.first?.fileFate != nil }
            #expect(linked.first?.state == .done && linked.first?.status == 201, "\(linked)")
            #expect(origin.log.contains("upload POST linked bytes=300000 sha256=\(digest)"), "\(origin.log)")
            let refused = try await receiver.transfers(session: "bad")
            #expect(
                Set(refused.compactMap(\.reason))
                    == ["refused: " + TransferRefusal.badFile.rawValue, "refused: " + TransferRefusal.uploadWithGET.rawValue], "\(refused)")
            // Recorded as the requests they were.
            #expect(refused.count == 3 && refused.allSatisfy { $0.fromFile != nil }, "\(refused)")
            #expect(refused.contains { $0.method == .GET } && refused.filter { $0.method == .PUT }.count == 2, "\(refused)")
            #expect(refused.allSatisfy { $0.wakeID == upload.wakeID })
            await client.close()
        }
    }

    /// An upload whose copy is not on the receiver when its try comes (a cluster's new owner,
    /// or a copy removed by hand) fails at once, not retried, and its session relaunches.
    @Test func anUploadWhoseCopyIsGoneFailsWithoutARetry() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let directory = Scratch.directory.appendingPathComponent("transfer-upload-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let photo = directory + "/photo"
        _ = FileManager.default.createFile(atPath: photo, contents: Data(Self.blob(1000)))
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.store = .file(directory + "/store.sqlite")
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { _, context in
                    _ = try? context.startBackgroundTransfer(
                        session: "up", url: "http://127.0.0.1:\(origin.port)/upload/photo", method: .POST, discretionary: true,
                        fromFile: photo)
                    return .newData
                }) { task in
                    relaunches.record(task, moveTo: nil)
                    task.setTaskCompleted(success: true)
                })
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            // Discretionary, off power: it waits with its copy taken.
            let waiting = try await receiver.waitForTransfers(session: "up") { $0.first?.why != nil }
            let id = try #require(waiting.first?.id)
            let copy = directory + "/store.sqlite-contents/transfers/\(id).upload"
            #expect(FileManager.default.fileExists(atPath: copy))
            try FileManager.default.removeItem(atPath: copy)
            try await receiver.setDeviceState(DeviceState(charging: true))
            let failed = try await receiver.waitForTransfers(session: "up") { $0.first?.relaunchRequestID != nil }
            let transfer = try #require(failed.first)
            #expect(transfer.state == .failed && transfer.attempts == 1, "\(transfer)")
            #expect(transfer.reason == "the copy of its file taken at hand-over is not on this receiver", "\(transfer)")
            #expect(!origin.log.contains("upload POST"), "\(origin.log)")
            await client.close()
        }
    }

    /// A transfer every try of which would end the same way fails at its first, as URLSession
    /// ends the task with an error the relaunch gets: more redirects than the limit
    /// (`NSURLErrorHTTPTooManyRedirects`), a server certificate the host does not trust
    /// (`NSURLErrorServerCertificateUntrusted`; the receiver's own TLS listener, whose
    /// certificate is from the development CA), a redirect to a port no connection can use
    /// (`NSURLErrorBadURL`).
    @Test func aTransferThatCanNeverSucceedFailsWithoutARetry() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.wakeSettings = .debugger
            // The connection pool retries a failed handshake until the request timeout; the
            // receiver's probe of the origin refuses the certificate at once.
            $0.transfers.requestTimeout = .seconds(30)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { url in
                try TransferRequest(session: url.hasPrefix("https") ? "tls" : url.contains("/toport/") ? "badport" : "redirects", url: url)
            }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            // /redirect/N answers after N redirects: one more than the limit.
            let redirects = "http://127.0.0.1:\(origin.port)/redirect/\(HTTPFetchHandler.redirectLimit + 1)"
            let untrusted = "https://127.0.0.1:\(try #require(receiver.tlsPort))/file"
            let badPort = "http://127.0.0.1:\(origin.port)/toport/70000"
            for (session, url, reason) in [
                ("redirects", redirects, "more than \(HTTPFetchHandler.redirectLimit) redirects from \(redirects)"),
                ("tls", untrusted, "the server certificate of \(untrusted) is not trusted"),
                ("badport", badPort, "cannot ask for http://127.0.0.1:70000/: port 70000 is not one from 1 to 65535"),
            ] {
                let began = ContinuousClock.now
                try await Self.push(client, url)
                let ended = try await receiver.waitForTransfers(session: session) { $0.first?.relaunchRequestID != nil }
                #expect(ContinuousClock.now - began < .seconds(10), "\(session): ended after \(ContinuousClock.now - began)")
                let transfer = try #require(ended.first, "\(session)")
                #expect(transfer.state == .failed && transfer.attempts == 1 && transfer.reason == reason, "\(transfer)")
                // The relaunch hands the app no file, and the reason.
                let run = try await Self.endedRelaunch(receiver, session: session)
                #expect(run?.outcome == .completed, "\(String(describing: run))")
                let files = relaunches.all.first { $0.session == session }?.files
                #expect(files?.map(\.path) == [nil] && files?.map(\.error) == [reason], "\(String(describing: files))")
            }
            // One request for the first redirect: the chain was not asked for again.
            #expect(origin.log.split(separator: "\n").filter { $0.hasPrefix("GET /redirect/\(HTTPFetchHandler.redirectLimit + 1) ") }.count == 1)
            await client.close()
        }
    }

    /// An https origin whose CA the receiver is given (`--origin-ca`) is trusted: the transfer
    /// gets its answer (another receiver's TLS listener: a 404, a complete answer, so done).
    @Test func anOriginWhoseCAIsGivenIsTrusted() async throws {
        try await Receiver.withTesting { origin in
            let url = "https://localhost:\(try #require(origin.tlsPort))/file"
            let relaunches = Relaunches()
            try await Receiver.withTesting({
                $0.originCertificateAuthorities = [DevCertificates.ca]
                $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "CA", url: $0) }
            }) { receiver in
                let client = try await TestPushClient.connect(to: receiver)
                try await Self.push(client, url)
                let done = try await receiver.waitForTransfers(session: "CA") { $0.first?.state == .done || $0.first?.state == .failed }
                #expect(done.first?.state == .done && done.first?.status == 404, "\(done)")
                await client.close()
            }
        }
    }

    /// An origin that accepts and then sends nothing is cut off after the request timeout
    /// (`timeoutIntervalForRequest`, here 1 s), and the transfer waits for its retry.
    @Test func anOriginThatSendsNothingIsCutOffAfterTheRequestTimeout() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.transfers.requestTimeout = .seconds(1)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "Q", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let began = ContinuousClock.now
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/slow/20")
            let cut = try await receiver.waitForTransfers(session: "Q", timeout: .seconds(10)) { $0.first?.state == .waiting }
            let waited = ContinuousClock.now - began
            let transfer = try #require(cut.first)
            #expect(transfer.lastError?.hasPrefix("no bytes from http://127.0.0.1:\(origin.port)/slow/20 for 1") == true, "\(transfer)")
            guard case .transferRetry(2, _)? = transfer.why else {
                Issue.record("not waiting to retry: \(transfer)")
                return
            }
            #expect(waited >= .seconds(1) && waited < .seconds(8), "cut off after \(waited)")
            await client.close()
        }
    }

    /// An https origin that speaks no TLS ends the try at once (the pool would have retried
    /// its handshake until the request timeout, 30 s here), and the transfer waits for its
    /// retry saying so in words; a refused hop past a redirect is the one named.
    @Test func aFailedHandshakeOrARefusedHopEndsTheTryAtOnceNamingIt() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        defer { origin.stop() }
        let free = try LoopbackPort.free()
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.wakeSettings = .debugger
            $0.transfers.requestTimeout = .seconds(30)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { url in
                try TransferRequest(session: url.hasPrefix("https") ? "tls" : "hop", url: url)
            }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            for (session, url, error) in [
                (
                    "tls", "https://127.0.0.1:\(origin.port)/file",
                    "no connection to https://127.0.0.1:\(origin.port)/file: the TLS handshake failed ("
                ),
                ("hop", "http://127.0.0.1:\(origin.port)/toport/\(free)", "no connection to http://127.0.0.1:\(free)/: connection refused"),
            ] {
                let began = ContinuousClock.now
                try await Self.push(client, url)
                let cut = try await receiver.waitForTransfers(session: session, timeout: .seconds(20)) { $0.first?.state == .waiting }
                let transfer = try #require(cut.first, "\(session)")
                #expect(transfer.lastError?.hasPrefix(error) == true, "\(transfer)")
                #expect(ContinuousClock.now - began < .seconds(10), "\(session): waited \(ContinuousClock.now - began)")
            }
            await client.close()
        }
    }

    /// On the manual clock, one move plays a failing transfer's retry schedule: each try at
    /// its exact device time, each retry a doubled delay after the try before began (60 s, 120 s,
    /// 240 s, …), not one try per move timed from where the move ended.
    @Test func oneMoveOfTheManualClockPlaysTheRetriesAtTheirDeviceTimes() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        origin.stop()
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.clock = .manual
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "M", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "http://127.0.0.1:\(origin.port)/file")
            let first = try #require(try await receiver.waitForTransfers(session: "M") { $0.first?.state == .waiting }.first)
            // Tries at +0, 60, 180, 420, 900 and 1860 s; the seventh is due at +3780 s.
            try await receiver.advanceClock(by: .seconds(3600))
            let moved = try #require(try await receiver.transfers(session: "M").first)
            #expect(moved.attempts == 6, "\(moved)")
            guard case .transferRetry(7, let until)? = moved.why else {
                Issue.record("not waiting for try 7: \(moved)")
                return
            }
            #expect(until == first.handedOverAt.advanced(by: .seconds(3780)), "\(moved)")
            await client.close()
        }
    }

    /// An origin nobody listens on fails the try at once, as URLSession ends it with
    /// `NSURLErrorCannotConnectToHost` (not at the request timeout, here 30 s, that the
    /// client's pool retried the connect until), saying so in a few words (it read
    /// "connection reset (error set): Connection refused)"), and the transfer waits for its retry.
    @Test func anOriginNobodyListensOnFailsTheTryAtOnceSayingTheConnectionWasRefused() async throws {
        let origin = try await HTTPFetchHandlerTests.Origin()
        origin.stop()
        let relaunches = Relaunches()
        try await Receiver.withTesting({
            $0.transfers.requestTimeout = .seconds(30)
            $0.fetchHandler = Self.handler(relaunches, keep: nil) { try TransferRequest(session: "R", url: $0) }
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let url = "http://127.0.0.1:\(origin.port)/file"
            let began = ContinuousClock.now
            try await Self.push(client, url)
            let cut = try await receiver.waitForTransfers(session: "R", timeout: .seconds(10)) { $0.first?.state == .waiting }
            #expect(ContinuousClock.now - began < .seconds(5), "the try waited \(ContinuousClock.now - began) for a refused connection")
            let transfer = try #require(cut.first)
            #expect(transfer.lastError == "no connection to \(url): connection refused", "\(transfer)")
            guard case .transferRetry(2, _)? = transfer.why else {
                Issue.record("not waiting to retry: \(transfer)")
                return
            }
            await client.close()
        }
    }

    /// A Swift handler that hands over a URL the device cannot try (or a bad session) by
    /// its parts gets the refusal thrown, and the wake's record keeps it, as the exec and
    /// http handlers' refusals are kept.
    @Test func aSwiftHandlersRefusedTransferIsRecordedWithItsWake() async throws {
        let thrown = Mutex<[TransferRefusal]>([])
        try await Receiver.withTesting({
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { _, context in
                    for (session, url) in [("S", "ftp://127.0.0.1/file"), ("", "http://127.0.0.1/")] {
                        do throws(TransferRefusal) {
                            try context.startBackgroundTransfer(session: session, url: url)
                        } catch {
                            thrown.withLock { $0.append(error) }
                        }
                    }
                    return .noData
                }) { task in task.setTaskCompleted(success: true) })
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            let wake = try await Self.endedWake(receiver)
            #expect(thrown.withLock { $0 } == [.notHTTP, .badSession])
            let refused = try await receiver.waitForTransfers { $0.count == 2 }
            #expect(refused.allSatisfy { $0.state == .failed && $0.wakeID == wake.id }, "\(refused)")
            #expect(
                Set(refused.compactMap(\.reason)) == [
                    "refused: " + TransferRefusal.notHTTP.rawValue, "refused: " + TransferRefusal.badSession.rawValue,
                ])
            #expect(refused.contains { $0.url == "ftp://127.0.0.1/file" && $0.session == "S" })
            await client.close()
        }
    }

    /// `GET /v1/transfers` pages as pushes do (`next` is the `cursor` of the page after, null
    /// on the last), and `taskRun` filters as `wake` does.
    @Test func theTransfersListPagesByCursor() async throws {
        try await Receiver.withTesting({
            $0.fetchHandler = .handler(
                ClosureFetchHandler(withContext: { _, context in
                    for n in 0..<3 { _ = try? context.startBackgroundTransfer(session: "P\(n)", url: "ftp://127.0.0.1/\(n)") }
                    return .noData
                }) { task in task.setTaskCompleted(success: true) })
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            try await Self.push(client, "-")
            await client.close()
            try await receiver.waitForTransfers { $0.count == 3 }
            let admin = try #require(receiver.adminPort)
            let first = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers?limit=2").json
            let firstPage = first["transfers"] as? [[String: Any]] ?? []
            #expect(firstPage.compactMap { $0["session"] as? String } == ["P2", "P1"], "\(first)")
            let next = try #require(first["next"] as? String, "\(first)")
            let second = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers?limit=2&cursor=\(next)").json
            #expect((second["transfers"] as? [[String: Any]])?.compactMap { $0["session"] as? String } == ["P0"], "\(second)")
            #expect(second["next"] is NSNull, "\(second)")
            // A full last page has no `next` either.
            let whole = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers?limit=3").json
            #expect((whole["transfers"] as? [[String: Any]])?.count == 3 && whole["next"] is NSNull, "\(whole)")
            let ofRun = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers?taskRun=1").json
            #expect((ofRun["transfers"] as? [[String: Any]])?.isEmpty == true, "\(ofRun)")
            let bad = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/transfers?taskRun=x")
            #expect(bad.status == 422 && bad.json["detail"] as? String == "taskRun must be a task run's id (a whole number)", "\(bad.json)")
        }
    }
}
