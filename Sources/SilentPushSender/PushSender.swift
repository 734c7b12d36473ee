import Foundation
import NIOCore
import NIOPosix
import Synchronization
import SilentPushCore
import SilentPushTransport

/// Posts a payload to devices over HTTP/2: `connections` connections, each with
/// `concurrency` streams in flight, `count` pushes per device. Each answer becomes a line on
/// stdout, in the order the pushes were made; the summary and any message go to stderr.
package struct PushSender: Sendable {
    /// Where lines and messages go (stdout and stderr for `pushsend`; captured in tests).
    package struct Output: Sendable {
        package var line: @Sendable (String) -> Void
        package var message: @Sendable (String) -> Void

        /// An output.
        package init(line: @escaping @Sendable (String) -> Void, message: @escaping @Sendable (String) -> Void) {
            self.line = line
            self.message = message
        }

        /// stdout and stderr.
        package static let standard = Output(
            line: { print($0) },
            message: { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) })
    }

    package let configuration: PushSendConfiguration
    package let output: Output

    /// A sender.
    package init(_ configuration: PushSendConfiguration, output: Output = .standard) {
        self.configuration = configuration
        self.output = output
    }

    /// One push's answer.
    struct Outcome: Sendable {
        var device: String
        var status: Int?
        var apnsID: String
        /// The `apns-unique-id` APNs answers in the development environment, to look the push
        /// up by (a retry of one `apns-id` gets its own).
        var uniqueID: String? = nil
        var reason: String?
        /// A 410's: when APNs confirmed the token was no longer valid for the topic (ms).
        var timestamp: Int64? = nil
        var latency: Duration
        var error: String?
    }

    /// Sends every push and returns the summary. Throws `PushSendError` (exit 2) when it
    /// cannot connect or sign.
    package func run() async throws -> PushSendSummary {
        let configuration = self.configuration
        let tls: TLSContext?
        do {
            tls = configuration.target.scheme == "https" ? try TLSContext.client(configuration.tls) : nil
        } catch {
            throw PushSendError.tlsSetup(problem: "\(error)")
        }
        if case .token(let signer) = configuration.authentication {
            do {
                _ = try signer.token()
            } catch {
                throw PushSendError.signing(keyID: signer.keyID, problem: "\(error)")
            }
        }
        var connections: [H2ClientConnection] = []
        do {
            for _ in 0..<configuration.connections {
                connections.append(
                    try await H2ClientConnection.connect(
                        host: configuration.target.host, port: configuration.target.port, tls: tls,
                        answerTimeout: configuration.answerTimeout))
            }
        } catch {
            for connection in connections { await connection.close() }
            if case .untrustedServer = error as? H2ConnectError { throw PushSendError.untrustedServer(problem: "\(error)") }
            throw PushSendError.connection(problem: "\(error)")
        }

        let total = configuration.devices.count * configuration.count
        let state = RunState(total: total)
        let headers = HeaderCache()
        // Each device's path, made once: a run sends `count` pushes to each.
        let paths = configuration.devices.map { device in
            var request = configuration.request
            request.deviceToken = device
            return request.path
        }
        let began = ContinuousClock.now
        let progress = configuration.progress ? Task { await self.showProgress(state, total: total) } : nil
        // Each stream's next push is sent from its answer's callback, on the connection's
        // event loop: no hop to the task pool and back per push, whose thread switches would
        // be most of the client's time.
        let connect: @Sendable () async throws -> H2ClientConnection = {
            try await H2ClientConnection.connect(
                host: configuration.target.host, port: configuration.target.port, tls: tls, answerTimeout: configuration.answerTimeout)
        }
        let slots = connections.map { ConnectionSlot($0, connect: connect) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = Atomic<Int>(0)
            let streams = max(1, min(configuration.concurrency, total))
            let chains = slots.count * streams
            @Sendable func next(_ slot: ConnectionSlot, _ connection: H2ClientConnection) {
                let index = state.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < total else {
                    if finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == chains { done.resume() }
                    return
                }
                let which = index % configuration.devices.count
                let push = Push(device: configuration.devices[which], path: paths[which], began: .now)
                send(push, over: connection, of: slot, headers: headers) { outcome, connection in
                    state.finish(index, outcome, emit: emit)
                    next(slot, connection)
                }
            }
            for (slot, connection) in zip(slots, connections) {
                for _ in 0..<streams { next(slot, connection) }
            }
        }
        let elapsed = ContinuousClock.now - began
        progress?.cancel()
        for slot in slots {
            for connection in await slot.opened { await connection.close() }
        }
        return state.summary(elapsed: elapsed)
    }

    /// One push to make: its device, its path, and when it was first sent.
    struct Push: Sendable {
        var device: String
        var path: String
        var began: ContinuousClock.Instant
    }

    /// How many times a push the server never processed is sent again on a new connection.
    static let resends = 3

    /// Sends one push over `connection` of `slot` (over its replacement when the connection
    /// is gone); `done` runs once, with the answer or why there was none, and the connection
    /// the stream goes on with.
    private func send(
        _ push: Push, over connection: H2ClientConnection, of slot: ConnectionSlot, headers cache: HeaderCache, resent: Int = 0,
        done: @escaping @Sendable (Outcome, H2ClientConnection) -> Void
    ) {
        @Sendable func resend(after error: (any Error)?) {
            Task {
                // A server that sent nothing for the answer timeout (the push held for its
                // SETTINGS) would keep a new connection waiting as long: the push fails, said
                // as that silence.
                if await connection.endedWithoutAnswer() {
                    let silence = H2ConnectError.noAnswer(milliseconds: configuration.answerTimeout.nanosecondCount / 1_000_000)
                    return done(failed(push, silence), connection)
                }
                // A server that ended TLS with an alert (a client certificate it refuses) would
                // refuse a new connection alike: said, not sent again.
                if let alert = await connection.refusal() {
                    return done(failed(push, H2ConnectError.refusedInTLS(alert: alert)), connection)
                }
                if let error {
                    // A live connection retries its refused streams itself: only one the
                    // server went away from or closed is replaced.
                    let goneAway = ((try? await connection.goAway()) ?? nil) != nil
                    guard resent < Self.resends, ConnectionSlot.neverProcessed(error), goneAway || !connection.isActive else {
                        return done(failed(push, error), connection)
                    }
                } else if resent >= Self.resends {
                    return done(failed(push, nil), connection)
                }
                switch await slot.replacement(for: connection) {
                case .success(let new): send(push, over: new, of: slot, headers: cache, resent: resent + 1, done: done)
                case .failure(let connectError): done(failed(push, connectError), connection)
                }
            }
        }
        // The server closed it (after a GOAWAY, say): this push goes on the slot's next.
        guard connection.isActive else { return resend(after: nil) }
        send(push.device, path: push.path, over: connection, headers: cache) { result in
            switch result {
            case .success(let outcome): done(outcome, connection)
            case .failure(let error): resend(after: error)
            }
        }
    }

    private func failed(_ push: Push, _ error: (any Error)?) -> Outcome {
        Outcome(
            device: push.device, status: nil, apnsID: configuration.request.apnsID ?? "-", reason: nil, latency: ContinuousClock.now - push.began,
            error: error.map { "\($0)" } ?? "the connection closed")
    }

    /// Sends one push; `done` runs once, on the connection's event loop, with the answer, or
    /// the error when there was none.
    private func send(
        _ device: String, path: String, over connection: H2ClientConnection, headers cache: HeaderCache,
        done: @escaping @Sendable (Result<Outcome, any Error>) -> Void
    ) {
        let began = ContinuousClock.now
        var token: String?
        do {
            if case .token(let signer) = configuration.authentication { token = try signer.token() }
        } catch {
            return done(
                .success(
                    Outcome(
                        device: device, status: nil, apnsID: configuration.request.apnsID ?? "-", reason: nil,
                        latency: ContinuousClock.now - began, error: "\(error)")))
        }
        // Every push of a run carries the same fields but the path: built once per token.
        let headers = cache.headers(for: configuration.request, token: token)
        if configuration.verbose {
            var request = configuration.request
            request.deviceToken = device
            showRequest(request, headers: headers.fields, connection: connection)
        }
        let verbose = configuration.verbose
        connection.send(H2Request(method: "POST", path: path, headers: headers, body: configuration.payload)) { result in
            switch result {
            case .success(let response):
                if verbose { showResponse(response) }
                let body = response.status == 200 ? nil : APNsErrorBody(parsing: response.body)
                done(
                    .success(
                        Outcome(
                            device: device, status: response.status, apnsID: response.headers.first("apns-id") ?? "-",
                            uniqueID: response.headers.first("apns-unique-id"), reason: body?.reason, timestamp: body?.timestamp,
                            latency: ContinuousClock.now - began)))
            case .failure(let error): done(.failure(error))
            }
        }
    }

    private func emit(_ outcome: Outcome) {
        switch configuration.output {
        case .quiet: return
        case .lines:
            if let status = outcome.status {
                output.line(status == 200 ? "200 \(outcome.apnsID)" : "\(status) \(outcome.reason ?? "-") \(outcome.apnsID)")
            } else {
                output.line("error \(outcome.error ?? "-") \(outcome.apnsID)")
            }
        case .json:
            var text = "{\"device\":" + JSONString.quoted(outcome.device)
            text += ",\"status\":" + (outcome.status.map(String.init) ?? "null")
            // A push with no answer has no apns-id but the one it was sent with.
            let apnsID = outcome.status == nil && configuration.request.apnsID == nil ? nil : outcome.apnsID
            text += ",\"apnsId\":" + (apnsID.map(JSONString.quoted) ?? "null")
            if let uniqueID = outcome.uniqueID { text += ",\"uniqueId\":" + JSONString.quoted(uniqueID) }
            text += ",\"reason\":" + (outcome.reason.map(JSONString.quoted) ?? "null")
            if let timestamp = outcome.timestamp { text += ",\"timestamp\":" + String(timestamp) }
            if let error = outcome.error { text += ",\"error\":" + JSONString.quoted(error) }
            text += ",\"latencyMs\":" + String(format: "%.3f", Double(outcome.latency.nanosecondCount) / 1e6) + "}"
            output.line(text)
        }
    }

    private func showRequest(_ request: APNsPushRequest, headers: [(name: String, value: String)], connection: H2ClientConnection) {
        var lines = ["> :method POST", "> :scheme \(connection.scheme)", "> :authority \(connection.authority)", "> :path \(request.path)"]
        for (name, value) in headers {
            // A provider token is a credential: enough of it to tell tokens apart.
            lines.append(name == "authorization" ? "> authorization: bearer \(value.dropFirst(7).prefix(16))…" : "> \(name): \(value)")
        }
        output.message(lines.joined(separator: "\n"))
    }

    private func showResponse(_ response: H2Response) {
        var lines = ["< :status \(response.status)"]
        for (name, value) in response.headers.fields { lines.append("< \(name): \(value)") }
        if !response.body.isEmpty { lines.append("< " + String(decoding: response.body, as: UTF8.self)) }
        output.message(lines.joined(separator: "\n"))
    }

    private func showProgress(_ state: RunState, total: Int) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            try? FileHandle.standardError.write(contentsOf: Data("\rsent \(state.answered) of \(total)".utf8))
        }
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8))
    }
}

