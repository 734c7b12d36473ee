import Foundation
import Hummingbird
import NIOCore
import Prometheus
import SilentPushCore
import SilentPushStore

/// The admin API, an HTTP/1.1 router on Hummingbird: health, push fates, wakes,
/// device state and the manual clock. JSON in and out, camelCase fields, ISO 8601 times
/// with milliseconds. A bad request changes nothing and gets 400 (not JSON), 422 (a wrong
/// field or type) or 409 (the clock is the system's), with `{"error": "…"}`.
package struct AdminAPI: Sendable {
    let device: DeviceControl
    let endpoint: APNsEndpoint
    let metrics: PrometheusCollectorRegistry
    /// Sets the gauges read at scrape time (open connections and streams).
    let beforeScrape: @Sendable () -> Void
    /// Who may call it (Host, token, content type).
    var access = AdminAccessPolicy()
    /// The receiver's cluster membership; nil: it stands alone.
    var cluster: ClusterMembership?
    /// The event streams open now (`AdminAPI.maximumEventStreams`), shared by the copies of
    /// this API the router holds.
    let eventStreams = EventStreamCount()

    /// The query parameters each route takes, read once from the document it serves.
    static let queryRules = AdminQueryRules(document: AdminOpenAPIDocument.json)

    /// Largest request body taken.
    static let maximumBodySize = 64 * 1024

    func router() -> Router<BasicRequestContext> {
        // Every GET route takes HEAD too (`getWithHead`).
        let router = Router()
        let routes = AdminRouteTable()
        router.add(middleware: AdminGuard(policy: access, routes: routes))
        router.add(middleware: AdminProblemMiddleware(routes: routes))
        router.add(middleware: AdminQueryGuard(rules: Self.queryRules))
        if let cluster { router.add(middleware: AdminShardGuard(membership: cluster, routes: routes)) }
        router.add(middleware: AdminStoppingGuard(device: device, routes: routes))
        router.add(middleware: AdminStoreGuard(store: device.store, routes: routes))
        router.getWithHead("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: TimelinePage.html)))
        }
        router.getWithHead("/healthz") { _, _ in Self.respond(.ok, .object([("status", .string("ok"))])) }
        router.getWithHead("/readyz") { _, _ in await self.ready() }
        router.getWithHead("/metrics") { _, _ in
            self.beforeScrape()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.metrics.emitToBuffer())))
        }
        router.getWithHead("/v1/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: AdminOpenAPIDocument.json)))
        }
        router.getWithHead("/v1/pushes/{apnsID}") { _, context in try await self.push(Self.parameter(context, "apnsID")) }
        router.getWithHead("/v1/pushes") { request, _ in
            try await self.pushes(request.uri.queryParameters, export: ExportFormat(accept: request.headers[.accept]))
        }
        router.getWithHead("/v1/wakes") { request, _ in
            try await self.wakes(request.uri.queryParameters, export: ExportFormat(accept: request.headers[.accept]))
        }
        router.getWithHead("/v1/devices") { request, _ in await self.devices(request.uri.queryParameters) }
        router.delete("/v1/devices/{token}") { _, context in try await self.forget(Self.parameter(context, "token")) }
        router.post("/v1/reset") { request, _ in
            try Self.expectNoFields(await request.body.collect(upTo: Self.maximumBodySize))
            return await self.reset()
        }
        router.getWithHead("/v1/devices/{token}") { _, context in try await self.device(Self.parameter(context, "token")) }
        router.getWithHead("/v1/devices/{token}/apps/{topic}") { _, context in
            try self.app(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"))
        }
        router.patch("/v1/devices/{token}/apps/{topic}") { request, context in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return try await self.patchApp(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"), body: body)
        }
        router.post("/v1/devices/{token}/reboot") { request, context in
            try Self.expectNoFields(await request.body.collect(upTo: Self.maximumBodySize))
            return try await self.reboot(Self.parameter(context, "token"))
        }
        router.post("/v1/devices/{token}/reinstall") { request, context in
            try Self.expectNoFields(await request.body.collect(upTo: Self.maximumBodySize))
            return try await self.reinstall(Self.parameter(context, "token"))
        }
        router.getWithHead("/v1/devices/{token}/apps/{topic}/forecast") { request, context in
            try self.forecast(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"), query: request.uri.queryParameters)
        }
        router.patch("/v1/devices/{token}") { request, context in
            try await self.patchDevice(Self.parameter(context, "token"), body: request.body.collect(upTo: Self.maximumBodySize))
        }
        router.getWithHead("/v1/stats") { _, _ in await self.stats() }
        router.getWithHead("/v1/contents") { request, _ in await self.contents(request.uri.queryParameters) }
        router.getWithHead("/v1/contents/body") { request, _ in await self.contentBody(request.uri.queryParameters) }
        router.getWithHead("/v1/clock") { _, _ in self.clock() }
        router.post("/v1/clock/advance") { request, _ in
            try await self.advance(body: request.body.collect(upTo: Self.maximumBodySize))
        }
        addTaskRoutes(to: router)
        addTransferRoutes(to: router)
        addActivityRoutes(to: router)
        addFaultRoutes(to: router)
        addEventRoutes(to: router)
        addClusterRoutes(to: router)
        routes.set(router.routes)
        return router
    }

    // MARK: Health

    /// 200 while the store takes writes (each call commits one small write to find out),
    /// else 503 naming why, and 503 `draining` from SIGTERM on: a load balancer sends pushes
    /// elsewhere meanwhile.
    private func ready() async -> Response {
        // Draining: a load balancer should send new connections elsewhere.
        guard !device.runtime.isShuttingDown else {
            return Self.respond(
                .serviceUnavailable, .object([("status", .string("draining")), ("error", .string("the receiver is shutting down"))]))
        }
        do {
            try await device.store.probe()
            return Self.respond(.ok, .object([("status", .string("ready"))]))
        } catch {
            return Self.respond(
                .serviceUnavailable,
                .object([
                    ("status", .string("unavailable")), ("error", .string("the store cannot be written: \(PushStore.describe(error))")),
                ]))
        }
    }

    // MARK: Pushes and wakes

    private func push(_ apnsID: String) async -> Response {
        await Self.answering {
            // The apns-unique-id the development environment answered, which names one push
            // alone (a provider may reuse it as a later push's apns-id), or an apns-id.
            var found = try await device.store.push(uniqueID: apnsID)
            if found == nil { found = try await device.store.push(apnsID: apnsID) }
            guard let push = found else {
                throw AdminError(.notFound, "no push with apns-id (or apns-unique-id) \(apnsID)")
            }
            return Self.detailedJSON(push, storageLimit: device.settings.apnsStorageLimit)
        }
    }

    /// `GET /v1/pushes?device=&topic=&fate=&from=&until=&cursor=&limit=`: newest first; `next`
    /// is the cursor of the page after, null on the last (one more record is read to know).
    private func pushes(_ query: Parameters, export: ExportFormat?) async throws -> Response {
        // A refused query throws: AdminProblemMiddleware answers it.
        if let export {
            try Self.refuseLimit(query)
            return await exportPushes(try pushQuery(query), as: export)
        }
        return await Self.answering {
            var pushQuery = try pushQuery(query)
            let limit = pushQuery.limit
            pushQuery.limit += 1
            let (pushes, next) = Self.page(try await device.store.pushes(pushQuery), limit: limit, id: \.id)
            let storageLimit = device.settings.apnsStorageLimit
            return .object([("pushes", .array(pushes.map { Self.json($0, storageLimit: storageLimit) })), ("next", next)])
        }
    }

    /// The query of `GET /v1/pushes`'s parameters; 422 naming a wrong one.
    private func pushQuery(_ query: Parameters) throws -> PushQuery {
        let filter = try Self.filter(query)
        var pushQuery = PushQuery(deviceToken: filter.device, topic: filter.topic, limit: filter.limit)
        if let text = query.get("fate") {
            guard let kind = PushFate.Kind(rawValue: text) else {
                throw AdminError(
                    .unprocessableContent, "fate must be one of \(PushFate.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            pushQuery.fate = kind
        }
        (pushQuery.from, pushQuery.until) = try Self.window(query)
        pushQuery.before = try Self.cursor(query)
        return pushQuery
    }

    /// `?from=` and `?until=` as device-clock ms: received (pushes) or started (wakes) at or
    /// after `from` and before `until`.
    private static func window(_ query: Parameters) throws -> (from: Int64?, until: Int64?) {
        func instant(_ name: String) throws -> Int64? {
            guard let text = query.get(name) else { return nil }
            guard let instant = Self.instant(text) else {
                throw AdminError(.unprocessableContent, "\(name) must be an ISO 8601 device time such as 2026-11-22T04:42:47Z")
            }
            return instant.millisecondsSinceEpoch
        }
        return (try instant("from"), try instant("until"))
    }

    /// An export answers every match: a `limit` it would not keep is refused.
    private static func refuseLimit(_ query: Parameters) throws {
        guard query.get("limit") == nil else {
            throw AdminError(.unprocessableContent, "an export answers every match: leave out limit, or ask for a page as JSON")
        }
    }

    /// The `cursor` parameter of a paged list: the `next` of the page before (an id).
    private static func cursor(_ query: Parameters) throws -> UInt64? {
        guard let text = query.get("cursor") else { return nil }
        guard let cursor = UInt64(text) else { throw AdminError(.unprocessableContent, "cursor must be the next value of a page before") }
        return cursor
    }

    /// A page of at most `limit` of `records`, read with one more than `limit`, and its
    /// `next`: the last kept record's id when that one more was there, else null (the last page).
    static func page<Record>(_ records: [Record], limit: Int, id: (Record) -> UInt64) -> (records: ArraySlice<Record>, next: JSONValue) {
        guard records.count > limit else { return (records[...], .null) }
        let page = records.prefix(limit)
        return (page, page.last.map { .string(String(id($0))) } ?? .null)
    }

    private func wakes(_ query: Parameters, export: ExportFormat?) async throws -> Response {
        if let export {
            try Self.refuseLimit(query)
            let filter = try Self.filter(query)
            return await exportWakes(
                device: filter.device, topic: filter.topic, kind: try Self.wakeKind(query), window: try Self.window(query),
                before: try Self.cursor(query),
                as: export)
        }
        return await Self.answering {
            let filter = try Self.filter(query)
            let window = try Self.window(query)
            let read = try await device.store.wakes(
                deviceToken: filter.device, topic: filter.topic, kind: Self.wakeKind(query), from: window.from, until: window.until,
                before: Self.cursor(query), limit: filter.limit + 1)
            let (page, next) = Self.page(read, limit: filter.limit, id: \.id)
            let wakes = Array(page)
            let coalesced = try await device.store.coalescedPushes(wakeIDs: wakes.map(\.id))
            return .object([("wakes", .array(wakes.map { Self.json($0, coalesced: coalesced[$0.id] ?? []) })), ("next", next)])
        }
    }

    private func stats() async -> Response {
        await Self.answering {
            let counts = try await device.store.counts()
            func object(_ counts: [String: Int]) -> JSONValue {
                .object(counts.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) })
            }
            return .object([
                ("pushes", object(counts.pushes)), ("dropped", object(counts.dropped)),
                ("rejected", object(counts.rejected)), ("wakes", object(counts.wakes)),
            ])
        }
    }

    private func contents(_ query: Parameters) async -> Response {
        await Self.answering {
            let filter = try Self.filter(query)
            let contents = try await device.store.contents(deviceToken: filter.device, topic: filter.topic, limit: filter.limit)
            return .object([("contents", .array(contents.map(Self.json)))])
        }
    }

    /// The latest body fetched for `device`, `topic` and `url` (the most recent URL when
    /// none is given), as the origin served it.
    private func contentBody(_ query: Parameters) async -> Response {
        // The lists' own checks of both.
        let filter: (device: String?, topic: String?, limit: Int)
        do throws(AdminError) {
            filter = try Self.filter(query)
        } catch {
            return Self.error(error.status, error.message)
        }
        guard let token = filter.device, let topic = filter.topic else {
            return Self.error(.unprocessableContent, "give device and topic (and url, if the app fetches more than one)")
        }
        do {
            let record =
                if let url = query.get("url") {
                    try await Self.content(device.store, deviceToken: token, topic: topic, url: url)
                } else {
                    try await device.store.contents(deviceToken: token, topic: topic, limit: 1).first
                }
            guard let record, let body = try await device.store.contentBody(sha256: record.sha256) else {
                return Self.error(.notFound, "no content fetched for that device, topic and url")
            }
            var headers: HTTPFields = [.contentType: record.contentType ?? "application/octet-stream"]
            if let etag = record.etag { headers[.eTag] = etag }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// The content fetched from `url` exactly, else the most recently fetched one whose URL
    /// the listing shows as `url` (its user and password masked: `URLUserInfo`), so a URL
    /// copied from `GET /v1/contents` finds its body.
    private static func content(_ store: PushStore, deviceToken: String, topic: String, url: String) async throws -> ContentRecord? {
        if let exact = try await store.content(deviceToken: deviceToken, topic: topic, url: url) { return exact }
        guard URLUserInfo.masked(url) == url else { return nil }
        return try await store.contents(deviceToken: deviceToken, topic: topic, limit: Self.maskedLookupLimit).first {
            $0.url != url && URLUserInfo.masked($0.url) == url
        }
    }

    /// How many of an app's URLs a masked `url` is compared with (an app fetches a handful).
    private static let maskedLookupLimit = 1000

    /// A store that failed a request: 503 when it cannot be reached now (PostgreSQL down or
    /// silent, a cluster's store session ended, the store closing), which passes once it is
    /// back, or while the device side shuts down (`DeviceStopping`); 500 for any other failure.
    static func storeFailure(_ error: any Error) -> Response {
        if let stopping = error as? DeviceStopping { return Self.error(.serviceUnavailable, stopping.description) }
        switch error as? PushStoreError {
        case .cannotOpen?, .sessionEnded?, .closed?, .inUse?, .unanswered?, .readUnanswered?, .abandoned?:
            return Self.error(
                .serviceUnavailable, "the store cannot be reached now: \(PushStore.describe(error)); try again once it is back (no restart needed)")
        case .takenOver?: return Self.error(.serviceUnavailable, PushStore.describe(error))
        default: return Self.error(.internalServerError, "store: \(PushStore.describe(error))")
        }
    }

    /// `200` with what `body` makes, or the status and message of what it threw (a store
    /// failure is a 503 or a 500: `storeFailure`).
    static func answering(_ body: () async throws -> JSONValue) async -> Response {
        do {
            return respond(.ok, try await body())
        } catch let error as AdminError {
            return Self.error(error.status, error.message)
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// `?kind=`: wakes of one kind only.
    static func wakeKind(_ query: Parameters) throws -> WakeKind? {
        guard let text = query.get("kind") else { return nil }
        guard let kind = WakeKind(rawValue: text) else {
            throw AdminError(
                .unprocessableContent, "kind must be one of \(WakeKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }

    /// A page's `limit`: `pageLimits` holds it, `defaultPageLimit` when not given.
    static func pageLimit(_ query: Parameters) throws(AdminError) -> Int {
        guard let text = query.get("limit") else { return defaultPageLimit }
        guard let value = Int(text), pageLimits.contains(value) else {
            throw AdminError(.unprocessableContent, "limit must be a whole number from \(pageLimits.lowerBound) to \(pageLimits.upperBound)")
        }
        return value
    }

    static let pageLimits = 1...1000
    static let defaultPageLimit = 100

    static func filter(_ query: Parameters) throws(AdminError) -> (device: String?, topic: String?, limit: Int) {
        let limit = try pageLimit(query)
        var device: String?
        if let text = query.get("device") {
            guard let token = deviceToken(text) else {
                throw AdminError(.unprocessableContent, "device must be a device token (\(APNsRequestValidator.deviceTokenShapeText))")
            }
            device = token
        }
        return (device, try topicFilter(query), limit)
    }

    /// `?topic=`: an empty one (an unset variable in a script) would match nothing and answer
    /// an empty list. Any other text is taken as written: a push refused `BadTopic` is recorded
    /// with the topic it was sent with, which a filter must still find.
    static func topicFilter(_ query: Parameters) throws(AdminError) -> String? {
        guard let text = query.get("topic") else { return nil }
        guard !text.isEmpty else { throw AdminError(.unprocessableContent, "topic must not be empty: leave it out, or give an app's topic") }
        return text
    }

    // MARK: Devices

    /// The device states `GET /v1/devices?state=` selects by.
    static let deviceStateNames = [
        "forceQuit", "backgroundRefreshOff", "lowPowerMode", "charging", "debuggerAttached", "idle", "offline", "lowBattery", "hot",
    ]

    /// Whether `state` is in the state `name` names.
    static func device(_ state: DeviceState, isIn name: String) -> Bool {
        switch name {
        case "forceQuit": state.forceQuit
        case "backgroundRefreshOff": !state.backgroundRefresh
        case "lowPowerMode": state.lowPowerMode
        case "charging": state.charging
        case "debuggerAttached": state.debuggerAttached
        case "idle": state.idle
        case "offline": state.network == .offline
        case "lowBattery": state.batteryLevel < 20 && !state.charging
        case "hot": state.thermalState >= .serious
        default: false
        }
    }

    /// `GET /v1/devices?topic=&state=&cursor=&limit=`: the devices known (pushed to, set, or
    /// registered), by token; `next` is the cursor of the page after. Read from the store a
    /// chunk at a time (`PushStore.knownDevices(after:limit:)`), so that every receiver lists
    /// every device, across restarts, whatever retention pruned; the start-up registry's
    /// tokens are each receiver's own.
    private func devices(_ query: Parameters) async -> Response {
        let limit: Int
        do { limit = try Self.pageLimit(query) } catch { return Self.error(error.status, error.message) }
        // The cursor is the last token of the page before (`next`); anything else would
        // quietly start the listing somewhere.
        var cursor: String?
        if let text = query.get("cursor") {
            guard let token = Self.deviceToken(text) else {
                return Self.error(.unprocessableContent, "cursor must be the next value of a page before (a device token)")
            }
            cursor = token
        }
        let states = query.getAll("state")
        if let unknown = states.first(where: { !Self.deviceStateNames.contains($0) }) {
            return Self.error(.unprocessableContent, "state '\(unknown)' is not one of \(Self.deviceStateNames.joined(separator: ", "))")
        }
        let topic: String?
        do throws(AdminError) {
            topic = try Self.topicFilter(query)
        } catch {
            return Self.error(error.status, error.message)
        }
        // The start-up registry's tokens (`devices` of the config file) are known too.
        let registered = Dictionary(endpoint.withDevices({ $0.tokens }), uniquingKeysWith: { $0.union($1) })
        var page: [JSONValue] = []
        var last: String?
        var more = false
        do {
            let record = try await deviceRecord()
            // Read from the store a chunk at a time, by index from the cursor on, until the
            // page is full and one more device is found (or none is left); the filters may
            // pass few of a chunk.
            let chunk = max(limit + 1, 100)
            var after = cursor
            scan: while true {
                let found = try await device.store.knownDevices(after: after, limit: chunk)
                // The store's devices end here (nil: none is left), and so do the registry's
                // taken with this chunk.
                let end = found.count < chunk ? nil : found.last?.token
                var known = Dictionary(found, uniquingKeysWith: { $0.union($1) })
                for (token, topics) in registered where after.map({ token > $0 }) ?? true {
                    if let end, token > end { continue }
                    known[token, default: []].formUnion(topics)
                }
                for token in known.keys.sorted() {
                    let topics = known[token] ?? []
                    if let topic, !topics.contains(topic) { continue }
                    let (state, unregisteredAt) = record(token)
                    guard states.allSatisfy({ Self.device(state, isIn: $0) }) else { continue }
                    if page.count == limit {
                        more = true
                        break scan
                    }
                    guard case .object(var fields) = deviceJSON(token, state: state, unregisteredAt: unregisteredAt) else { continue }
                    fields.append(("topics", .array(topics.sorted().map(JSONValue.string))))
                    page.append(.object(fields))
                    last = token
                }
                guard let end else { break }
                after = end
            }
        } catch {
            return Self.error(.serviceUnavailable, "the store cannot be read: \(PushStore.describe(error))")
        }
        return Self.respond(.ok, .object([("devices", .array(page)), ("next", more ? .string(last) : .null)]))
    }

    private func device(_ token: String) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        do {
            let (state, unregisteredAt) = try await deviceRecord()(token)
            return Self.respond(.ok, deviceJSON(token, state: state, unregisteredAt: unregisteredAt))
        } catch {
            return Self.error(.serviceUnavailable, "the store cannot be read: \(PushStore.describe(error))")
        }
    }

    /// Each device's state as this receiver answers for it: as its device side holds it, or,
    /// in a cluster, as the store does (every member's devices, as committed).
    private func deviceRecord() async throws -> (String) -> (state: DeviceState, unregisteredAt: Int64?) {
        guard cluster != nil else { return localRecord }
        let records = try await device.store.deviceRecords()
        return { token in records[token].map { ($0.state, $0.unregisteredAt) } ?? (DeviceState(), nil) }
    }

    private func app(_ token: String, topic: String) -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        return Self.respond(.ok, appJSON(token, topic: topic))
    }

    /// The app's Live Activity fields are its bundle id's, whichever of its topics names it
    /// (`com.example.app.push-type.liveactivity` is `com.example.app`'s).
    private func appJSON(_ token: String, topic: String) -> JSONValue {
        let bundleID = APNsPushType.bundleID(ofAnyTopic: topic)
        return .object([
            ("deviceToken", .string(token)), ("topic", .string(topic)),
            ("lastOpenedAt", .string(device.lastOpened(device: token, topic: topic).map(Self.time))),
            ("pushToStartToken", .string(device.pushToStartToken(device: token, bundleID: bundleID))),
            ("frequentUpdates", .bool(device.hasFrequentUpdates(device: token, bundleID: bundleID))),
        ])
    }

    /// `{"opened": true}` (opened now), `{"lastOpenedAt": time|null}` or `{"frequentUpdates": bool}`.
    private func patchApp(_ token: String, topic: String, body: ByteBuffer) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        return await Self.answering {
            let fields = try Self.object(body)
            guard fields.count == 1, let (key, value) = fields.first else {
                throw AdminError(
                    .unprocessableContent, #"give {"opened": true}, {"lastOpenedAt": "2026-11-22T04:42:47Z"} (or null) or {"frequentUpdates": true}"#)
            }
            switch (key, value) {
            case ("frequentUpdates", .bool(let on)):
                device.setFrequentUpdates(on, device: token, bundleID: APNsPushType.bundleID(ofAnyTopic: topic))
            case ("opened", .bool(true)):
                try await device.setLastOpened(device: token, topic: topic)
            case ("lastOpenedAt", .null):
                try await device.clearLastOpened(device: token, topic: topic)
            case ("lastOpenedAt", .string(let text)):
                guard let at = Self.instant(text) else {
                    throw AdminError(.unprocessableContent, "lastOpenedAt must be an ISO 8601 time such as 2026-11-22T04:42:47Z, or null")
                }
                try await device.setLastOpened(at, device: token, topic: topic)
            default:
                throw AdminError(
                    .unprocessableContent, #"give {"opened": true}, {"lastOpenedAt": "2026-11-22T04:42:47Z"} (or null) or {"frequentUpdates": true}"#)
            }
            return appJSON(token, topic: topic)
        }
    }

    /// An RFC 3339 time; one before 1970 is read as 1970 and one after 2255 as 2255, the span
    /// the device clock keeps (a filter or a window bound stays what it meant).
    package static func instant(_ text: String) -> DeviceInstant? {
        guard let milliseconds = ISO8601Timestamp.millisecondsSinceEpoch(parsing: text) else { return nil }
        return DeviceInstant(millisecondsSinceEpoch: min(max(milliseconds, 0), latestInstant))
    }

    /// The latest time the admin API takes: 9,000,000,000 seconds after 1970 (in 2255).
    static let latestInstant: Int64 = 9_000_000_000_000 - 1

    /// A device token from a path, lower-cased; nil unless 64 to 200 hex digits.
    static func deviceToken(_ text: String) -> String? {
        let token = text.lowercased()
        return APNsRequestValidator.isValidDeviceToken(token) ? token : nil
    }

    /// A path parameter, percent-decoded (empty when its escapes are not UTF-8, which no
    /// validation passes): the router hands them over as sent.
    static func parameter(_ context: BasicRequestContext, _ name: String) throws -> String {
        decoded(try context.parameters.require(name)[...])
    }

    /// A path component percent-decoded; empty when its escapes are not UTF-8.
    static func decoded(_ component: Substring) -> String {
        String(component).removingPercentEncoding ?? ""
    }

    /// Whether `text` can be an app's topic: its bundle ID, with any push-type suffix (1 to
    /// 255 visible ASCII characters).
    static func isTopic(_ text: String) -> Bool { APNsRequestValidator.isTopicShape(text) }

    /// Whether `text` is 1 to `maximumLength` visible ASCII characters other than `/`: the
    /// shape of the topics and task identifiers a path can carry.
    static func isName(_ text: String, maximumLength: Int) -> Bool {
        APNsRequestValidator.isVisibleName(text, maximumLength: maximumLength)
    }

    static var badTopic: Response {
        error(.unprocessableContent, "the topic must be the app's bundle ID, such as com.example.app (1 to 255 visible ASCII characters)")
    }

    /// A request that takes no fields has an empty body or `{}`; anything else is a mistake
    /// worth saying (422), not something to ignore.
    static func expectNoFields(_ body: ByteBuffer) throws {
        guard body.readableBytes > 0 else { return }
        let fields = try object(body)
        if let first = fields.first { throw AdminError(.unprocessableContent, "this request takes no fields (got '\(first.0)'): send {}") }
    }

    static var badDeviceToken: Response { error(.unprocessableContent, "the device token must be \(APNsRequestValidator.deviceTokenShapeText)") }

    /// Restarts the device: no background launch during the warm-up.
    private func reboot(_ token: String) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        return await Self.answering {
            let until = try await device.reboot(token)
            guard case .object(var fields) = deviceJSON(token) else { return deviceJSON(token) }
            fields.append(("warmUpUntil", .string(Self.time(until))))
            return .object(fields)
        }
    }

    /// Forgets the device: its state, what waits for it and every record of it.
    private func forget(_ token: String) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        return await Self.answering {
            try await device.forget(device: token)
            return .object([("deleted", .string(token))])
        }
    }

    /// Forgets everything (for tests): devices, records, registrations and fault rules. The
    /// clock stays where it is.
    private func reset() async -> Response {
        await Self.answering {
            do {
                if let cluster { try await cluster.reset() } else { try await device.reset() }
            } catch let error as ClusterCallError {
                throw AdminError(.serviceUnavailable, error.description)
            }
            return .object([("reset", .bool(true))])
        }
    }

    /// The app deleted and installed again: a new token; the old one answers 410 Unregistered.
    private func reinstall(_ token: String) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        return await Self.answering {
            let (fresh, at): (String, Int64)
            do {
                (fresh, at) = try await device.reinstall(token)
            } catch let refusal as DeviceReinstallError {
                throw AdminError(.conflict, refusal.description)
            }
            return .object([
                ("deviceToken", .string(fresh)), ("previousDeviceToken", .string(token)),
                ("unregisteredAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: at))),
            ])
        }
    }

    /// If a push came now: when it would wake the app, and why not sooner. Changes nothing.
    private func forecast(_ token: String, topic: String, query: Parameters) -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        let priority: APNsPriority
        switch query.get("priority") {
        case nil: priority = .normal
        case let text?:
            guard let value = Int(text), let parsed = APNsPriority(rawValue: value) else {
                return Self.error(.unprocessableContent, "priority must be 1, 5 or 10")
            }
            priority = parsed
        }
        let now = device.clock.now
        let forecast = device.forecast(device: token, topic: topic, priority: priority)
        let why: JSONValue =
            switch forecast {
            case .wakes(_, let wait?), .waits(let wait): Self.why(wait)
            case .wakes(let at, nil):
                Self.whyObject("woke", at == now ? "a push now would wake the app at once" : "a push now would wake the app", nil)
            case .dropped(let reason): Self.why(.dropped(reason))
            }
        return Self.respond(
            .ok,
            .object([
                ("deviceToken", .string(token)), ("topic", .string(topic)), ("priority", .int(Int64(priority.rawValue))),
                ("now", .string(Self.time(now))), ("wakeAt", .string(forecast.wakeAt.map(Self.time))), ("why", why),
            ]))
    }

    /// `token`'s state and registration as this receiver's device side holds them.
    private func localRecord(_ token: String) -> (state: DeviceState, unregisteredAt: Int64?) {
        let unregisteredAt: Int64? = endpoint.withDevices { registry in
            if case .unregistered(let at) = registry.entry(token)?.state { return at }
            return nil
        }
        return (device.deviceState(of: token), unregisteredAt)
    }

    /// `token`'s device as its owner's device side holds it (after a device-scoped write).
    private func deviceJSON(_ token: String) -> JSONValue {
        let record = localRecord(token)
        return deviceJSON(token, state: record.state, unregisteredAt: record.unregisteredAt)
    }

    private func deviceJSON(_ token: String, state: DeviceState, unregisteredAt: Int64?) -> JSONValue {
        return .object([
            ("deviceToken", .string(token)),
            ("forceQuit", .bool(state.forceQuit)),
            ("backgroundRefresh", .bool(state.backgroundRefresh)),
            ("lowPowerMode", .bool(state.lowPowerMode)),
            ("dailyBudget", .int(state.dailyBudget.map(Int64.init))),
            ("batteryLevel", .int(Int64(state.batteryLevel))),
            ("charging", .bool(state.charging)),
            ("thermalState", .string(state.thermalState.rawValue)),
            ("debuggerAttached", .bool(state.debuggerAttached)),
            ("network", .string(state.network.rawValue)),
            ("networkType", .string(state.networkType.rawValue)),
            ("idle", .bool(state.idle)),
            ("unregistered", .bool(unregisteredAt != nil)),
            ("unregisteredAt", unregisteredAt.map { .string(ISO8601Timestamp.string(millisecondsSinceEpoch: $0)) } ?? .null),
        ])
    }

    private func patchDevice(_ token: String, body: ByteBuffer) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        return await Self.answering {
            let (state, unregistered) = try Self.devicePatch(Self.object(body), to: device.deviceState(of: token))
            if state != device.deviceState(of: token) { try await device.setDeviceState(state, for: token) }
            if let unregistered {
                // Device time, as every other time in the record (a manual clock's too).
                let at: Int64? = unregistered ? endpoint.deviceNow().millisecondsSinceEpoch : nil
                let (topics, wasRegistered) = endpoint.withDevices { registry in
                    let wasRegistered: Bool
                    if case .unregistered? = registry.entry(token)?.state { wasRegistered = false } else { wasRegistered = true }
                    // Unregistered again, it keeps the time it was (APNs's `timestamp`).
                    if let at, wasRegistered { registry.unregister(token, at: at) }
                    if at == nil { registry.register(token, topics: []) }
                    return (registry.entry(token).map { Array($0.topics) } ?? [], wasRegistered)
                }
                switch (unregistered, wasRegistered) {
                case (true, false):
                    break  // already so: nothing changes
                case (true, true):
                    // Uninstalled: what waited for the app never reaches it, as after a
                    // reinstall; committed with the unregistration.
                    try await device.runtime.committing { recorder, now, completion in
                        recorder.appDeleted(token, recording: [.setUnregistered(token: token, at: at)], now: now, completion: completion)
                    }
                case (false, _):
                    // Registered again, it stays registered across a restart (for its topics).
                    try await device.store.write([.setUnregistered(token: token, at: nil), .setRegistered(token: token, topics: topics)])
                }
            }
            return deviceJSON(token)
        }
    }

    // MARK: Clock

    private func clock() -> Response {
        Self.respond(.ok, clockJSON())
    }

    private func clockJSON() -> JSONValue {
        .object([
            ("clock", .string(device.clock.mode.rawValue)),
            ("now", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: device.clock.now.millisecondsSinceEpoch))),
        ])
    }

    private func advance(body: ByteBuffer) async -> Response {
        await Self.answering {
            let span = try Self.advanceSpan(Self.object(body))
            guard device.clock.mode == .manual else { throw AdminError(.conflict, DeviceClockError.notManual.description) }
            do {
                if let cluster { _ = try await cluster.advance(by: span) } else { try await device.advance(by: span) }
            } catch let error as DeviceClockError {
                if case .notRecorded = error { throw AdminError(.serviceUnavailable, error.description) }
                throw AdminError(.conflict, error.description)
            } catch let error as ClusterCallError {
                throw AdminError(.serviceUnavailable, error.description)
            }
            return clockJSON()
        }
    }

    // MARK: Bodies

    /// The fields `PATCH /v1/devices/{token}` takes.
    static let deviceFields = [
        "forceQuit", "backgroundRefresh", "lowPowerMode", "dailyBudget", "batteryLevel", "charging", "thermalState", "debuggerAttached",
        "network", "networkType", "idle", "unregistered",
    ]

    /// A `PATCH /v1/devices/{token}` body applied to `state`: the new state, and the
    /// registration change if it asks for one. Throws 422 naming the field.
    package static func devicePatch(_ fields: [(String, JSONValue)], to state: DeviceState) throws -> (DeviceState, unregistered: Bool?) {
        var state = state
        var unregistered: Bool?
        for (key, value) in fields {
            switch (key, value) {
            case ("forceQuit", .bool(let flag)): state.forceQuit = flag
            case ("backgroundRefresh", .bool(let flag)): state.backgroundRefresh = flag
            case ("lowPowerMode", .bool(let flag)): state.lowPowerMode = flag
            case ("unregistered", .bool(let flag)): unregistered = flag
            case ("charging", .bool(let flag)): state.charging = flag
            case ("debuggerAttached", .bool(let flag)): state.debuggerAttached = flag
            case ("idle", .bool(let flag)): state.idle = flag
            case ("dailyBudget", .null): state.dailyBudget = nil
            case ("dailyBudget", .int(let budget)) where WakeSettings.budgetRange.contains(Int(clamping: budget)): state.dailyBudget = Int(budget)
            case ("dailyBudget", _):
                throw AdminError(
                    .unprocessableContent,
                    "dailyBudget must be a whole number from \(WholeNumberProblem.describe(WakeSettings.budgetRange)) (launches per 24 h), or null")
            case ("batteryLevel", .int(let level)) where DeviceState.batteryRange.contains(Int(clamping: level)): state.batteryLevel = Int(level)
            case ("batteryLevel", _): throw AdminError(.unprocessableContent, "batteryLevel must be a whole number from 0 to 100 (%)")
            case ("thermalState", .string(let name)) where ThermalState(rawValue: name) != nil: state.thermalState = ThermalState(rawValue: name)!
            case ("thermalState", _): throw AdminError(.unprocessableContent, "thermalState must be nominal, fair, serious or critical")
            case ("network", .string(let name)) where DeviceState.Network(rawValue: name) != nil: state.network = DeviceState.Network(rawValue: name)!
            case ("network", _): throw AdminError(.unprocessableContent, "network must be online or offline")
            case ("networkType", .string(let name)) where DeviceState.NetworkType(rawValue: name) != nil:
                state.networkType = DeviceState.NetworkType(rawValue: name)!
            case ("networkType", _): throw AdminError(.unprocessableContent, "networkType must be wifi or cellular")
            case ("hourlyBudget", _):
                throw AdminError(.unprocessableContent, "hourlyBudget is now dailyBudget: background launches per 24 h (e.g. 24 × the old value)")
            case ("forceQuit", _), ("backgroundRefresh", _), ("lowPowerMode", _), ("unregistered", _), ("charging", _), ("debuggerAttached", _),
                ("idle", _):
                throw AdminError(.unprocessableContent, "\(key) must be true or false")
            default:
                throw AdminError(
                    .unprocessableContent,
                    "unknown field '\(key)' (fields: \(Self.deviceFields.joined(separator: ", ")))")
            }
        }
        return (state, unregistered)
    }

    /// The longest one clock move may be (openapi.yaml's `maximum` says it too).
    static let longestClockMove = Duration.seconds(10 * 365 * 86_400)

    /// The span of a `POST /v1/clock/advance` body (`{"seconds": N}`, 0 to ten years).
    package static func advanceSpan(_ fields: [(String, JSONValue)]) throws -> Duration {
        let seconds: Double
        switch fields.first(where: { $0.0 == "seconds" })?.1 {
        case .int(let value)?: seconds = Double(value)
        case .double(let value)?: seconds = value
        case nil: throw AdminError(.unprocessableContent, "give {\"seconds\": N}, the span to advance the clock by")
        default: throw AdminError(.unprocessableContent, "seconds must be a number")
        }
        if let other = fields.first(where: { $0.0 != "seconds" }) {
            throw AdminError(.unprocessableContent, "unknown field '\(other.0)' (fields: seconds)")
        }
        let longest = Self.longestClockMove.components.seconds
        guard seconds >= 0, seconds <= Double(longest) else {
            throw AdminError(.unprocessableContent, "seconds must be from 0 to \(longest) (ten years)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    // MARK: JSON

    /// The request body as a JSON object: 400 when it is not JSON, 422 when not an object or
    /// when it names a field twice.
    package static func object(_ body: ByteBuffer) throws -> [(String, JSONValue)] {
        let value: JSONValue
        do throws(JSONValue.ParseError) {
            value = try JSONValue.parse(body.readableBytesView)
        } catch {
            if case .duplicateKey(let key, _) = error { throw AdminError(.unprocessableContent, "the body gives '\(key)' twice") }
            if case .tooDeep(let offset) = error {
                throw AdminError(.badRequest, "the body nests objects and arrays more than \(JSONScanner.maximumDepth) deep (at byte \(offset))")
            }
            // Where reading stopped: a cut-off body, a trailing comma, a number past a double's range.
            throw AdminError(.badRequest, "the body is not JSON: reading stopped at byte \(error.offset)")
        }
        guard case .object(let fields) = value else { throw AdminError(.unprocessableContent, "the body must be a JSON object") }
        return fields
    }

    /// `push` as the lists show it; `storageLimit` (`--apns-storage-limit`) says whether an
    /// expired push held at APNs ran out of it or of its own time.
    static func json(_ push: PushRecord, storageLimit: Duration) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("apnsId", .string(push.apnsID)),
            // This push alone, when a provider sent several with one apns-id.
            ("apnsUniqueId", .string(APNsIDGenerator.uniqueID(apnsID: push.apnsID, pushID: push.id))),
            ("deviceToken", .string(push.deviceToken.isEmpty ? nil : push.deviceToken)),
            ("topic", .string(push.topic.isEmpty ? nil : push.topic)),
            ("pushType", .string(push.pushType.isEmpty ? nil : push.pushType)),
            ("priority", push.priority == 0 ? .null : .int(Int64(push.priority))),
            ("receivedAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: push.receivedAt))),
            ("expiresAt", .string(push.expiresAt.map { ISO8601Timestamp.string(millisecondsSinceEpoch: $0) })),
            ("collapseId", .string(push.collapseID)),
            ("fate", .string(push.fate.name)),
        ]
        switch push.fate.kind {
        case .delivered, .coalesced: fields.append(("wakeId", .int(push.fate.wakeID.map { Int64(bitPattern: $0) })))
        case .dropped: fields.append(("reason", .string(push.fate.dropReason?.description)))
        case .rejected:
            fields.append(("reason", .string(push.fate.rejection?.rawValue)))
            if let cause = push.fate.rejectionCause { fields.append(("cause", .string(cause))) }
        case .injected:
            fields.append(("faultRule", .int(push.fate.faultRule.map { Int64(bitPattern: $0) })))
            fields.append(("reason", .string(push.fate.injection?.description)))
        case .pending, .expired: break
        }
        fields.append(
            (
                "why",
                why(
                    push.fate, reloading: APNsPushType(rawValue: push.pushType).flatMap(WakeKind.init(reloading:)),
                    expiry: PushExpiry(of: push, storageLimit: storageLimit),
                    liveActivity: push.pushType == APNsPushType.liveactivity.rawValue)
            ))
        if !push.warnings.isEmpty { fields.append(("warnings", .array(push.warnings.map(JSONValue.string)))) }
        return .object(fields)
    }

    /// A push with what it was sent with: its APNs headers as the receiver took them (not
    /// `authorization`; the push type and priority in force, the defaults when the request
    /// had none; `apns-expiration` as the second it expires) and its payload as text.
    static func detailedJSON(_ push: PushRecord, storageLimit: Duration) -> JSONValue {
        guard case .object(var fields) = json(push, storageLimit: storageLimit) else { return json(push, storageLimit: storageLimit) }
        var headers: [(String, JSONValue)] = [("apns-id", .string(push.apnsID))]
        if !push.topic.isEmpty { headers.append(("apns-topic", .string(push.topic))) }
        if !push.pushType.isEmpty { headers.append(("apns-push-type", .string(push.pushType))) }
        if push.priority != 0 { headers.append(("apns-priority", .string(String(push.priority)))) }
        if let expiresAt = push.expiresAt { headers.append(("apns-expiration", .string(String(expiresAt / 1000)))) }
        if let collapseID = push.collapseID { headers.append(("apns-collapse-id", .string(collapseID))) }
        fields.append(("headers", .object(headers)))
        fields.append(("payload", .string(String(validating: push.payload, as: UTF8.self))))
        return .object(fields)
    }

    /// `{"rule", "text", "until"}`: the rule that decided the push's fate, for people and
    /// programs. A pending push's comes from the policy that holds it; the others follow from
    /// the fate (and, for a widget or control push, the reload it `reloading` makes). An
    /// expired push expired with the newer push that replaced it in its slot
    /// (`PushFate.expiredWith`), or else by what `expiry` says: its own `apns-expiration`, or
    /// APNs's storage limit. A `liveActivity` push is replaced by a newer update to
    /// its activity (the activity's updates name which), not in an app's slot.
    static func why(_ fate: PushFate, reloading: WakeKind? = nil, expiry: PushExpiry = .ownExpiration, liveActivity: Bool = false) -> JSONValue {
        let (rule, text, until): (String, String, DeviceInstant?) =
            switch fate.kind {
            case .pending:
                if let wait = fate.waitReason {
                    (wait.rule.rawValue, wait.text(time: time, for: liveActivity ? .liveActivity : .push), wait.until)
                } else {
                    ("pending", "waiting", nil)
                }
            case .delivered:
                if let wakeID = fate.wakeID, let reloading {
                    ("reloaded", "reloaded the app's \(reloading.rawValue) in wake \(wakeID)", nil)
                } else {
                    // Delivered by no wake: a Live Activity push its activity applied.
                    fate.wakeID.map { ("woke", "delivered by wake \($0)", nil) } ?? ("applied", "applied by its Live Activity (see its updates)", nil)
                }
            case .coalesced where liveActivity:
                fate.coalescedByAPNs
                    ? ("apnsStorage", "replaced at APNs while the device was offline (APNs keeps one push per token)", nil)
                    : (
                        "replaced", "replaced by a newer push to its Live Activity, an update or its end, before it showed (its updates name which)",
                        nil
                    )
            case .coalesced where fate.coalescedByAPNs:
                (
                    "apnsStorage",
                    "replaced at APNs while the device was offline (APNs keeps one push per app)"
                        + (fate.wakeID.map { "; rode wake \($0)" } ?? ""), nil
                )
            case .coalesced:
                ("replaced", fate.wakeID.map { "replaced in the app's slot; rode wake \($0)" } ?? "replaced in the app's slot by a newer push", nil)
            // A Live Activity push has no slot and no wake: it expires only where APNs kept it.
            case .expired where liveActivity:
                (
                    "expired",
                    "APNs kept it for the offline device past its apns-expiration (at most APNs's storage limit): its Live Activity never got it",
                    nil
                )
            case .expired where fate.expiredWith != nil && fate.coalescedByAPNs:
                (
                    "expired",
                    "replaced at APNs while the device was offline by a newer push, and expired with it before a wake could deliver it", nil
                )
            case .expired where fate.expiredWith != nil:
                ("expired", "replaced in the app's slot by a newer push, and expired with it before a wake could deliver it", nil)
            case .expired:
                switch expiry {
                case .storageLimit(let hasOwn):
                    (
                        "expired",
                        "APNs's storage limit for an offline device passed"
                            + (hasOwn ? ", sooner than its apns-expiration," : "") + " before a wake could deliver it", nil
                    )
                case .ownExpiration: ("expired", "its apns-expiration passed before a wake could deliver it", nil)
                }
            case .dropped:
                switch fate.dropReason {
                case .forceQuit?: ("forceQuit", "dropped: app force-quit", nil)
                case .backgroundAppRefreshOff?: ("backgroundRefreshOff", "dropped: Background App Refresh off", nil)
                case .appDeleted?: ("appDeleted", "dropped: the app was deleted (uninstalled, or reinstalled with a new device token)", nil)
                case .liveActivity(let ignored)?: ("liveActivity", "dropped: Live Activity: \(ignored.rawValue) (\(ignored.advice))", nil)
                case let reason?: ("neverWakes", "dropped: \(reason)", nil)
                case nil: ("dropped", "dropped", nil)
                }
            case .rejected:
                (
                    "rejected", "rejected by APNs: \(fate.rejection?.rawValue ?? "unknown reason")" + (fate.rejectionCause.map { " (\($0))" } ?? ""),
                    nil
                )
            case .injected:
                (
                    "injected",
                    "answered by fault rule \(fate.faultRule.map(String.init) ?? "?"): \(fate.injection.map { "\($0)" } ?? "unknown action")", nil
                )
            }
        return whyObject(rule, text, until)
    }

    /// `{"rule", "text", "until"}` for what holds a push (or `waiter`, in its words).
    static func why(_ wait: WaitReason<DeviceInstant>, for waiter: WaitReason<DeviceInstant>.Waiter = .push) -> JSONValue {
        whyObject(wait.rule.rawValue, wait.text(time: time, for: waiter), wait.until)
    }

    static func whyObject(_ rule: String, _ text: String, _ until: DeviceInstant?) -> JSONValue {
        .object([("rule", .string(rule)), ("text", .string(text)), ("until", .string(until.map(time)))])
    }

    /// A device instant as the admin API writes times.
    static func time(_ instant: DeviceInstant) -> String {
        ISO8601Timestamp.string(millisecondsSinceEpoch: instant.millisecondsSinceEpoch)
    }

    /// `coalesced`: the pushes that rode it, by apns-id and by apns-unique-id (one apns-id
    /// may name several pushes; the unique id names one).
    static func json(_ wake: WakeRecord, coalesced: [(apnsID: String, pushID: UInt64)]) -> JSONValue {
        .object([
            ("id", .int(Int64(bitPattern: wake.id))),
            ("deviceToken", .string(wake.deviceToken)),
            ("topic", .string(wake.topic)),
            ("kind", .string(wake.kind.rawValue)),
            ("apnsId", .string(wake.apnsID)),
            ("apnsUniqueId", .string(wake.apnsID.map { APNsIDGenerator.uniqueID(apnsID: $0, pushID: wake.pushID) })),
            ("coalesced", .array(coalesced.map { .string($0.apnsID) })),
            ("coalescedUniqueIds", .array(coalesced.map { .string(APNsIDGenerator.uniqueID(apnsID: $0.apnsID, pushID: $0.pushID)) })),
            ("startedAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: wake.startedAt.millisecondsSinceEpoch))),
            ("deadline", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: wake.deadline.millisecondsSinceEpoch))),
            ("finishedAt", .string(wake.finishedAt.map { ISO8601Timestamp.string(millisecondsSinceEpoch: $0.millisecondsSinceEpoch) })),
            ("durationMs", .int(wake.finishedAt.map { $0.millisecondsSinceEpoch - wake.startedAt.millisecondsSinceEpoch })),
            ("result", .string(wake.result?.name)),
            ("reason", .string(wake.reason)),
            ("endedBy", .string(wake.result?.endedBy.rawValue)),
            ("stderr", .string(wake.errorOutput)),
        ])
    }

    static func json(_ content: ContentRecord) -> JSONValue {
        .object([
            ("deviceToken", .string(content.deviceToken)),
            ("topic", .string(content.topic)),
            ("url", .string(URLUserInfo.masked(content.url))),
            ("etag", .string(content.etag)),
            ("lastModified", .string(content.lastModified)),
            ("contentType", .string(content.contentType)),
            ("sha256", .string(content.sha256)),
            ("size", .int(Int64(content.size))),
            ("fetchedAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: content.fetchedAt))),
            ("changedAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: content.changedAt))),
        ])
    }

    static func respond(_ status: HTTPResponse.Status, _ json: JSONValue) -> Response {
        var buffer = ByteBuffer(string: json.rendered)
        buffer.writeString("\n")
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: buffer))
    }

    /// An error as RFC 9457 problem details: `title` the status's phrase, `detail` what to fix
    /// (also as `error`, the field older clients read), and any `extra` members.
    static func error(_ status: HTTPResponse.Status, _ message: String, extra: [(String, JSONValue)] = []) -> Response {
        let problem = JSONValue.object(
            [
                ("type", .string("about:blank")), ("title", .string(status.reasonPhrase)), ("status", .int(Int64(status.code))),
                ("detail", .string(message)), ("error", .string(message)),
            ] + extra)
        var buffer = ByteBuffer(string: problem.rendered)
        buffer.writeString("\n")
        return Response(status: status, headers: [.contentType: "application/problem+json"], body: ResponseBody(byteBuffer: buffer))
    }
}
