import Foundation
import Logging
import Synchronization
import SilentPushCore
import SilentPushTransport

/// The APNs provider API on the HTTP/2 transport: route, headers, auth (provider token or
/// client certificate), validation, the device registry and rate limit, then the push sink.
/// Answers exactly as APNs does: `200` with `apns-id`, or the status with `apns-id`,
/// `content-type: application/json` and `{"reason":…}` (`"timestamp"` too for 410).
package final class APNsEndpoint: H2Service {
    /// How the endpoint answers: the environment it plays, `--strict`, how unknown device tokens are treated, the rate
    /// limit per device token, and how many provider-token verdicts it caches.
    package struct Settings: Sendable {
        package var environment: APNsEnvironment
        package var strict: Bool
        package var registryMode: DeviceRegistry.Mode
        package var rateLimit: (limit: Int, window: Duration)?
        package var tokenCacheCapacity = 4096

        package init(
            environment: APNsEnvironment = .sandbox, strict: Bool = false, registryMode: DeviceRegistry.Mode = .acceptOnFirstUse,
            rateLimit: (limit: Int, window: Duration)? = nil
        ) {
            self.environment = environment
            self.strict = strict
            self.registryMode = registryMode
            self.rateLimit = rateLimit
        }
    }

    private let validator: APNsRequestValidator
    private let authenticator: ProviderTokenAuthenticator
    private let environment: APNsEnvironment
    private let keys: Mutex<ProviderKeyRing>
    /// Provider tokens judged so far, shared across connections: those verified, and those
    /// whose signature failed.
    private let tokenVerdicts: Mutex<TokenVerdicts>

    private struct TokenVerdicts {
        var verified: BoundedCache<Substring, VerifiedProviderToken>
        var refused: BoundedCache<Substring, Void>

        init(capacity: Int) {
            verified = BoundedCache(capacity: capacity)
            refused = BoundedCache(capacity: capacity)
        }
    }
    private let devices: Mutex<(registry: DeviceRegistry, limiter: TokenRateLimiter?)>
    let sink: any PushSink
    /// The sink, when it can take a read's pushes as one batch.
    private let batching: (any PushBatching)?
    private let ids = APNsIDGenerator()
    /// Broadcast channels; nil: `/4/broadcasts/…` is answered BadPath.
    let channels: ChannelDirectory?
    /// `apns-request-id`s made for broadcasts, apart from the push ids.
    let requestIDs = APNsIDGenerator()
    let nextRequest = Atomic<UInt64>(0)
    private let awaitingAnswer = Atomic<Int>(0)
    /// Milliseconds since the epoch on the system clock: provider tokens are judged on it.
    private let now: @Sendable () -> Int64
    /// Fault rules (`/v1/faults`), judged on the device clock; `faultCount` lets a request skip
    /// the lock while there are none.
    private let faults = Mutex(FaultTable())
    private let faultCount = Atomic<Int>(0)
    let deviceNow: @Sendable () -> DeviceInstant
    let logger: Logger
    /// When each kind of token refusal was last logged and how many went unlogged since: one
    /// line per kind a minute, however many requests carry it and whatever text they vary.
    private let refusalsLogged = Mutex<[TokenRefusalCause.Kind: (at: Int64, unlogged: Int)]>([:])

    package init(
        settings: Settings, keys: ProviderKeyRing, sink: any PushSink, channels: ChannelDirectory? = nil,
        now: @escaping @Sendable () -> Int64 = APNsEndpoint.systemMilliseconds,
        deviceNow: @escaping @Sendable () -> DeviceInstant = { DeviceInstant(millisecondsSinceEpoch: APNsEndpoint.systemMilliseconds()) },
        logger: Logger = Logger(label: "silentpushd")
    ) {
        self.logger = logger
        self.deviceNow = deviceNow
        validator = APNsRequestValidator(strict: settings.strict)
        authenticator = ProviderTokenAuthenticator(environment: settings.environment)
        environment = settings.environment
        self.keys = Mutex(keys)
        tokenVerdicts = Mutex(TokenVerdicts(capacity: settings.tokenCacheCapacity))
        devices = Mutex(
            (DeviceRegistry(mode: settings.registryMode), settings.rateLimit.map { TokenRateLimiter(limit: $0.limit, window: $0.window) }))
        self.sink = sink
        self.channels = channels
        batching = sink as? any PushBatching
        self.now = now
    }

    private static let uniqueIDName: StaticString = "apns-unique-id"

    /// The request's `apns-id`, when it has one in its canonical form (any other is refused
    /// with BadMessageId, and answered with an id of ours).
    static func givenAPNsID(_ request: H2Request) -> String? {
        request.headers.first("apns-id").flatMap { APNsHeaders.isCanonicalUUID($0) ? $0 : nil }
    }
    package static let systemMilliseconds: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: H2Service

    package func handle(_ request: H2Request, writer: H2ResponseWriter) {
        let route = APNsRoute(method: request.method, path: request.path)
        if let channels {
            switch route {
            case .broadcast(let bundleID): return broadcast(request, bundleID: String(bundleID), channels: channels, writer: writer)
            case .broadcastRefused(let reason): return refuseBroadcast(request, reason: reason, writer: writer)
            default: break
            }
        }
        var writer = writer
        var apnsID: String?
        var deviceToken: Substring?
        var topicHeader: String?
        let pushID = sink.takePushID()
        do {
            let token = try Self.deviceToken(of: route)
            deviceToken = token
            // Another receiver of the cluster owns this device: nothing is recorded here.
            guard sink.owns(deviceToken: token) else {
                return writer.respond(Self.error(APNsRejection(.serviceUnavailable), apnsID: Self.givenAPNsID(request) ?? ids.apnsID(pushID: pushID)))
            }
            let headers = try APNsHeaders.read(from: HeaderFields(list: request.headers))
            topicHeader = headers.topic
            if let given = headers.apnsID {
                guard APNsHeaders.isCanonicalUUID(given) else { throw APNsRejection(.badMessageId) }
                apnsID = given
            }
            let faulting = faultCount.load(ordering: .relaxed) > 0
            let (topic, key) = try authenticate(request, headers: headers, identifyingKey: faulting)
            let id = apnsID ?? ids.apnsID(pushID: pushID)
            apnsID = id
            if faulting,
                let rule = fault(for: FaultRequest(device: String(token), topic: topic, team: key?.teamID, keyID: key?.keyID), on: request)
            {
                sink.faultApplied(rule.action)
                if case .delay(let duration) = rule.action {
                    // Handled and recorded as usual; only the answer waits.
                    writer = writer.delayed(by: duration)
                } else {
                    return inject(rule, id: id, pushID: pushID, token: String(token), topic: topic, writer: writer)
                }
            }
            let push = try validator.validate(deviceToken: token, topic: topic, headers: headers, apnsID: id, body: request.body)
            // "The location push type supports only token-based authentication." Apple names
            // no reason for a certificate's; InvalidPushType is assumed.
            if push.pushType == .location, connectionState(request.connection).certificate != nil {
                throw APNsRejection(.invalidPushType)
            }
            try admit(push)
            awaitingAnswer.add(1, ordering: .relaxed)
            let writer = writer
            let development = environment == .sandbox
            sink.submit(push, id: pushID) { result in
                self.awaitingAnswer.subtract(1, ordering: .relaxed)
                switch result {
                case .success:
                    var headers = H2HeaderList()
                    // Room for both fields at once (the two names and the unique id take 57
                    // bytes): growing the list for the second one reallocated both its buffers.
                    headers.reserve(bytes: 64 + id.utf8.count, fields: 2)
                    headers.append(name: "apns-id", value: id)
                    // The development environment also names the push for Apple's delivery log.
                    if development {
                        APNsIDGenerator.withUniqueID(apnsID: id, pushID: pushID) { value in
                            Self.uniqueIDName.withUTF8Buffer { headers.append(name: UnsafeRawBufferPointer($0), value: value) }
                        }
                    }
                    writer.respond(H2Response(status: 200, headers: headers))
                case .failure(let rejection): writer.respond(Self.error(rejection, apnsID: id))
                }
            }
        } catch {
            let rejection = (error as? APNsRejection) ?? (error as? APNsReason).map { APNsRejection($0) } ?? APNsRejection(.internalServerError)
            // Refused before its headers were read (the path, a header's value): the provider's
            // apns-id is still echoed when it is one.
            let id = apnsID ?? Self.givenAPNsID(request) ?? ids.apnsID(pushID: pushID)
            writer.respond(Self.error(rejection, apnsID: id))
            // The wire answer stays Apple's; the cause is for our own log and record.
            let cause = rejection.reason == .invalidProviderToken ? tokenRefusalCause(request) : nil
            sink.reject(
                id: pushID, apnsID: id, deviceToken: deviceToken.map(String.init), topic: topicHeader, reason: rejection.reason,
                cause: cause?.description)
        }
    }

    /// A read's requests go to the sink as one batch: one commit, where the sink batches.
    package func readBegan() { batching?.holdSubmissions() }

    package func readEnded() { batching?.releaseSubmissions() }

    /// Why the request's provider token was refused, logged at notice once a minute per kind of cause.
    private func tokenRefusalCause(_ request: H2Request) -> TokenRefusalCause? {
        let authorization = request.headers.first("authorization").map { Substring($0) }
        let nowMilliseconds = now()
        let cause = keys.withLock { keys in
            authenticator.diagnose(
                authorization: authorization, now: nowMilliseconds / 1000, lookupKey: { keys.key($0) },
                verify: { token, _ in keys.verify(token) })
        }
        guard let cause else { return nil }
        // One line a minute per kind of cause: a sender varying its kid gets no more.
        let unlogged = refusalsLogged.withLock { logged -> Int? in
            if let last = logged[cause.kind], nowMilliseconds - last.at < 60_000 {
                logged[cause.kind] = (last.at, last.unlogged + 1)
                return nil
            }
            let before = logged[cause.kind]?.unlogged ?? 0
            logged[cause.kind] = (nowMilliseconds, 0)
            return before
        }
        if let unlogged {
            logger.notice(
                "provider token refused (InvalidProviderToken): \(cause)",
                metadata: ["auth.refused_since_last_line": "\(unlogged)", "connection.id": "\(request.connection.id)"])
        }
        return cause
    }

    package func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter) {
        if channels != nil {
            switch APNsRoute(method: request.method, path: request.path) {
            case .broadcast, .broadcastRefused: return refuseBroadcast(request, problem: problem, writer: writer)
            default: break
            }
        }
        let given = request.headers.first("apns-id")
        let pushID = sink.takePushID()
        let apnsID = given.flatMap { APNsHeaders.isCanonicalUUID($0) ? $0 : nil } ?? ids.apnsID(pushID: pushID)
        switch problem {
        case .bodyTooLarge:
            writer.respond(Self.error(APNsRejection(.payloadTooLarge), apnsID: apnsID))
            let token: String? = if case .push(let token) = APNsRoute(method: request.method, path: request.path) { String(token) } else { nil }
            sink.reject(id: pushID, apnsID: apnsID, deviceToken: token, topic: request.headers.first("apns-topic"), reason: .payloadTooLarge)
        case .headerListTooLarge: writer.respond(H2Response(status: 431, headers: H2HeaderList(name: "apns-id", value: apnsID)))
        }
    }

    /// Requests handed to the device side and not answered yet (their commit is pending).
    package var requestsAwaitingAnswer: Int { awaitingAnswer.load(ordering: .relaxed) }

    // MARK: Faults

    /// Adds a fault rule; returns its id, nil when the table is full.
    package func addFault(_ rule: FaultRule) -> UInt64? {
        faults.withLock { table in
            let id = table.add(rule)
            faultCount.store(table.rules.count, ordering: .relaxed)
            return id
        }
    }

    /// Removes fault rule `id` (nil: every rule); false when there was none.
    @discardableResult
    package func removeFault(_ id: UInt64?) -> Bool {
        faults.withLock { table in
            defer { faultCount.store(table.rules.count, ordering: .relaxed) }
            guard let id else {
                table.removeAll()
                return true
            }
            return table.remove(id)
        }
    }

    /// Makes `rules` the ones in force (a cluster's, ids given by its store); a rule already
    /// in force keeps its counts.
    package func setFaults(_ rules: [FaultRule]) {
        faults.withLock { table in
            table.replace(with: rules)
            faultCount.store(table.rules.count, ordering: .relaxed)
        }
    }

    /// The rules in force, with how often each applied.
    package var faultRules: [FaultRule] { faults.withLock { $0.rules } }

    /// The rule that answers this request, if one does. A GOAWAY rule lets its first
    /// `afterStreams` matching requests on each connection through.
    private func fault(for match: FaultRequest, on request: H2Request) -> FaultRule? {
        let state = connectionState(request.connection)
        let instant = deviceNow()
        let draw = Double.random(in: 0..<1)
        return faults.withLock { table in
            guard let rule = table.match(match, now: instant, draw: draw) else { return nil }
            if case .goAway(_, let after) = rule.action, state.faultStreams[rule.id, default: 0] < after {
                state.faultStreams[rule.id, default: 0] += 1
                return nil
            }
            return table.consume(rule.id)
        }
    }

    /// Carries out `rule` for a request that would otherwise go on to validation, and records it.
    private func inject(_ rule: FaultRule, id: String, pushID: UInt64, token: String, topic: String, writer: H2ResponseWriter) {
        switch rule.action {
        case .reason(let reason):
            let timestamp: Int64? = reason == .unregistered || reason == .expiredToken ? deviceNow().millisecondsSinceEpoch : nil
            writer.respond(Self.error(APNsRejection(reason, timestamp: timestamp), apnsID: id))
        case .goAway(let reason, _):
            writer.respond(Self.error(APNsRejection(reason), apnsID: id))
            writer.goAway(reason: reason)
        case .reset:
            writer.closeConnection()
        case .delay: return  // not an answer of its own: see `handle`
        }
        sink.inject(id: pushID, apnsID: id, deviceToken: token, topic: topic, rule: rule.id, action: rule.action)
    }

    // MARK: Registry access (tests, admin)

    package func withDevices<Result>(_ body: (inout DeviceRegistry) -> Result) -> Result {
        devices.withLock { body(&$0.registry) }
    }

    package func updateKey(_ keyID: String, _ change: @escaping (inout ProviderKey) -> Void) {
        keys.withLock { $0.update(keyID, change) }
        tokenVerdicts.withLock { $0 = TokenVerdicts(capacity: $0.verified.capacity) }  // re-judge every token
    }

    // MARK: Steps

    private static func deviceToken(of route: APNsRoute) throws(APNsRejection) -> Substring {
        switch route {
        case .push(let token): return token
        case .missingDeviceToken: throw APNsRejection(.missingDeviceToken)
        case .methodNotAllowed: throw APNsRejection(.methodNotAllowed)
        case .badPath, .broadcast, .broadcastRefused: throw APNsRejection(.badPath)  // a broadcast, with no channels to take it
        }
    }

    /// Settles who is sending and so the topic: the client certificate when the connection
    /// has one, else the provider token.
    /// The key comes back only when `identifyingKey` (fault rules match on it): copying it
    /// costs every request.
    private func authenticate(
        _ request: H2Request, headers: APNsHeaders, identifyingKey: Bool
    ) throws(APNsReason) -> (
        topic: String, key: ProviderKey?
    ) {
        let state = connectionState(request.connection)
        if let certificate = state.certificate {
            return (try certificate.topic(for: headers.topic, environment: environment), nil)
        }
        let verified = try verifiedToken(headers.authorization, state: state)
        guard let topic = headers.topic, !topic.isEmpty else { throw .missingTopic }
        guard APNsRequestValidator.isTopicShape(topic) else { throw .badTopic }
        guard verified.key.allows(topic: topic) else { throw .topicDisallowed }
        return (topic, identifyingKey ? verified.key : nil)
    }

    /// The provider token in `authorization`, verified: the connection's own needs no shared
    /// state; a new one takes the locks.
    private func verifiedToken(_ authorization: String?, state: ConnectionState) throws(APNsReason) -> VerifiedProviderToken {
        let nowSeconds = now() / 1000
        let authorization = authorization.map { Substring($0) }
        if let current = try authenticator.authenticateCurrent(authorization: authorization, connection: state.tokens, now: nowSeconds) {
            return current
        }
        return try keys.withLock { keys throws(APNsReason) in
            try tokenVerdicts.withLock { verdicts throws(APNsReason) in
                try authenticator.authenticate(
                    authorization: authorization, connection: &state.tokens, now: nowSeconds,
                    lookupKey: { keys.key($0) }, verify: { token, _ in keys.verify(token) }, cache: &verdicts.verified,
                    refused: &verdicts.refused)
            }
        }
    }

    /// Settles that whoever sent a broadcast or channel-management request (its client
    /// certificate, else its provider token, judged as a push's are) may send for the
    /// path's `bundleID`: `TopicMismatch` when the token's key or the certificate does not
    /// name it.
    package func authorize(_ request: H2Request, bundleID: String) throws(APNsReason) {
        let state = connectionState(request.connection)
        if let certificate = state.certificate {
            do {
                _ = try certificate.topic(for: bundleID, environment: environment)
            } catch .badTopic {
                throw .topicMismatch
            }
            return
        }
        let verified = try verifiedToken(request.headers.first("authorization"), state: state)
        guard verified.key.allows(topic: bundleID) else { throw .topicMismatch }
    }

    private func admit(_ push: ValidatedPush) throws(APNsRejection) {
        let nowMilliseconds = now()
        try devices.withLock { devices throws(APNsRejection) in
            if push.pushType == .liveactivity {
                // A Live Activity token is not a device token. A push-to-start token names its
                // device and app, which the registry admits or refuses; an update token was
                // issued to a running activity, and one the device never issued is its
                // policy's to drop (`unknownToken`).
                let bundleID = String(push.topic.dropLast(APNsPushType.liveactivity.topicSuffix?.utf8.count ?? 0))
                if let app = LiveActivityApp.pushToStart(token: push.deviceToken, bundleID: bundleID) {
                    try devices.registry.admit(token: app.device, topic: bundleID)
                }
            } else {
                try devices.registry.admit(token: push.deviceToken, topic: push.topic)
            }
            do throws(APNsReason) {
                try devices.limiter?.admit(token: push.deviceToken, now: nowMilliseconds)
            } catch {
                throw APNsRejection(error)
            }
        }
    }

    /// Per-connection auth state, made on the connection's first request.
    private func connectionState(_ connection: H2ConnectionInfo) -> ConnectionState {
        if let state = connection.applicationState.value as? ConnectionState { return state }
        let state = ConnectionState(certificate: connection.tls?.peerCertificateDER.map(Self.certificateIdentity))
        connection.applicationState.value = state
        return state
    }

    private static func certificateIdentity(_ der: [UInt8]) -> ClientCertificateIdentity {
        let oids = [
            ClientCertificateIdentity.topicExtensionOID, ClientCertificateIdentity.developmentExtensionOID,
            ClientCertificateIdentity.productionExtensionOID,
        ]
        guard let info = X509CertificateInfo(der: der, extensionOIDs: oids) else {
            return ClientCertificateIdentity(subjectUID: nil, topicExtension: nil, development: false, production: false)
        }
        return ClientCertificateIdentity(
            subjectUID: info.subjectUID, topicExtension: info.extensionValue(ClientCertificateIdentity.topicExtensionOID),
            development: info.extensionValue(ClientCertificateIdentity.developmentExtensionOID) != nil,
            production: info.extensionValue(ClientCertificateIdentity.productionExtensionOID) != nil)
    }

    static func error(_ rejection: APNsRejection, apnsID: String) -> H2Response {
        H2Response(
            status: rejection.reason.status,
            headers: [("apns-id", apnsID), ("content-type", "application/json")],
            body: APNsErrorBody(rejection).bytes)
    }
}

extension APNsEndpoint {
    /// What one connection has established: its client certificate's identity, or the
    /// provider-token rules' state. Touched only on the connection's event loop, one request
    /// at a time: the per-request exclusivity checks are skipped.
    final class ConnectionState {
        let certificate: ClientCertificateIdentity?
        @exclusivity(unchecked) var tokens = ProviderTokenConnectionState()
        /// Requests each GOAWAY fault rule let through on this connection.
        var faultStreams: [UInt64: Int] = [:]

        init(certificate: ClientCertificateIdentity?) {
            self.certificate = certificate
        }
    }

    /// The transport's header list as the core reads it.
    struct HeaderFields: APNsHeaderSource {
        let list: H2HeaderList

        func forEachHeader(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
            try list.forEachRaw(body)
        }
    }
}
