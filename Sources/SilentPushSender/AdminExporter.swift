import AsyncHTTPClient
import Foundation
import NIOCore
import SilentPushCore
import SilentPushNetworking
import SilentPushTransport

/// `pushsend export`: streams every push or wake a receiver recorded from its admin API
/// (`GET /v1/pushes` or `/v1/wakes` with `Accept: application/x-ndjson` or `text/csv`),
/// chunk by chunk as they arrive, so memory stays bounded however many there are.
package struct AdminExporter: Sendable {
    /// Which records.
    package enum Records: String, Sendable, CaseIterable {
        case pushes
        case wakes
    }

    /// How they are written.
    package enum Format: String, Sendable, CaseIterable {
        case ndjson
        case csv

        var accept: String { self == .ndjson ? "application/x-ndjson" : "text/csv" }
    }

    /// Why an export stopped: one line that says what to fix.
    package enum Failure: Error, CustomStringConvertible, Equatable {
        /// The admin API refused the request (its status and `detail`).
        case refused(status: Int, detail: String)
        /// It cannot be reached.
        case unreachable(url: String, problem: String)
        /// It was reached but had not answered `what` after `seconds`.
        case noAnswer(url: String, what: String, seconds: Int)

        /// A refusal from its answer: the problem document's `detail`, else the body's first
        /// line (what answered may not be the admin API: an HTML page, a megabyte of text). A
        /// redirect, which is not followed, names where it points instead.
        static func refused(status: Int, body: ByteBuffer, location: String? = nil, asked url: String? = nil) -> Failure {
            if (300..<400).contains(status), let location {
                let target = url.flatMap { URL(string: location, relativeTo: URL(string: $0))?.absoluteURL.absoluteString } ?? location
                return .refused(
                    status: status,
                    detail:
                        "it redirects to \(oneLine(URLUserInfo.masked(target))), and pushsend follows no redirect: give --admin the receiver's own address"
                )
            }
            let problem = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
            return .refused(status: status, detail: oneLine(problem?["detail"] as? String ?? String(buffer: body)))
        }

        /// `text`'s first line that is not blank, at most 200 characters, control characters
        /// shown as `?`: a failure is one line.
        package static func oneLine(_ text: String) -> String {
            let line = text.split(whereSeparator: \.isNewline).lazy.map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? ""
            let shown = String(line.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
            let lines = text.split(whereSeparator: \.isNewline).count(where: { !$0.allSatisfy(\.isWhitespace) })
            guard shown.count > 200 || lines > 1 else { return shown }
            return String(shown.prefix(200)) + " …"
        }

        package var description: String {
            switch self {
            case .refused(let status, let detail): "the admin API answered \(status): \(detail)"
            case .unreachable(let url, let problem):
                "cannot reach the admin API at \(URLUserInfo.masked(url)): \(problem) (is silentpushd running? check --admin)"
            case .noAnswer(let url, let what, let seconds):
                "the admin API at \(URLUserInfo.masked(url)) had not answered \(what) after \(seconds) s (a busy receiver? it may still be working on it)"
            }
        }
    }

    package var admin: String
    package var records: Records
    package var format: Format
    /// Query parameters: device, topic, from, until, and fate (pushes only).
    package var filters: [(name: String, value: String)]
    package var token: String?
    /// How long the admin API may take to start its answer (the rows then stream for as long
    /// as they take).
    package var headTimeout: TimeAmount = .seconds(30)

    package init(admin: String, records: Records, format: Format, filters: [(name: String, value: String)], token: String?) {
        self.admin = admin
        self.records = records
        self.format = format
        self.filters = filters
        self.token = token
    }

    /// The URL asked for.
    package var url: String {
        var components = URLComponents(string: admin.hasSuffix("/") ? String(admin.dropLast()) : admin) ?? URLComponents()
        components.path += "/v1/\(records.rawValue)"
        if !filters.isEmpty { components.queryItems = filters.map { URLQueryItem(name: $0.name, value: $0.value) } }
        return components.string ?? admin
    }

    /// Streams the export into `write` a chunk at a time; returns the bytes written.
    package func run(write: (Data) throws -> Void) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "accept", value: format.accept)
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        let response: HTTPClientResponse
        do {
            response = try await Self.execute(request, timeout: headTimeout)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw Failure.noAnswer(url: admin, what: "GET /v1/\(records.rawValue)", seconds: Int(headTimeout.nanoseconds / 1_000_000_000))
        } catch {
            throw Failure.unreachable(url: url, problem: Self.problem(error))
        }
        guard response.status == .ok else {
            throw Failure.refused(
                status: Int(response.status.code), body: (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer(),
                location: response.headers.first(name: "Location"), asked: url)
        }
        var written = 0
        for try await chunk in response.body {
            try write(Data(chunk.readableBytesView))
            written += chunk.readableBytes
        }
        return written
    }

    /// The client of admin API reads: `HTTPClient.shared`'s settings, but a redirect is an
    /// answer, not followed (the admin API sends none, and a target's port is not checked
    /// before AsyncHTTPClient uses it).
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// `execute(_:timeout:)` on the admin client, ended at once by `ConnectionFailure.Unreachable`
    /// when nobody listens at the request's address: AsyncHTTPClient alone retries a refused
    /// connect until the timeout, which would take 30 s to say that no receiver is running.
    static func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        let client = Self.client
        guard let origin = ConnectionFailure.Origin(url: request.url) else { return try await client.execute(request, timeout: timeout) }
        return try await ConnectionFailure.failingFast(to: origin, on: client.eventLoopGroup) { try await client.execute(request, timeout: timeout) }
    }
}
