import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SilentPushCore
import SilentPushNetworking
import SilentPushStore
import SilentPushTransport

/// `--fetch-url TEMPLATE`: a content fetch. Each wake GETs the templated URL with
/// `If-None-Match` / `If-Modified-Since` from the last stored version. A 2xx with a body
/// different from the stored one is kept (a file named by its SHA-256 beside the store,
/// metadata in SQLite) and is `newData`; 304 or the same body is `noData`; other statuses,
/// network errors, too many redirects and bodies over the cap are `failed`, with the reason.
/// Cancellation at the deadline cancels the request.
///
/// A body that is a JSON object with a `"transfers"` array hands each member to a background
/// session (a manifest of what to download in the background), as a task's answer may
/// beside `"success"`. A relaunch for a session's events (task kind `urlSession`) is POSTed
/// with `session` and `files`; a file the handler does not move away is deleted.
public struct HTTPFetchHandler: FetchHandler {
    /// The URL template.
    public let template: FetchURLTemplate
    /// The largest body kept; a bigger one fails the fetch.
    public let bodyLimit: Int
    let client: HTTPClient
    let store: PushStore
    /// What the client trusts: its origin probe's handshake trusts the same.
    let trust: OriginTrust

    /// Redirects followed before a fetch fails.
    public static let redirectLimit = 5

    init(template: FetchURLTemplate, bodyLimit: Int, client: HTTPClient, store: PushStore, trust: OriginTrust = .system) {
        self.template = template
        self.bodyLimit = bodyLimit
        self.client = client
        self.store = store
        self.trust = trust
    }

