import Foundation
import Logging
import SilentPushCore

/// `--log-format json`: one JSON object per log line, for a log pipeline: `time` (RFC 3339,
/// UTC, milliseconds), `level`, `label`, `message`, `source`, then the metadata under the
/// same dotted keys as the text format (`push.apns_id`, `device.token`, …). A key of the
/// event's own wins over the handler's.
package struct JSONLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler writing each line to standard error.
    package static func standardError(label: String) -> JSONLogHandler {
        JSONLogHandler(label: label) { line in try? FileHandle.standardError.write(contentsOf: Data(line.utf8)) }
    }

    /// A handler passing each line (with its line break) to `write`.
    package init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let own = event.metadata { fields.merge(own) { $1 } }
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        var line = "{\"time\":" + JSONString.quoted(ISO8601Timestamp.string(millisecondsSinceEpoch: milliseconds))
        line += ",\"level\":" + JSONString.quoted(event.level.rawValue)
        line += ",\"label\":" + JSONString.quoted(label)
        line += ",\"message\":" + JSONString.quoted("\(event.message)")
        line += ",\"source\":" + JSONString.quoted(event.source)
        for key in fields.keys.sorted() where !["time", "level", "label", "message", "source"].contains(key) {
            line += "," + JSONString.quoted(key) + ":" + Self.json(fields[key]!)
        }
        write(line + "}\n")
    }

    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): JSONString.quoted(text)
        case .stringConvertible(let value): JSONString.quoted(value.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let fields):
            "{" + fields.keys.sorted().map { JSONString.quoted($0) + ":" + json(fields[$0]!) }.joined(separator: ",") + "}"
        }
    }
}
