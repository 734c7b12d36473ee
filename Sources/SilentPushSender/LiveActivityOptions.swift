import ArgumentParser
import Foundation
import SilentPushCore

/// `pushsend send`'s Live Activity options: with `--event`, the payload is made from them
/// (`{"aps":{"timestamp", "event", "content-state", …}}`), checked as ActivityKit reads it.
package struct LiveActivityOptions: ParsableArguments, Sendable {
    @Option(help: "A Live Activity push: start, update or end (the payload is made from these options).")
    package var event: String?

    @Option(
        parsing: .unconditional, help: "aps.timestamp, seconds since 1970 (default: now).",
        transform: { try PushSendOptions.wholeNumber($0, expected: "seconds since 1970") })
    package var timestamp: Int64?

    @Option(
        name: .customLong("content-state"),
        help: ArgumentHelp(
            "aps.content-state: a JSON file (default: {}; an end sends none unless given, keeping what the activity shows).", valueName: "file"))
    package var contentState: String?

    @Option(name: .customLong("attributes-type"), help: "A start's aps.attributes-type: the ActivityAttributes type's name.")
    package var attributesType: String?

    @Option(help: ArgumentHelp("A start's aps.attributes: a JSON file (default: {}).", valueName: "file"))
    package var attributes: String?

    @Option(help: "aps.alert title (a start's default: the attributes type; an update or end has none unless given).")
    package var alert: String?

    @Option(
        name: .customLong("stale-date"), parsing: .unconditional, help: "aps.stale-date, seconds since 1970.",
        transform: { try PushSendOptions.wholeNumber($0, expected: "seconds since 1970") })
    package var staleDate: Int64?

    @Option(
        name: .customLong("dismissal-date"), parsing: .unconditional, help: "aps.dismissal-date, seconds since 1970 (an end's).",
        transform: { try PushSendOptions.wholeNumber($0, expected: "seconds since 1970") })
    package var dismissalDate: Int64?

    @Flag(name: .customLong("input-push-token"), help: "A start asks for the new activity's update token (input-push-token: 1).")
    package var inputPushToken = false

    @Option(name: .customLong("input-push-channel"), help: "A start subscribes the new activity to this channel.")
    package var inputPushChannel: String?

    package init() {}

    /// The payload, when `--event` is given; nil otherwise. `now` is seconds since 1970.
    package func payload(now: Int64 = Int64(Date().timeIntervalSince1970)) throws -> [UInt8]? {
        guard let event else {
            let given =
                [timestamp != nil, contentState != nil, attributesType != nil, attributes != nil, alert != nil, staleDate != nil]
                + [dismissalDate != nil, inputPushToken, inputPushChannel != nil]
            if given.contains(true) { throw PushSendError.missingOption(need: "--event start|update|end with the Live Activity options") }
            return nil
        }
        guard let kind = LiveActivityPayload.Event(rawValue: event) else {
            throw PushSendError.invalidValue(option: "--event", value: "'\(event)'", expected: "start, update or end")
        }
        for (option, value) in [("--timestamp", timestamp), ("--stale-date", staleDate), ("--dismissal-date", dismissalDate)] {
            if let value, !(0...NumericDate.latestSeconds).contains(value) {
                throw PushSendError.invalidValue(option: option, value: "\(value)", expected: "seconds since 1970 (up to 9999)")
            }
        }
        if kind != .start {
            let startOnly = [
                ("--attributes-type", attributesType != nil), ("--attributes", attributes != nil),
                ("--input-push-token", inputPushToken), ("--input-push-channel", inputPushChannel != nil),
            ]
            if let (option, _) = startOnly.first(where: { $0.1 }) {
                throw PushSendError.conflictingOptions("\(option) goes with --event start, not \(kind.rawValue)")
            }
        }
        // ActivityKit reads a dismissal date only from an end (Apple documents it there alone).
        if kind != .end, dismissalDate != nil {
            throw PushSendError.conflictingOptions("--dismissal-date goes with --event end, not \(kind.rawValue)")
        }
        var aps = "{\"timestamp\":\(timestamp ?? now),\"event\":\"\(kind.rawValue)\""
        // An end without one keeps the content the activity shows; a start or update needs one.
        if kind != .end || contentState != nil {
            aps += ",\"content-state\":" + (try Self.object(file: contentState, option: "--content-state"))
        }
        if kind == .start {
            guard let type = attributesType, !type.isEmpty else {
                throw PushSendError.missingOption(need: "--attributes-type (the ActivityAttributes type's name) for a start")
            }
            var text = ""
            JSONString.append(type, to: &text)
            aps += ",\"attributes-type\":" + text + ",\"attributes\":" + (try Self.object(file: attributes, option: "--attributes"))
            var title = ""
            JSONString.append(alert ?? type, to: &title)
            aps += ",\"alert\":{\"title\":" + title + "}"
            if inputPushToken { aps += ",\"input-push-token\":1" }
            if let inputPushChannel {
                guard ChannelID(header: inputPushChannel) != nil else {
                    throw PushSendError.invalidValue(
                        option: "--input-push-channel", value: "'\(inputPushChannel)'", expected: "a channel id (base64, as apns-channel-id)")
                }
                aps += ",\"input-push-channel\":\"\(inputPushChannel)\""
            }
        } else if let alert {
            // An update or end may light the screen with an alert too.
            var title = ""
            JSONString.append(alert, to: &title)
            aps += ",\"alert\":{\"title\":" + title + "}"
        }
        if let staleDate { aps += ",\"stale-date\":\(staleDate)" }
        if let dismissalDate { aps += ",\"dismissal-date\":\(dismissalDate)" }
        let payload = Array(("{\"aps\":" + aps + "}}").utf8)
        if case .failure(let problem) = LiveActivityPayload.parse(payload) {
            throw PushSendError.refusedPayload(
                problem: "ActivityKit would ignore this push: \(problem.rawValue)", fix: "fix the Live Activity options")
        }
        return payload
    }

    /// A JSON object from `file`, as text; `{}` without one.
    static func object(file: String?, option: String) throws -> String {
        guard let file else { return "{}" }
        let bytes = try PushSendError.read("\(option) file", file, limit: StandardInput.limit)
        let isObject = bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            return (try? scanner.peek()) == .object && (try? scanner.skipValue()) != nil && (try? scanner.expectEnd()) != nil
        }
        guard isObject else { throw PushSendError.invalidValue(option: option, value: "'\(file)'", expected: "a file holding one JSON object") }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