    /// The client every HTTP fetch handler of a receiver shares, trusting `trust`.
    static func makeClient(group: any EventLoopGroup, trust: OriginTrust = .system) -> HTTPClient {
        HTTPClient(
            eventLoopGroupProvider: .shared(group),
            configuration: HTTPClient.Configuration(
                tlsConfiguration: trust.configuration,
                // Followed by `executeFollowingRedirects`, each target checked first.
                redirectConfiguration: .disallow,
                // A failed connect is retried until this timeout (AsyncHTTPClient's default):
                // without retries, one failed connect would fail every fetch queued behind the
                // pool's 8 connections to the host. `executeFailingFast` probes an origin slow
                // to answer, so one nobody listens on fails at once.
                timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10)),
                decompression: .disabled))
    }

    /// A wake: a conditional GET of the templated URL, its answer judged as above.
    public func fetch(_ wake: Wake) async -> FetchResult {
        let url: String
        do {
            let payload = try wake.payload.withUnsafeBufferPointer { bytes throws(APNsReason) in try APNsPayload.parse(bytes) }
            url = try template.expand(token: wake.deviceToken, topic: wake.topic, payload: payload)
        } catch {
            return .failed(reason: "\(error)")
        }
        let previous = try? await store.content(deviceToken: wake.deviceToken, topic: wake.topic, url: url)
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "silentpushd")
        if let etag = previous?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = previous?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        // The URL a failure is named by: the redirect hop asked for last.
        var askedURL = url
        do {
            // The wake's deadline cancels the task, and with it the request; this limit only
            // backs that up.
            let response = try await client.executeFollowingRedirects(
                request, deadline: .now() + .seconds(min(max(1, wake.timeLimit.components.seconds + 5), 86_400 * 365)), trust: trust,
                limit: Self.redirectLimit, asking: { askedURL = $0 })
            switch response.status.code {
            case 304:
                try await remember(previous, fetchedAt: wake.startedAt.millisecondsSinceEpoch)
                return .noData
            case 200..<300:
                let body: ByteBuffer
                do {
                    body = try await response.body.collect(upTo: bodyLimit)
                } catch is NIOTooManyBytesError {
                    return .failed(reason: "the body is over \(bodyLimit) bytes")
                }
                Self.handOverTransfers(in: body, to: FetchContext.current)
                return try await keep(Array(buffer: body), of: response, url: url, wake: wake, previous: previous)
            default:
                return .failed(reason: "HTTP \(response.status.code) from \(Self.named(url, askedURL))")
            }
        } catch {
            if Task.isCancelled { return .deadlineExceeded }
            if let error = error as? HTTPClientError, error == .redirectLimitReached || error == .redirectCycleDetected {
                return .failed(reason: "more than \(Self.redirectLimit) redirects from \(URLUserInfo.masked(url))")
            }
            let reason =
                OriginProbe.certificateWords(error).map { "the server certificate " + $0 } ?? OriginProbe.connectionWords(error) ?? "\(error)"
            return .failed(reason: "GET \(Self.named(url, askedURL)): " + reason)
        }
    }

    /// `url` masked, and the redirect hop `asked` last when it is another.
    static func named(_ url: String, _ asked: String) -> String {
        URLUserInfo.masked(url) + (asked == url ? "" : " (redirected to \(URLUserInfo.masked(asked)))")
    }

    /// A background task: POSTs the run's JSON to the template (`{token}` and `{topic}` filled
    /// in, a payload key left empty: a run has no payload); a 2xx answer `{"success": true|false}` completes it. Expiry cancels the request
    /// and completes the run unsuccessfully, as an expiration handler that cancels its work
    /// does; anything else answered completes it unsuccessfully.
    public func runTask(_ task: BackgroundTask) async {
        // Expiry cancels the request; the catch below then completes the run unsuccessfully.
        task.expirationHandler = {}
        let url = template.expand(token: task.deviceToken, topic: task.topic)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: "silentpushd")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: task.json.rendered))
        do {
            let limit = task.deadline.map { min(max(1, task.startedAt.duration(to: $0).components.seconds + 5), 86_400) } ?? 86_400
            let response = try await client.executeFollowingRedirects(
                request, deadline: .now() + .seconds(limit), trust: trust, limit: Self.redirectLimit)
            let body = try await response.body.collect(upTo: 64 * 1024)
            if (200..<300).contains(response.status.code) { Self.handOverTransfers(in: body, to: task.context) }
            guard (200..<300).contains(response.status.code),
                case .object(let fields)? = try? JSONValue.parse(body.readableBytesView),
                case .bool(let success)? = fields.first(where: { $0.0 == "success" })?.1
            else { return task.setTaskCompleted(success: false) }
            task.setTaskCompleted(success: success)
        } catch {
            task.setTaskCompleted(success: false)
        }
    }

    /// Hands over the members of a JSON object body's `"transfers"` array, if it has one, each
    /// as written: the device reads and refuses each one on its own (a field given twice is
    /// that transfer's refusal), and the rest of the body is the origin's content, which is
    /// only checked to be JSON.
    static func handOverTransfers(in body: ByteBuffer, to context: FetchContext?) {
        guard let context, body.readableBytesView.first(where: { $0 > 0x20 }) == UInt8(ascii: "{") else { return }
        let bytes = Array(body.readableBytesView)
        var notAnArray = false
        let transfers: [String]? = bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            var transfers: [String] = []
            do {
                try scanner.readObject { scanner, key in
                    guard key == "transfers" else { return try scanner.skipValue() }
                    guard try scanner.peek() == .array else {
                        notAnArray = true
                        return try scanner.skipValue()
                    }
                    try scanner.readArray { transfers.append(try $0.readRawValue()) }
                }
                try scanner.expectEnd()
                return transfers
            } catch {
                return nil
            }
        }
        guard let transfers else { return }
        if notAnArray { context.refuseTransfersNotAnArray() }
        context.startBackgroundTransfers(transfers)
    }

    private func keep(_ body: [UInt8], of response: HTTPClientResponse, url: String, wake: Wake, previous: ContentRecord?) async throws -> FetchResult
    {
        let sha256 = SHA256Digest.hex(body)
        let changed = previous?.sha256 != sha256
        if changed { try await store.saveContent(body, sha256: sha256) }
        try await store.write([
            .setContent(
                ContentRecord(
                    deviceToken: wake.deviceToken, topic: wake.topic, url: url,
                    etag: response.headers.first(name: "ETag"), lastModified: response.headers.first(name: "Last-Modified"),
                    contentType: response.headers.first(name: "Content-Type"), sha256: sha256, size: body.count,
                    fetchedAt: wake.startedAt.millisecondsSinceEpoch,
                    changedAt: changed ? wake.startedAt.millisecondsSinceEpoch : previous?.changedAt ?? wake.startedAt.millisecondsSinceEpoch))
        ])
        // The body this URL had is kept only while another row names it.
        if changed, let old = previous?.sha256 { store.contentSuperseded(sha256: old) }
        return changed ? .newData : .noData
    }

    /// A 304: the stored version is still current.
    private func remember(_ previous: ContentRecord?, fetchedAt: Int64) async throws {
        guard var record = previous else { return }
        record.fetchedAt = fetchedAt
        try await store.write([.setContent(record)])
    }
}
