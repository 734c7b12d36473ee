import Foundation
import Hummingbird
import NIOCore
import SilentPushCore
import SilentPushStore
import Synchronization

/// `GET /v1/pushes` and `GET /v1/wakes` with `Accept: application/x-ndjson` or `text/csv`:
/// every match, newest first, streamed a page at a time, so memory stays bounded however
/// many there are.
extension AdminAPI {
    /// How an export is written.
    package enum ExportFormat: Equatable {
        case ndjson
        case csv

        /// The format `accept` prefers; nil for JSON (a page). Each media range's `q` weighs
        /// it (`q=0`: not acceptable); JSON, and `*/*` or `application/*`, stand for a page,
        /// which wins a tie (an export takes no `limit`: a client that lists a page as
        /// acceptable as an export gets what it can page through).
        package init?(accept: String?) {
            guard let accept else { return nil }
            var best: (format: ExportFormat?, q: Double)?
            for range in accept.split(separator: ",") {
                let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let type = parts.first else { continue }
                let q = min(parts.dropFirst().first { $0.hasPrefix("q=") }.map { Double($0.dropFirst(2)) ?? 0 } ?? 1, 1)
                guard q.isFinite, q > 0 else { continue }
                let format: ExportFormat?
                switch type {
                case "application/x-ndjson": format = .ndjson
                case "text/csv": format = .csv
                case "application/json", "application/problem+json", "*/*", "application/*": format = nil
                default: continue
                }
                if best.map({ q > $0.q || (q == $0.q && format == nil) }) ?? true { best = (format, q) }
            }
            guard let format = best?.format else { return nil }
            self = format
        }

        var contentType: String { self == .ndjson ? "application/x-ndjson" : "text/csv; charset=utf-8" }
    }

    /// Rows read per page while streaming.
    static let exportPage = 1_000

    static let pushColumns = [
        "apnsId", "deviceToken", "topic", "pushType", "priority", "receivedAt", "expiresAt", "collapseId", "fate", "wakeId", "reason", "why",
    ]
    static let wakeColumns = [
        "id", "deviceToken", "topic", "apnsId", "startedAt", "deadline", "finishedAt", "result", "reason", "coalesced", "kind",
    ]

    /// Streams every push `query` matches (its limit is the page size).
    func exportPushes(_ query: PushQuery, as format: ExportFormat) async -> Response {
        // One reader at a time: the stream asks for the next page once the last is written.
        let export = Mutex(PushExport(device.store, query: query))
        let limit = device.settings.apnsStorageLimit
        return await stream(format, columns: Self.pushColumns) {
            var page = export.withLock { $0 }
            let pushes = try await page.next(pageSize: Self.exportPage)
            export.withLock { $0 = page }
            return pushes.map { $0.map { Self.json($0, storageLimit: limit) } }
        }
    }

    /// Streams every wake of `device` and `topic` (of `kind`, and started within `window`, when
    /// given), older than the wake `before` when given (a page's `next`, as the paged list takes it).
    func exportWakes(
        device token: String?, topic: String?, kind: WakeKind?, window: (from: Int64?, until: Int64?), before start: UInt64?, as format: ExportFormat
    ) async -> Response {
        let store = device.store
        // The id of the last wake written (the cursor's at first); finished once the last is written.
        let cursor = Mutex<(before: UInt64?, finished: Bool)>((start, false))
        return await stream(format, columns: Self.wakeColumns) {
            let before = cursor.withLock { $0 }
            guard !before.finished else { return nil }
            let wakes = try await store.wakes(
                deviceToken: token, topic: topic, kind: kind, from: window.from, until: window.until, before: before.before, limit: Self.exportPage)
            cursor.withLock { $0 = (wakes.last?.id, wakes.count < Self.exportPage) }
            let coalesced = try await store.coalescedPushes(wakeIDs: wakes.map(\.id))
            return wakes.map { Self.json($0, coalesced: coalesced[$0.id] ?? []) }
        }
    }

    /// Writes the pages `next` answers, in order, until it answers nil. The first is read
    /// before the status is sent: a store that cannot be read then is a 503 (or 500) problem
    /// document, not a 200 whose stream breaks off.
    private func stream(
        _ format: ExportFormat, columns: [String], next: @escaping @Sendable () async throws -> [JSONValue]?
    ) async -> Response {
        let first: [JSONValue]?
        do {
            first = try await next()
        } catch {
            return Self.storeFailure(error)
        }
        return Response(
            status: .ok, headers: [.contentType: format.contentType],
            body: ResponseBody { writer in
                if format == .csv { try await writer.write(ByteBuffer(string: columns.joined(separator: ",") + "\n")) }
                var page = first
                while let rows = page {
                    var text = ""
                    for row in rows { text += format == .ndjson ? row.rendered + "\n" : Self.csvLine(row, columns: columns) }
                    if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                    page = try await next()
                }
                try await writer.finish(nil)
            })
    }

    /// One CSV line (RFC 4180): each column's value, quoted when it needs to be; objects
    /// (`why`) as their `text`, arrays (`coalesced`) joined with spaces.
    static func csvLine(_ row: JSONValue, columns: [String]) -> String {
        columns.map { column -> String in
            let text: String =
                switch row[column] {
                case nil, .null?: ""
                case .string(let value)?: value
                case .int(let value)?: String(value)
                case .double(let value)?: String(value)
                case .bool(let value)?: value ? "true" : "false"
                case .array(let values)?: values.map { if case .string(let text) = $0 { text } else { $0.rendered } }.joined(separator: " ")
                case .object?: row[column]?["text"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
                case .raw(let value)?: value
                }
            let cell = formulaSafe(text)
            guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
            return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\n"
    }

    /// `text`, with a `'` before it when a spreadsheet would read it as a formula (a first
    /// character `=`, `+`, `-`, `@`, a tab or a carriage return): a collapse id or a
    /// handler's reason comes from outside, and opening the export must not run it.
    static func formulaSafe(_ text: String) -> String {
        guard let first = text.utf8.first, [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D].contains(first)
        else { return text }
        return "'" + text
    }
}
