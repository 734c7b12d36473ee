import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import SilentPushCore
import SilentPushNetworking
import SilentPushTransport
import Synchronization

/// Runs each try of a background transfer against its origin, as the system's transfer
/// daemon does: the answer is streamed to a file in `directory` (never held in memory), a try
/// cut off keeps its bytes and the next asks for the rest (`Range` with `If-Range`), and a
/// URL the app was given before is asked for with the origin's validators
/// (`If-None-Match`, `If-Modified-Since`): a 304 hands the app the body kept then.
///
/// An upload (`fromFile`) sends the copy of its file the device took at hand-over
/// (`<id>.upload`, streamed from disk), from its first byte on every try, and keeps the
/// origin's answer as a download's; it asks with no validators and no `Range`.
///
/// Files: `<id>.part` while it arrives (with `<id>.part.validator`, what `If-Range` sends),
/// `<id>` once done (the file the relaunch hands the app), `<id>.upload` an upload's body
/// until it ends, `cache/<key>` the last body of each app's URL that came with validators
/// (a copy each way, never a link: the app owns the file it is handed, and may change it).
package final class TransferClient: Sendable {
    /// Where the files are kept.
    package let directory: String
    private let group: any EventLoopGroup
    /// Made at the first try: a receiver whose apps hand nothing over has none to shut down.
    private let client = Mutex<HTTPClient?>(nil)

    /// How long a try waits to connect, or for the origin's next bytes, before it is cut off
    /// (`TransferPolicy.Settings.requestTimeout`: URLSession's `timeoutIntervalForRequest`).
    package let requestTimeout: Duration
    /// The longest one try may run (`TransferPolicy.Settings.resourceTimeout`): the policy
    /// fails the transfer at its own deadline, which this only backs up in real time.
    private let resourceTimeout: Duration

    /// What the client trusts at https origins (its probe's handshake too).
    private let trust: OriginTrust

    package init(
        group: any EventLoopGroup, directory: String, requestTimeout: Duration = TransferPolicy.Settings().requestTimeout,
        resourceTimeout: Duration = TransferPolicy.Settings().resourceTimeout,
        trust: OriginTrust = .system
    ) {
        self.directory = directory
        self.group = group
        self.requestTimeout = requestTimeout
        self.resourceTimeout = resourceTimeout
        self.trust = trust
    }

    /// Shuts the HTTP client down, if one was made; a later try makes another.
    package func shutdown() async {
        try? await client.withLock { client in
            defer { client = nil }; return client
        }?.shutdown()
    }

    private var httpClient: HTTPClient {
        client.withLock { client in
            if let client { return client }
            let made = HTTPClient(
                eventLoopGroupProvider: .shared(group),
                configuration: HTTPClient.Configuration(
                    tlsConfiguration: trust.configuration,
                    // Followed by `executeFollowingRedirects`, each target checked first.
                    redirectConfiguration: .disallow,
                    timeout: HTTPClient.Configuration.Timeout(
                        connect: TimeAmount(requestTimeout), read: TimeAmount(requestTimeout), write: TimeAmount(requestTimeout)),
                    // One pool for every device, up to 1,024 connections per origin: transfers of
                    // many devices (or many of one app) from one origin do not queue behind
                    // AsyncHTTPClient's 8 per host, where a try waiting past the request timeout
                    // would be cut off unstarted.
                    // A failed connect is tried again until the request timeout, as URLSession's
                    // `timeoutIntervalForRequest` covers the connection too: without retries,
                    // one failed connect would fail every try waiting for that origin.
                    connectionPool: HTTPClient.Configuration.ConnectionPool(
                        idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: Self.connectionsPerOrigin),
                    decompression: .disabled))
            client = made
            return made
        }
    }

    /// Connections open at once to one origin, across every device (*assumed*: enough that a
    /// try never waits for one; the per-app cap of transfers bounds what one app runs).
    static let connectionsPerOrigin = 1024

    /// The file a done transfer's answer is in.
    package func file(of id: UInt64) -> String { directory + "/" + String(id) }

    /// The part a download not done keeps in `directory`: what its next try resumes from.
    package static func part(of id: UInt64, in directory: String) -> String { directory + "/" + String(id) + ".part" }

    /// How many bytes the part of download `id` in `directory` holds; nil when it has none.
    package static func partSize(of id: UInt64, in directory: String) -> Int64? {
        size(of: part(of: id, in: directory))
    }

    /// The size of the file at `path`; nil when there is none.
    static func size(of path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
    }

    /// Deletes what transfer `id` kept (its partial file and validator, or a file a try
    /// stopped as it ended left): it failed or was cancelled, so nothing hands it to the app.
    package func discard(_ id: UInt64) {
        let part = Self.part(of: id, in: directory)
        for path in [part, part + ".validator", file(of: id), file(of: id) + ".copying", uploadFile(of: id)] {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Deletes what the device kept for `transfers`, whose records are gone (forgotten or
    /// pruned): the files of ended ones (a running one's try is stopped first; the device side
    /// discards it then), and the body kept for a later 304 of each URL, unless
    /// `keepsCache` says a record still names it.
    package func forgetFiles(
        of transfers: [TransferRecord], keepsCache: @Sendable (TransferRecord) async -> Bool = { _ in false }
    ) async {
        for transfer in transfers {
            if transfer.finishedAt != nil { discard(transfer.id) }
            if await !keepsCache(transfer) {
                try? FileManager.default.removeItem(atPath: cacheFile(device: transfer.deviceToken, topic: transfer.topic, url: transfer.url))
            }
        }
    }

    /// Deletes the files no record names any more, older than `grace` (a try may be making
    /// one for a record not yet committed): what a crash, or another receiver of a cluster
    /// pruning the records, left. `recorded` says whether transfer `id` has a record;
    /// `validated` lists the apps' URLs whose bodies the cache keeps. Returns how many went.
    package func sweepFiles(
        grace: Duration = .seconds(3600), recorded: (UInt64) async -> Bool, validated: [(deviceToken: String, topic: String, url: String)]
    ) async -> Int {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-Double(grace.nanosecondCount) / 1e9)
        func old(_ path: String) -> Bool {
            ((try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date).map { $0 < cutoff } ?? false
        }
        var removed = 0
        var known: [UInt64: Bool] = [:]
        for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] {
            // `<id>`, `<id>.part`, `<id>.part.validator`, `<id>.upload`, `<id>.copying`.
            guard let id = UInt64(name.prefix { $0.isNumber }), old(directory + "/" + name) else { continue }
            if known[id] == nil { known[id] = await recorded(id) }
            if known[id] == false, (try? manager.removeItem(atPath: directory + "/" + name)) != nil { removed += 1 }
        }
        let kept = Set(validated.map { cacheFile(device: $0.deviceToken, topic: $0.topic, url: $0.url) })
        for name in (try? manager.contentsOfDirectory(atPath: directory + "/cache")) ?? [] {
            let path = directory + "/cache/" + name
            if !kept.contains(path), old(path), (try? manager.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }

    /// The copy of an upload's file that its tries send.
    package func uploadFile(of id: UInt64) -> String { file(of: id) + ".upload" }

    /// Takes the copy of `path` an upload as transfer `id` sends, as the system does when the
    /// task is made (*assumed*: the app may then delete or change its own file). A link is
    /// followed to its file. Throws when that is not a regular file this process can read (a
    /// directory, a device or a FIFO is refused without being opened).
    package func takeUploadCopy(of path: String, for id: UInt64) throws(TransferRefusal) {
        let manager = FileManager.default
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let type = (try? manager.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType, type == .typeRegular,
            manager.isReadableFile(atPath: resolved)
        else { throw .badFile }
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try? manager.removeItem(atPath: uploadFile(of: id))
            try manager.copyItem(atPath: resolved, toPath: uploadFile(of: id))
        } catch {
            // A copy cut short (a full disk) is not left behind.
            try? manager.removeItem(atPath: uploadFile(of: id))
            throw .badFile
        }
    }

    /// What the last try with validators left for `url` of an app: the cache file it would reuse.
    package func cacheFile(device: String, topic: String, url: String) -> String {
        directory + "/cache/" + SHA256Digest.hex(Array("\(device)\n\(topic)\n\(url)".utf8))
    }

    /// How a try ended, and what of the origin's answer crossed the network in it.
    package struct TryOutcome: Sendable, Equatable {
        /// For the transfer's record: its `bytes` is the size of the file so far (the part the
        /// next try resumes from, or the whole answer once done).
        package var end: DeviceRecorder.TransferTryEnd
        /// The answer's bytes this try received (`silentpush_transfer_bytes_total`): only the
        /// rest for a resumed try, none for a 304.
        package var received: Int64
    }

    /// Runs one try of `start` and says how it ended; `validators`: the origin's for the body
    /// an earlier transfer of the URL kept (ask with them). Cancelling the task stops the try,
    /// keeping what arrived (and still says what it received).
    package func run(_ start: DeviceRecorder.TransferStart, validators: (etag: String?, lastModified: String?)?) async -> TryOutcome {
        let part = Self.part(of: start.id, in: directory)
        let validatorFile = part + ".validator"
        let cache = cacheFile(device: start.app.deviceToken, topic: start.app.topic, url: start.request.url)
        let manager = FileManager.default
        var received: Int64 = 0
        func size(of path: String) -> Int64? { Self.size(of: path) }
        // A try cut off reports the part on disk: what the next try resumes from.
        func cutOff(_ error: String) -> TryOutcome {
            TryOutcome(end: .cutOff(error: error, bytes: size(of: part) ?? 0), received: received)
        }
        // What was kept cannot be resumed: the next try starts over.
        func startOver(_ error: String) -> TryOutcome {
            try? manager.removeItem(atPath: part)
            try? manager.removeItem(atPath: validatorFile)
            return cutOff("\(URLUserInfo.masked(start.request.url)) \(error): the next try starts over")
        }
        do {
            try manager.createDirectory(atPath: directory + "/cache", withIntermediateDirectories: true)
        } catch {
            return cutOff("cannot create '\(directory)': \(error.localizedDescription)")
        }
        let upload = start.request.fromFile.map { _ in uploadFile(of: start.id) }
        // An upload starts over on every try: what its answer left is not resumed.
        if upload != nil { try? manager.removeItem(atPath: part) }
        let kept = size(of: part) ?? 0
        let resumeValidator = kept > 0 ? (try? String(contentsOfFile: validatorFile, encoding: .utf8)) : nil

        var request = HTTPClientRequest(url: start.request.url)
        request.method = HTTPMethod(rawValue: start.request.method.rawValue)
        request.headers.add(name: "User-Agent", value: "silentpushd (background transfer)")
        if let resumeValidator, kept > 0 {
            request.headers.add(name: "Range", value: "bytes=\(kept)-")
            request.headers.add(name: "If-Range", value: resumeValidator)
        } else if let validators, start.request.method == .GET, manager.fileExists(atPath: cache) {
            if let etag = validators.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = validators.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        }
        // An upload sends its copy whole, on every try and after every redirect.
        func uploadBody(_ upload: String) -> HTTPClientRequest.Body? {
            size(of: upload).map { .stream(FileChunks(path: upload), length: .known($0)) }
        }
        let noCopy = TryOutcome(end: .cannotComplete(error: "the copy of its file taken at hand-over is not on this receiver"), received: 0)
        // The URL a failure is named by: the redirect hop asked for last.
        var askedURL = start.request.url
        do {
            if let upload {
                guard let body = uploadBody(upload) else { return noCopy }
                request.body = body
            }
            let deadline = NIODeadline.now() + TimeAmount(resourceTimeout)
            // A redirect that keeps an upload's method (a 307 or 308, a PUT's 301 or 302): the
            // device sends its copy again where that says, as URLSession does for an upload
            // from a file, within the same redirect limit.
            let resend: (() throws -> HTTPClientRequest.Body)? = upload.map { upload in
                {
                    guard let body = uploadBody(upload) else { throw UploadCopyGone() }
                    return body
                }
            }
            let response: HTTPClientResponse
            do {
                // An upload goes where each such redirect says, the same URL again too, up to the limit.
                response = try await httpClient.executeFollowingRedirects(
                    request, deadline: deadline, trust: trust, limit: HTTPFetchHandler.redirectLimit, allowingCycles: upload != nil,
                    resend: resend, asking: { askedURL = $0 })
            } catch is UploadCopyGone {
                return noCopy
            }
            let status = Int(response.status.code)
            let etag = response.headers.first(name: "ETag")
            let lastModified = response.headers.first(name: "Last-Modified")
            if status == 304, upload == nil, manager.fileExists(atPath: cache) {
                try? manager.removeItem(atPath: file(of: start.id))
                try Self.copy(cache, to: file(of: start.id))
                // The file is the one kept; no byte of it crossed the network.
                return TryOutcome(
                    end: .completed(
                        bytes: size(of: cache) ?? 0, status: 200, etag: validators?.etag ?? etag,
                        lastModified: validators?.lastModified ?? lastModified),
                    received: 0)
            }
            let resuming = resumeValidator != nil && kept > 0
            let contentRange = response.headers.first(name: "Content-Range").flatMap(Self.ContentRange.init)
            // 416 to a resume: the part kept is the whole body when the origin says its length
            // is that (`bytes */LENGTH`); otherwise the next try starts over.
            var whole = false
            if resuming, status == 416 {
                _ = try? await response.body.collect(upTo: 64 * 1024)
                guard contentRange?.completeLength == kept else { return startOver("cannot resume at byte \(kept) (416)") }
                whole = true
            }
            // 206: the rest of what was kept, from where it was kept; anything else starts the file over.
            let appending = whole || (status == 206 && resuming && contentRange?.first == kept)
            // A part this try did not ask for, or from elsewhere: nothing to place it after.
            if status == 206, !appending { return startOver("answered 206 with a range other than asked") }
            if !appending, !manager.createFile(atPath: part, contents: nil) {
                return cutOff("cannot create '\(part)'")
            }
            let base = appending ? kept : 0
            if whole {
                // The validator kept stays: it is the body's.
            } else if let validator = etag ?? lastModified {
                try validator.write(toFile: validatorFile, atomically: true, encoding: .utf8)
            } else {
                try? manager.removeItem(atPath: validatorFile)
            }
            guard let handle = FileHandle(forWritingAtPath: part) else {
                return cutOff("cannot write '\(part)'")
            }
            defer { try? handle.close() }
            try handle.seekToEnd()
            if !whole {
                for try await chunk in response.body {
                    try handle.write(contentsOf: chunk.readableBytesView)
                    received += Int64(chunk.readableBytes)
                }
            }
            try handle.synchronize()
            // A resumed part is the rest of the body: one that stops short of what its
            // Content-Range says, or of the body's length, leaves the file incomplete, and the
            // next try resumes after it; one past them is not the body's, and the file starts over.
            if appending, !whole, let range = contentRange, let rangeEnd = range.end {
                let (have, length) = (base + received, range.completeLength ?? rangeEnd)
                if have > rangeEnd || have > length {
                    return startOver("answered 206 with more bytes than its Content-Range says")
                }
                if have < rangeEnd || have < length {
                    let total = range.completeLength.map(String.init) ?? "*"
                    return cutOff(
                        "\(URLUserInfo.masked(askedURL)) answered 206 with the body to byte \(have) of \(total): the next try asks for the rest"
                    )
                }
            }
            try? manager.removeItem(atPath: file(of: start.id))
            try manager.moveItem(atPath: part, toPath: file(of: start.id))
            try? manager.removeItem(atPath: validatorFile)
            if let upload { try? manager.removeItem(atPath: upload) }
            // A part kept whole has the validator of the answer it came from (the 416 has none).
            let validators = whole ? Self.validators(resumeValidator) : (etag: etag, lastModified: lastModified)
            let finalStatus = appending ? 200 : status
            // The body the origin validated is what a later download of the URL asks about.
            if start.request.method == .GET {
                try? manager.removeItem(atPath: cache)
                if validators.etag != nil || validators.lastModified != nil, (200..<300).contains(finalStatus) {
                    try? Self.copy(file(of: start.id), to: cache)
                }
            }
            return TryOutcome(
                end: .completed(bytes: base + received, status: finalStatus, etag: validators.etag, lastModified: validators.lastModified),
                received: received)
        } catch {
            // What every try would end in fails the transfer, as URLSession ends the task with it.
            if Self.isPermanent(error) {
                return TryOutcome(end: .cannotComplete(error: describe(error, url: askedURL, redirectedFrom: start.request.url)), received: received)
            }
            return cutOff(describe(error, url: askedURL, redirectedFrom: start.request.url))
        }
    }

    /// A kept validator as the two it may be: an entity tag (quoted, or weak `W/`), else a date.
    static func validators(_ kept: String?) -> (etag: String?, lastModified: String?) {
        guard let kept else { return (nil, nil) }
        return kept.hasPrefix("\"") || kept.hasPrefix("W/") ? (kept, nil) : (nil, kept)
    }

    /// A `Content-Range` header: `bytes FIRST-LAST/LENGTH` (a part), or `bytes */LENGTH` (a
    /// 416's: the whole body's length). `LENGTH` may be `*` (unknown).
    package struct ContentRange: Equatable {
        package var first: Int64?
        /// Where the part ends: one past its last byte (nil for `*`).
        package var end: Int64?
        package var completeLength: Int64?

        package init?(_ text: String) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
            let parts = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            let range = parts[0].trimmingCharacters(in: .whitespaces)
            let length = parts[1].trimmingCharacters(in: .whitespaces)
            if range == "*" {
                first = nil
                end = nil
            } else {
                let bounds = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                guard bounds.count == 2, let low = Int64(bounds[0]), let high = Int64(bounds[1]), low >= 0, low <= high, high < .max else {
                    return nil
                }
                first = low
                end = high + 1
            }
            if length == "*" {
                completeLength = nil
            } else {
                guard let total = Int64(length), total >= 0 else { return nil }
                completeLength = total
            }
        }
    }

    /// Copies `source` to `destination` (which must not exist) through a file beside it, so a
    /// copy cut short (a full disk) leaves nothing at `destination`.
    static func copy(_ source: String, to destination: String) throws {
        let copying = destination + ".copying"
        try? FileManager.default.removeItem(atPath: copying)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: copying)
            try FileManager.default.moveItem(atPath: copying, toPath: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: copying)
            throw error
        }
    }

    /// The copy an upload sends was gone when a redirect asked for it again.
    private struct UploadCopyGone: Error {}

    /// Whether `error` is one every try would end in: more than `HTTPFetchHandler.redirectLimit`
    /// redirects, a redirect cycle (`NSURLErrorHTTPTooManyRedirects` on iOS), a redirect to a
    /// URL no connection can use (`NSURLErrorBadURL`), or a server
    /// certificate this host does not trust (`NSURLErrorServerCertificateUntrusted`).
    static func isPermanent(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .redirectLimitReached || error == .redirectCycleDetected }
        if error is UnusableURL { return true }
        return OriginProbe.isRefusedCertificate(error)
    }

    /// A try's error in a line, naming `url`, the URL that failed (the transfer's own, or
    /// the redirect hop asked for last); too many redirects name the one they began from.
    func describe(_ error: any Error, url: String, redirectedFrom original: String? = nil) -> String {
        if let error = error as? HTTPClientError {
            let url = URLUserInfo.masked(url)
            if error == .redirectLimitReached || error == .redirectCycleDetected {
                return "more than \(HTTPFetchHandler.redirectLimit) redirects from \(original.map(URLUserInfo.masked) ?? url)"
            }
            if error == .readTimeout { return "no bytes from \(url) for \(requestTimeout)" }
            if error == .writeTimeout { return "\(url) took no bytes of the upload for \(requestTimeout)" }
            if error == .connectTimeout { return "no connection to \(url) within \(requestTimeout)" }
            if error == .remoteConnectionClosed { return "\(url) closed the connection before the answer ended" }
        }
        // The parser's words ("stream ended at an unexpected time") for the same thing.
        if let error = error as? HTTPParserError, error == .invalidEOFState {
            return "\(URLUserInfo.masked(url)) closed the connection before the answer ended"
        }
        if let words = OriginProbe.certificateWords(error) { return "the server certificate of \(URLUserInfo.masked(url)) " + words }
        if let words = OriginProbe.connectionWords(error) { return "no connection to \(URLUserInfo.masked(url)): " + words }
        // An https body cut by the server's close with no TLS close_notify.
        if case NIOSSLError.uncleanShutdown = error { return "\(URLUserInfo.masked(url)) closed the connection before the answer ended" }
        return "\(error)"
    }
}
