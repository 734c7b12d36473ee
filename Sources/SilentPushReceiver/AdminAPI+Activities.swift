import Foundation
import Hummingbird
import NIOCore
import SilentPushCore

/// Live Activities in the admin API: an app's activities with every update decision,
/// starting one as the app does, and every device's activities and broadcasts (the timeline's).
extension AdminAPI {
    func addActivityRoutes(to router: Router<BasicRequestContext>) {
        router.getWithHead("/v1/activities") { request, _ in await self.allActivities(request.uri.queryParameters) }
        router.getWithHead("/v1/broadcasts") { request, _ in await self.broadcasts(request.uri.queryParameters) }
        let activities = "/v1/devices/{token}/apps/{topic}/activities"
        router.getWithHead(RouterPath(activities)) { _, context in
            try await self.listActivities(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"))
        }
        router.post(RouterPath(activities)) { request, context in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return try await self.startActivity(Self.parameter(context, "token"), topic: Self.parameter(context, "topic"), body: body)
        }
    }

    /// The fields `POST …/activities` takes.
    static let activityFields = ["attributesType", "attributes", "contentState", "channel"]

    /// `{"activities": [...]}`, oldest first.
    private func listActivities(_ token: String, topic: String) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        do {
            let list = try await device.activities(device: token, bundleID: topic)
            return Self.respond(.ok, .object([("activities", .array(try await activitiesJSON(list)))]))
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// `GET /v1/activities?device=&bundleId=&limit=`: the newest activities of every device
    /// (or one device, one app), oldest first, each with every decision about its updates.
    private func allActivities(_ query: Parameters) async -> Response {
        await Self.answering {
            let filter = try Self.filter(query)
            let list = try await device.activities(device: filter.device, bundleID: try Self.bundleID(query), limit: filter.limit)
            return .object([("activities", .array(try await activitiesJSON(list)))])
        }
    }

    /// `GET /v1/broadcasts?bundleId=&limit=`: the broadcasts accepted in the receiver's
    /// environment, newest first.
    private func broadcasts(_ query: Parameters) async -> Response {
        await Self.answering {
            let filter = try Self.filter(query)
            let list = try await endpoint.channels?.broadcasts(bundleID: try Self.bundleID(query), limit: filter.limit) ?? []
            return .object([("broadcasts", .array(list.map(Self.json)))])
        }
    }

    /// `?bundleId=`, checked.
    static func bundleID(_ query: Parameters) throws -> String? {
        guard let text = query.get("bundleId") else { return nil }
        guard isTopic(text) else { throw AdminError(.unprocessableContent, "bundleId must be an app's bundle id") }
        return text
    }

    static func json(_ broadcast: BroadcastRecord) -> JSONValue {
        .object([
            ("requestId", .string(broadcast.requestID)), ("uniqueId", .string(broadcast.uniqueID)), ("bundleId", .string(broadcast.bundleID)),
            ("channel", .string(broadcast.channelID.text)), ("priority", .int(Int64(broadcast.priority.rawValue))),
            ("expiration", .int(broadcast.expiration)), ("receivedAt", .string(time(broadcast.receivedAt))),
            ("payload", .string(String(validating: broadcast.payload, as: UTF8.self))),
            // Why it reached no activity, when ActivityKit cannot read it or no device takes
            // it (a start): the same words a push to a token gets in its fate.
            ("ignored", .string(ignoredWords(broadcast.payload))),
        ])
    }

    /// Why a broadcast of `payload` reached no activity, as a push's fate says it; nil when
    /// each activity decided.
    static func ignoredWords(_ payload: [UInt8]) -> String? {
        switch LiveActivityPayload.parse(payload) {
        case .failure(let problem): DropReason.liveActivityPayload(problem).description
        case .success(let parsed): LiveActivityPolicy.ignores(broadcast: parsed).map { DropReason.liveActivity($0).description }
        }
    }

    /// Activities as the admin API shows them, their update decisions read in one go.
    func activitiesJSON(_ activities: [LiveActivity]) async throws -> [JSONValue] {
        let updates = try await device.activityUpdates(of: activities.map(\.id))
        return activities.map { activityJSON($0, updates: updates[$0.id] ?? []) }
    }

    /// `{"attributesType", "attributes"?, "contentState"?, "channel"?}` → 201 with the activity.
    private func startActivity(_ token: String, topic: String, body: ByteBuffer) async -> Response {
        guard let token = Self.deviceToken(token) else { return Self.badDeviceToken }
        guard Self.isTopic(topic) else { return Self.badTopic }
        // An app starts its activities under its bundle id: a channel's bundle id has no suffix.
        guard APNsPushType.alert.accepts(topic: topic) else {
            return Self.error(
                .unprocessableContent, "\(topic) is a push type's topic: start the activity under the app's bundle id (without .push-type.…)")
        }
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
            return Self.respond(.created, activityJSON(activity, updates: try await device.activityUpdates(activity.id)))
        } catch let error as AdminError {
            return Self.error(error.status, error.message)
        } catch let refusal as AppNotInstalled {
            return Self.error(.conflict, refusal.description)
        } catch LiveActivityIgnored.unknownChannel {
            return Self.error(
                .unprocessableContent,
                "channel \(channel?.text ?? "") is not a channel of \(topic) in this environment (create it with POST /1/apps/\(topic)/channels)")
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// An activity as the admin API shows it, with every decision about its updates.
    func activityJSON(_ activity: LiveActivity, updates: [LiveActivityUpdate]) -> JSONValue {
        let updates = updates.map { update -> JSONValue in
            var fields: [(String, JSONValue)] = [
                ("apnsId", .string(update.source)), ("applied", .bool(update.outcome.applied)), ("outcome", .string(update.outcome.name)),
            ]
            switch update.outcome {
            case .applied: break
            case .waiting: fields.append(("until", .string(update.outcome.showsAt.map(Self.time))))
            case .coalesced(let into): fields.append(("coalescedInto", .string(into)))
            case .ignored(let reason): fields.append(("reason", .string(reason.rawValue)))
            }
            fields += [("why", .string(update.why)), ("at", .string(Self.time(update.at)))]
            return .object(fields)
        }
        return .object([
            ("id", .string(activity.id)), ("deviceToken", .string(activity.app.device)), ("bundleId", .string(activity.app.bundleID)),
            ("pushToken", .string(activity.pushToken)), ("channel", .string(activity.channel?.text)),
            ("state", .string(activity.state.name)),
            // Why it is as it is (empty for a record from before the receiver kept it).
            ("why", .string(activity.why)),
            ("attributesType", .string(activity.attributesType)), ("attributes", Self.jsonObject(activity.attributes)),
            ("contentState", Self.jsonObject(activity.contentState)), ("staleDate", .string(activity.staleDate.map(Self.time))),
            ("endedAt", .string(activity.endedAt.map(Self.time))), ("dismissalDate", .string(activity.dismissalDate.map(Self.time))),
            ("relevanceScore", activity.relevanceScore.map(JSONValue.double) ?? .null), ("startedAt", .string(Self.time(activity.startedAt))),
            // When the system ends it (`--activity-max-active` after its start), while it has not ended.
            (
                "activeUntil",
                .string(
                    activity.state.isOver
                        ? nil : Self.time(device.runtime.inspect { $0.activities.settings.activeUntil(startedAt: activity.startedAt) }))
            ),
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