/// The header list of the current provider token, made once and shared by every push.
final class HeaderCache: Sendable {
    private let cached = Mutex<(token: String?, headers: H2HeaderList)?>(nil)

    func headers(for request: APNsPushRequest, token: String?) -> H2HeaderList {
        cached.withLock { cached in
            if let cached, cached.token == token { return cached.headers }
            let headers = H2HeaderList(request.headers(providerToken: token))
            cached = (token, headers)
            return headers
        }
    }
}

/// The run's shared tally: the next push to make, answers printed in push order, counts.
final class RunState: Sendable {
    let next = Atomic<Int>(0)
    private let tally: Mutex<Tally>

    struct Tally {
        var nextToEmit = 0
        var waiting: [Int: PushSender.Outcome] = [:]
        var accepted = 0
        var rejected: [String: Int] = [:]
        var errors: [String] = []
        var latencies: [Int64] = []
    }

    init(total: Int) {
        var tally = Tally()
        tally.latencies.reserveCapacity(total)
        self.tally = Mutex(tally)
    }

    var answered: Int { tally.withLock { $0.latencies.count } }

    /// Records `outcome` and prints every answer now due, in push order.
    func finish(_ index: Int, _ outcome: PushSender.Outcome, emit: (PushSender.Outcome) -> Void) {
        tally.withLock { tally in
            tally.latencies.append(outcome.latency.nanosecondCount)
            switch (outcome.status, outcome.error) {
            case (200?, _): tally.accepted += 1
            case (let status?, _): tally.rejected["\(status) \(outcome.reason ?? "-")", default: 0] += 1
            case (nil, let error): tally.errors.append(error ?? "no answer")
            }
            tally.waiting[index] = outcome
            while let due = tally.waiting.removeValue(forKey: tally.nextToEmit) {
                emit(due)
                tally.nextToEmit += 1
            }
        }
    }

    func summary(elapsed: Duration) -> PushSendSummary {
        tally.withLock { tally in
            PushSendSummary(
                sent: tally.latencies.count, accepted: tally.accepted, rejected: tally.rejected, errors: tally.errors,
                latencies: tally.latencies.sorted(), elapsed: elapsed)
        }
    }
}
