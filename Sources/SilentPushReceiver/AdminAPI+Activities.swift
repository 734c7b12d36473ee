import Foundation
import Hummingbird
import NIOCore
import SilentPushCore

/// Live Activities in the admin API: an app's activities with every update decision, and
/// starting one as the app does.
extension AdminAPI {
    func addActivityRoutes(to router: Router<BasicRequestContext>) {
        let activities = "/v1/devices/{token}/apps/{topic}/activities"
        router.get(RouterPath(activities)) { _, context in
            try self.listActivities(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"))
        }
        router.post(RouterPath(activities)) { request, context in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return try await self.startActivity(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"), body: body)
        }
    }

    /// The fields `POST …/activities` takes.
    static let activityFields = ["attributesType", "attributes", "contentState", "channel"]

    /// `{"activities": [...]}`, oldest first.
    private func listActivities(_ token: String, topic: String) -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        do {
            let list = try device.activities(device: token, bundleID: topic)
            return Self.respond(.ok, .object([("activities", .array(try list.map(activityJSON)))]))
        } catch {
            return Self.error(.internalServerError, "store: \(error)")
        }
    }

    /// `{"attributesType", "attributes"?, "contentState"?, "channel"?}` → 201 with the activity.
    private func startActivity(_ token: String, topic: String, body: ByteBuffer) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        var attributesType: String?
        var attributes = "{}"
        var contentState = "{}"
        var channel: ChannelID?
        do {
            for (key, value) in try Self.object(body) {
                switch (key, value) {
                case ("attributesType", .string(let text)) where Self.isName(text, maximumLength: 200): attributesType = text
                case ("attributesType", _):
                    throw AdminError(
                        .unprocessableContent, "attributesType must be the ActivityAttributes type's name (1 to 200 visible ASCII characters)")
                case ("attributes", .object): attributes = value.rendered
                case ("contentState", .object): contentState = value.rendered
                case ("attributes", _), ("contentState", _): throw AdminError(.unprocessableContent, "\(key) must be a JSON object")
                case ("channel", .string(let text)):
                    guard let id = ChannelID(header: text) else {
                        throw AdminError(.unprocessableContent, "channel must be a channel id (base64, as apns-channel-id) or be left out")
                    }
                    channel = id
                case ("channel", .null): channel = nil
                case ("channel", _):
                    throw AdminError(.unprocessableContent, "channel must be a channel id (base64, as apns-channel-id) or be left out")
                default:
                    throw AdminError(.unprocessableContent, "unknown field '\(key)' (fields: \(Self.activityFields.joined(separator: ", ")))")
                }
            }
            guard let attributesType else { throw AdminError(.unprocessableContent, "give attributesType, the ActivityAttributes type's name") }
            let activity = try await device.startActivity(
                device: token, bundleID: topic, attributesType: attributesType, attributes: attributes, contentState: contentState, channel: channel)
            return Self.respond(.created, try activityJSON(activity))
        } catch let error as AdminError {
            return Self.error(error.status, error.message)
        } catch LiveActivityIgnored.unknownChannel {
            return Self.error(
                .unprocessableContent,
                "channel \(channel?.text ?? "") is not a channel of \(topic) in this environment (create it with POST /1/apps/\(topic)/channels)")
        } catch {
            return Self.error(.internalServerError, "store: \(error)")
        }
    }

    /// An activity as the admin API shows it, with every decision about its updates.
    func activityJSON(_ activity: LiveActivity) throws -> JSONValue {
        let updates = try device.activityUpdates(activity.id).map { update -> JSONValue in
            var fields: [(String, JSONValue)] = [
                ("apnsId", .string(update.source)), ("applied", .bool(update.outcome.applied)), ("outcome", .string(update.outcome.name)),
            ]
            switch update.outcome {
            case .applied: break
            case .waiting(let until): fields.append(("until", .string(Self.time(until))))
            case .coalesced(let into): fields.append(("coalescedInto", .string(into)))
            case .ignored(let reason): fields.append(("reason", .string(reason.rawValue)))
            }
            fields += [("why", .string(update.why)), ("at", .string(Self.time(update.at)))]
            return .object(fields)
        }
        return .object([
            ("id", .string(activity.id)), ("pushToken", .string(activity.pushToken)), ("channel", .string(activity.channel?.text)),
            ("state", .string(activity.state.name)),
            ("attributesType", .string(activity.attributesType)), ("attributes", Self.jsonObject(activity.attributes)),
            ("contentState", Self.jsonObject(activity.contentState)), ("staleDate", .string(activity.staleDate.map(Self.time))),
            ("endedAt", .string(activity.endedAt.map(Self.time))), ("dismissalDate", .string(activity.dismissalDate.map(Self.time))),
            ("relevanceScore", activity.relevanceScore.map(JSONValue.double) ?? .null), ("startedAt", .string(Self.time(activity.startedAt))),
            ("updates", .array(updates)),
        ])
    }

    /// A JSON object kept as text, written as it is (an empty object if it is not one).
    static func jsonObject(_ text: String) -> JSONValue {
        let isObject = Array(text.utf8).withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            guard (try? scanner.peek()) == .object, (try? scanner.skipValue()) != nil, (try? scanner.expectEnd()) != nil else { return false }
            return true
        }
        return isObject ? .raw(text) : .object([])
    }
}
