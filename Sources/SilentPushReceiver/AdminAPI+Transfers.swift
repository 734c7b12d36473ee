import Hummingbird
import SilentPushCore

/// Background transfers in the admin API: what the apps handed their background sessions,
/// where each is, and how it ended.
extension AdminAPI {
    func addTransferRoutes(to router: Router<BasicRequestContext>) {
        router.getWithHead("/v1/transfers") { request, _ in await self.transfers(request.uri.queryParameters) }
    }

    /// `GET /v1/transfers?device=&topic=&session=&wake=&taskRun=&cursor=&limit=`: transfers,
    /// newest first; `next` is the cursor of the page after, null on the last.
    private func transfers(_ query: Parameters) async -> Response {
        await Self.answering {
            let filter = try Self.filter(query)
            let session = query.get("session")
            if let session, session.isEmpty || session.utf8.count > TransferRequest.maximumSessionLength {
                throw AdminError(
                    .unprocessableContent, "session must be a background session's identifier (1 to \(TransferRequest.maximumSessionLength) bytes)")
            }
            func id(_ name: String, _ what: String) throws(AdminError) -> UInt64? {
                guard let text = query.get(name) else { return nil }
                guard let id = UInt64(text), id <= UInt64(Int64.max) else {
                    throw AdminError(.unprocessableContent, "\(name) must be \(what) (a whole number)")
                }
                return id
            }
            let records = try await device.transfers(
                device: filter.device, topic: filter.topic, session: session, wakeID: id("wake", "a wake's id"),
                taskRunID: id("taskRun", "a task run's id"), before: id("cursor", "the next value of a page before"), limit: filter.limit + 1)
            let (page, next) = Self.page(records, limit: filter.limit, id: \.id)
            return .object([("transfers", .array(page.map(Self.json))), ("next", next)])
        }
    }

    package static func json(_ transfer: TransferRecord) -> JSONValue {
        .object([
            ("id", .int(Int64(bitPattern: transfer.id))), ("deviceToken", .string(transfer.deviceToken)), ("topic", .string(transfer.topic)),
            ("session", .string(transfer.session)), ("url", .string(URLUserInfo.masked(transfer.url))), ("method", .string(transfer.method.rawValue)),
            ("discretionary", .bool(transfer.discretionary)), ("allowsCellular", .bool(transfer.allowsCellular)),
            ("sessionSendsLaunchEvents", .bool(transfer.sessionSendsLaunchEvents)), ("fromFile", .string(transfer.fromFile)),
            ("wakeId", .int(transfer.wakeID.map(Int64.init(bitPattern:)))), ("taskRunId", .int(transfer.taskRunID.map(Int64.init(bitPattern:)))),
            ("handedOverAt", .string(time(transfer.handedOverAt))), ("state", .string(transfer.state.rawValue)),
            ("attempts", .int(Int64(transfer.attempts))), ("bytes", .int(transfer.bytes)), ("status", .int(transfer.status.map(Int64.init))),
            ("finishedAt", .string(transfer.finishedAt.map(time))), ("lastError", .string(transfer.lastError)),
            ("relaunchRequestId", .int(transfer.relaunchRequestID.map(Int64.init(bitPattern:)))),
            ("file", .string(transfer.fileFate?.rawValue)), ("why", why(transfer)),
        ])
    }

    /// What became of a done transfer's file, and why.
    private static func doneWords(_ transfer: TransferRecord) -> String {
        switch (transfer.relaunchRequestID, transfer.fileFate) {
        case (_?, .moved?): "the app was relaunched for its session and moved the file"
        // The relaunch request says which: launched (the app left the file), or cancelled
        // (the app was deleted while its relaunch waited, and its file with it).
        case (let request?, .deleted?):
            "its file was deleted: the app's relaunch for its session left it, or the app was deleted before that relaunch ran (task request \(request), its run or its cancellation in GET /v1/task-runs, says which)"
        case (let request?, nil):
            "the app is relaunched for its session (task request \(request) says when, or what holds it: GET …/apps/{topic}/tasks while it waits, then GET /v1/task-runs)"
        case (nil, .deleted?): "the app was force-quit or deleted before its session ended: its file was deleted, and no relaunch follows"
        case (nil, _) where !transfer.sessionSendsLaunchEvents: "the session sends no launch events: its file stays in the transfers' directory"
        case (nil, _): "the session's other transfers are not done yet"
        }
    }

    /// Why a transfer waits, or how it ended, in words.
    static func why(_ transfer: TransferRecord) -> JSONValue {
        switch transfer.state {
        case .waiting: transfer.why.map { why($0, for: .transfer) } ?? whyObject("waiting", "waiting for its conditions", nil)
        case .running: whyObject("running", "try \(transfer.attempts) runs against the origin", nil)
        case .done: whyObject("done", "its file holds the origin's whole answer; " + doneWords(transfer), nil)
        case .failed: whyObject("failed", transfer.reason ?? "failed", nil)
        // A record from before the reason was kept is a force-quit's.
        case .cancelled: whyObject("cancelled", transfer.reason ?? DeviceRecorder.TransferCancellation.forceQuit.words, nil)
        }
    }
}
