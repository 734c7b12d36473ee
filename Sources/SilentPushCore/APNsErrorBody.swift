/// The JSON APNs puts in an error response's body and in a GOAWAY's debug data:
/// `{"reason":"BadDeviceToken"}`, with `timestamp` (ms) for 410 Unregistered. `detail` is
/// SilentPush's own, human-readable addition to a GOAWAY; Apple sends none.
package struct APNsErrorBody: Sendable, Equatable {
    /// Apple's reason string (`APNsReason.rawValue`, or a GOAWAY's error name).
    package var reason: String
    /// When the device token stopped being valid, ms since the epoch (410 only).
    package var timestamp: Int64?
    /// What happened, in words.
    package var detail: String?

    /// A body.
    package init(reason: String, timestamp: Int64? = nil, detail: String? = nil) {
        self.reason = reason
        self.timestamp = timestamp
        self.detail = detail
    }

    /// The body for a rejection.
    package init(_ rejection: APNsRejection) {
        self.init(reason: rejection.reason.rawValue, timestamp: rejection.timestamp)
    }

    /// Reads a body; nil unless it is a JSON object with a string `reason`. Other members
    /// are ignored.
    package init?(parsing bytes: [UInt8]) {
        let parsed = bytes.withUnsafeBufferPointer { buffer -> (reason: String?, timestamp: Int64?, detail: String?)? in
            var reason: String?
            var timestamp: Int64?
            var detail: String?
            var scanner = JSONScanner(buffer)
            do {
                try scanner.readObject { scanner, key in
                    switch (key, try scanner.peek()) {
                    case ("reason", .string): reason = try scanner.readString()
                    case ("timestamp", .number): timestamp = Int64(try scanner.readNumberText())
                    case ("detail", .string): detail = try scanner.readString()
                    default: break
                    }
                }
                try scanner.expectEnd()
            } catch {
                return nil
            }
            return (reason, timestamp, detail)
        }
        guard let parsed, let reason = parsed.reason else { return nil }
        self.init(reason: reason, timestamp: parsed.timestamp, detail: parsed.detail)
    }

    /// The JSON text: members in the order APNs sends them.
    package var json: String {
        var text = #"{"reason":"#
        JSONString.append(reason, to: &text)
        if let timestamp { text += #","timestamp":"# + String(timestamp) }
        if let detail, !detail.isEmpty {
            text += #","detail":"#
            JSONString.append(detail, to: &text)
        }
        return text + "}"
    }

    /// The JSON as UTF-8 bytes.
    package var bytes: [UInt8] { Array(json.utf8) }
}
