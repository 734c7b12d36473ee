import Foundation
import Hummingbird
import NIOCore
import SilentPushCore

/// Background tasks in the admin API: submit, list and cancel an app's requests,
/// the debugger's launch and expiration, and the runs.
extension AdminAPI {
    func addTaskRoutes(to router: Router<BasicRequestContext>) {
        let tasks = "/v1/devices/{token}/apps/{topic}/tasks"
        router.post(RouterPath(tasks)) { request, context in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return try await self.submitTask(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"), body: body)
        }
        router.getWithHead(RouterPath(tasks)) { _, context in
            try await self.listTasks(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"))
        }
        router.delete(RouterPath(tasks)) { _, context in
            try await self.cancelTasks(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"), identifier: nil)
        }
        router.delete(RouterPath(tasks + "/{identifier}")) { _, context in
            try await self.cancelTasks(
                Self.parameter(context, "token"), topic: Self.parameter(context, "topic"),
                identifier: Self.parameter(context, "identifier"))
        }
        router.post(RouterPath(tasks + "/{identifier}/simulate-launch")) { request, context in
            try Self.expectNoFields(await request.body.collect(upTo: Self.maximumBodySize))
            return try await self.simulate(
                Self.parameter(context, "token"), topic: Self.parameter(context, "topic"),
                identifier: Self.parameter(context, "identifier"), expire: false)
        }
        router.post(RouterPath(tasks + "/{identifier}/simulate-expiration")) { request, context in
            try Self.expectNoFields(await request.body.collect(upTo: Self.maximumBodySize))
            return try await self.simulate(
                Self.parameter(context, "token"), topic: Self.parameter(context, "topic"),
                identifier: Self.parameter(context, "identifier"), expire: true)
        }
        router.getWithHead("/v1/task-runs") { request, _ in await self.taskRuns(request.uri.queryParameters) }
    }

    static var badTaskIdentifier: Response {
        error(.unprocessableContent, "the task identifier must be \(TaskIdentifier.rule), such as com.example.app.refresh")
    }

    /// The fields `POST …/tasks` takes.
    static let taskFields = ["identifier", "kind", "earliestBeginDate", "requiresNetworkConnectivity", "requiresExternalPower", "strategy"]

    /// `{"identifier", "kind", "earliestBeginDate"?, "requiresNetworkConnectivity"?,
    /// "requiresExternalPower"?, "strategy"?}` → 201 with the request, or Apple's error.
    private func submitTask(_ token: String, topic: String, body: ByteBuffer) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        let submission: DeviceControl.TaskSubmission
        do {
            submission = try Self.taskSubmission(Self.object(body))
        } catch let error as AdminError {
            return Self.error(error.status, error.message)
        } catch {
            return Self.error(.badRequest, "\(error)")
        }
        do {
            let record = try await device.submit(submission, device: token, topic: topic)
            return Self.respond(.created, Self.json(record))
        } catch let refusal as TaskRefusal {
            let error = refusal.error
            // 403 for what the app did not declare; 409 for what the device's state refuses.
            let status: HTTPResponse.Status = error == .notPermitted ? .forbidden : .conflict
            let hint =
                if error == .notPermitted && device.declarations[topic] == nil {
                    " (no app is declared for \(topic): add it under apps in the config file, with its permittedTaskIdentifiers and backgroundModes)"
                } else if let why = refusal.why {
                    " (\(why.text(time: Self.time, for: .task(.continued))))"
                } else {
                    ""
                }
            var extra: [(String, JSONValue)] = [("code", .string(error.rawValue)), ("errorCode", .int(Int64(error.code)))]
            if let why = refusal.why { extra.append(("why", Self.why(why, for: .task(.continued)))) }
            return Self.error(status, error.description + hint, extra: extra)
        } catch let refusal as AppNotInstalled {
            return Self.error(.conflict, refusal.description)
        } catch let stopping as DeviceStopping {
            return Self.error(.serviceUnavailable, stopping.description)
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// A submission from a request body; 422 naming the field that is wrong.
    package static func taskSubmission(_ fields: [(String, JSONValue)]) throws -> DeviceControl.TaskSubmission {
        var identifier: String?
        var kind: BackgroundTaskKind?
        var submission = DeviceControl.TaskSubmission(identifier: "", kind: .refresh)
        for (key, value) in fields {
            switch (key, value) {
            case ("identifier", .string(let text)) where TaskIdentifier.isValid(text): identifier = text
            case ("identifier", _): throw AdminError(.unprocessableContent, "identifier must be a task identifier (\(TaskIdentifier.rule))")
            case ("kind", .string(let text)) where BackgroundTaskKind(rawValue: text).map({ $0 != .urlSession }) == true:
                kind = BackgroundTaskKind(rawValue: text)
            case ("kind", _): throw AdminError(.unprocessableContent, "kind must be refresh, processing or continued")
            case ("earliestBeginDate", .null): submission.earliestBegin = nil
            case ("earliestBeginDate", .string(let text)) where instant(text) != nil: submission.earliestBegin = instant(text)
            case ("earliestBeginDate", _):
                throw AdminError(.unprocessableContent, "earliestBeginDate must be an ISO 8601 time such as 2026-11-22T04:42:47Z, or null")
            case ("requiresNetworkConnectivity", .bool(let flag)): submission.requiresNetworkConnectivity = flag
            case ("requiresExternalPower", .bool(let flag)): submission.requiresExternalPower = flag
            case ("requiresNetworkConnectivity", _), ("requiresExternalPower", _):
                throw AdminError(.unprocessableContent, "\(key) must be true or false")
            case ("strategy", .string(let text)) where TaskRequest<DeviceInstant>.Strategy(rawValue: text) != nil:
                submission.strategy = TaskRequest<DeviceInstant>.Strategy(rawValue: text)!
            case ("strategy", _): throw AdminError(.unprocessableContent, "strategy must be queue or fail")
            default:
                throw AdminError(.unprocessableContent, "unknown field '\(key)' (fields: \(taskFields.joined(separator: ", ")))")
            }
        }
        guard let identifier else { throw AdminError(.unprocessableContent, "give the task's identifier") }
        guard let kind else { throw AdminError(.unprocessableContent, "give the task's kind: refresh, processing or continued") }
        if kind != .processing, submission.requiresNetworkConnectivity || submission.requiresExternalPower {
            throw AdminError(.unprocessableContent, "requiresNetworkConnectivity and requiresExternalPower are for processing tasks")
        }
        submission.identifier = identifier
        submission.kind = kind
        return submission
    }

    /// The app's pending requests, oldest first, each with why it waits.
    private func listTasks(_ token: String, topic: String) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        do {
            let pending = try await device.taskRequests(device: token, topic: topic, pendingOnly: true).reversed()
            return Self.respond(.ok, .object([("requests", .array(pending.map { Self.json($0) }))]))
        } catch {
            return Self.storeFailure(error)
        }
    }

    private func cancelTasks(_ token: String, topic: String, identifier: String?) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        if let identifier, !TaskIdentifier.isValid(identifier) { return Self.badTaskIdentifier }
        do {
            let count = try await device.cancelTasks(identifier: identifier, device: token, topic: topic)
            if let identifier, count == 0 { return Self.error(.notFound, "no request \(identifier) is pending for \(topic) on this device") }
            return Self.respond(.ok, .object([("cancelled", .int(Int64(count)))]))
        } catch {
            return Self.storeFailure(error)
        }
    }

    private func simulate(_ token: String, topic: String, identifier: String, expire: Bool) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        guard TaskIdentifier.isValid(identifier) else { return Self.badTaskIdentifier }
        do {
            let found =
                expire
                ? try await device.simulateTaskExpiration(identifier: identifier, device: token, topic: topic)
                : try await device.simulateTaskLaunch(identifier: identifier, device: token, topic: topic)
            guard found else {
                return Self.error(
                    .notFound,
                    expire
                        ? "no task \(identifier) of \(topic) is running (and not yet expired) on this device"
                        : "no request \(identifier) of \(topic) is pending on this device")
            }
            let run = try await device.taskRuns(device: token, topic: topic, limit: 50).first { $0.identifier == identifier }
            return Self.respond(.ok, run.map { Self.json($0) } ?? .object([]))
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// `GET /v1/task-runs?device=&topic=&limit=&neverRan=`: runs, newest first, and (unless
    /// `neverRan=false`) the requests that never ran (`cancelled`, `replaced`: no id, no
    /// start), each where it ended.
    private func taskRuns(_ query: Parameters) async -> Response {
        await Self.answering {
            let filter = try Self.filter(query)
            let withNeverRan: Bool
            switch query.get("neverRan") {
            case nil, "true": withNeverRan = true
            case "false": withNeverRan = false
            case let text?: throw AdminError(.unprocessableContent, "neverRan must be true or false, not '\(text)'")
            }
            let runs = try await device.taskRuns(device: filter.device, topic: filter.topic, limit: filter.limit)
            let ended = withNeverRan ? try await device.endedTaskRequests(device: filter.device, topic: filter.topic, limit: filter.limit) : []
            let entries =
                runs.map { (at: $0.startedAt, request: $0.requestID, json: Self.json($0)) }
                + ended.map { (at: $0.endedAt ?? $0.submittedAt, request: $0.id, json: Self.json(neverRan: $0)) }
            let newestFirst = entries.sorted { ($0.at, $0.request) > ($1.at, $1.request) }.prefix(filter.limit)
            return .object([("runs", .array(newestFirst.map(\.json)))])
        }
    }

    static func json(_ record: TaskRequestRecord) -> JSONValue {
        let request = record.request
        return .object([
            ("id", .int(Int64(bitPattern: record.id))), ("deviceToken", .string(record.deviceToken)), ("topic", .string(record.topic)),
            ("identifier", .string(request.identifier)), ("kind", .string(request.kind.rawValue)),
            ("earliestBeginDate", .string(request.earliestBegin.map(time))),
            ("requiresNetworkConnectivity", .bool(request.requiresNetworkConnectivity)),
            ("requiresExternalPower", .bool(request.requiresExternalPower)), ("strategy", .string(request.strategy.rawValue)),
            ("submittedAt", .string(time(record.submittedAt))), ("state", .string(record.state.rawValue)),
            ("endedAt", .string(record.endedAt.map(time))), ("why", why(record)),
        ])
    }

    /// What holds a pending request, or how it left pending.
    static func why(_ record: TaskRequestRecord) -> JSONValue {
        switch record.state {
        case .pending: record.why.map { why($0, for: .task(record.request.kind)) } ?? whyObject("pending", "waiting", nil)
        case .launched: whyObject("launched", "it ran: see its run", nil)
        case .cancelled: whyObject("cancelled", "it never ran: the app cancelled it, or was deleted", nil)
        case .replaced: whyObject("replaced", "it never ran: a request with the same identifier replaced it", nil)
        }
    }

    static func json(_ run: TaskRunRecord) -> JSONValue {
        .object([
            ("id", .int(Int64(bitPattern: run.id))), ("requestId", .int(Int64(bitPattern: run.requestID))),
            ("deviceToken", .string(run.deviceToken)), ("topic", .string(run.topic)), ("identifier", .string(run.identifier)),
            ("kind", .string(run.kind.rawValue)), ("startedAt", .string(time(run.startedAt))), ("deadline", .string(run.deadline.map(time))),
            ("simulated", .bool(run.simulated)), ("expiredAt", .string(run.expiredAt.map(time))),
            ("finishedAt", .string(run.finishedAt.map(time))), ("outcome", .string(run.outcome?.rawValue)),
            ("killedBy", .string(run.killedBy?.rawValue)),
            ("progress", .object([("completed", .int(run.progressCompleted)), ("total", .int(run.progressTotal))])),
            ("why", why(run)),
        ])
    }

    /// A request that never ran, as an entry of `/v1/task-runs`: its outcome is its state.
    static func json(neverRan record: TaskRequestRecord) -> JSONValue {
        .object([
            ("id", .null), ("requestId", .int(Int64(bitPattern: record.id))), ("deviceToken", .string(record.deviceToken)),
            ("topic", .string(record.topic)), ("identifier", .string(record.request.identifier)), ("kind", .string(record.request.kind.rawValue)),
            ("startedAt", .null), ("deadline", .null), ("simulated", .bool(false)), ("expiredAt", .null),
            ("finishedAt", .string(record.endedAt.map(time))), ("outcome", .string(record.state.rawValue)), ("killedBy", .null),
            ("progress", .object([("completed", .int(0)), ("total", .int(0))])), ("why", why(record)),
        ])
    }

    /// How a run ended, in words.
    static func why(_ run: TaskRunRecord) -> JSONValue {
        let text: String =
            switch run.outcome {
            case nil: run.expiredAt == nil ? "running" : "expired: its expiration handler was called; it has a grace period to complete"
            case .completed? where run.kind == .urlSession: "the handler called the background session's completion handler"
            case .terminated? where run.kind == .urlSession:
                "it never called the background session's completion handler: terminated, and the app's later launches are deferred"
            case .completed?: "the handler called setTaskCompleted(success: true)"
            // A session's completion handler takes no success value: this is the handler's own failure.
            case .failed? where run.kind == .urlSession:
                "the handler failed (setTaskCompleted(success: false), an exec handler's non-zero exit, or an http handler's answer other than success)"
            case .failed?: "the handler called setTaskCompleted(success: false)"
            // A continued task has no time limit: the system stopped it (heat, or too many running).
            case .expired? where run.kind == .continued: "the system stopped it (under resource pressure); it completed after its expiration handler"
            // Expired before its deadline: the system called its expiration handler early.
            case .expired? where run.expiredAt.map { at in run.deadline.map { at < $0 } ?? false } ?? false:
                "the system expired it before its time (the device in use again, for a processing task, or simulate-expiration); it completed after its expiration handler"
            case .expired?: "its time ran out; it completed after its expiration handler"
            case .terminated?: "it never completed, even after its expiration handler: terminated, and the app's task launches are deferred"
            case .interrupted? where run.kind == .urlSession:
                "the receiver stopped while it ran: the app is relaunched for the session again, with its files, at the next start"
            case .interrupted?: "the receiver stopped while it ran: nothing is deferred"
            case .killed?:
                "the system killed the app while it ran (\(run.killedBy?.description ?? "it was force-quit or deleted, or the device restarted")): its handler was stopped, and nothing is deferred"
            case .cancelled?, .replaced?: "it never ran"
            }
        return whyObject(run.outcome?.rawValue ?? (run.expiredAt == nil ? "running" : "expiring"), text, nil)
    }
}
