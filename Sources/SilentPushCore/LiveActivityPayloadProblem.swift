/// Why ActivityKit cannot use a Live Activity payload that APNs accepted. The raw value is
/// the text the push's fate carries.
///
/// Apple states what each event needs ("Starting and updating Live Activities with
/// ActivityKit push notifications") but not what happens without it; that the device
/// drops the push, rather than APNs refusing it, is *assumed*.
public enum LiveActivityPayloadProblem: String, Error, Sendable, CaseIterable {
    /// The payload has no `aps` dictionary (or its `aps` is not one).
    case noAps = "no aps dictionary"
    /// `aps.event` is missing.
    case missingEvent = "no aps.event"
    /// `aps.event` is not `start`, `update` or `end`.
    case unknownEvent = "aps.event is not start, update or end"
    /// `aps.timestamp` is missing.
    case missingTimestamp = "no aps.timestamp"
    /// `aps.timestamp` is not a number of seconds since 1970.
    case badTimestamp = "aps.timestamp is not a number of seconds since 1970 (milliseconds?)"
    /// A start or update has no `aps.content-state`.
    case missingContentState = "no aps.content-state"
    /// `aps.content-state` is not a dictionary.
    case badContentState = "aps.content-state is not a dictionary"
    /// A start has no `aps.attributes-type`.
    case missingAttributesType = "a start without aps.attributes-type"
    /// A start has no `aps.attributes` dictionary.
    case missingAttributes = "a start without an aps.attributes dictionary"
    /// A start has no `aps.alert`.
    case missingAlert = "a start without aps.alert"
    /// A start asks for both an update token and a channel: an activity takes one.
    case bothInputs = "a start with both input-push-token and input-push-channel (an activity has one push type)"
    /// `aps.stale-date` is not a number of seconds since 1970.
    case badStaleDate = "aps.stale-date is not a number of seconds since 1970"
    /// `aps.dismissal-date` is not a number of seconds since 1970.
    case badDismissalDate = "aps.dismissal-date is not a number of seconds since 1970"
    /// `aps.relevance-score` is not a number.
    case badRelevanceScore = "aps.relevance-score is not a number"
    /// `aps.input-push-channel` is not a channel id.
    case badInputPushChannel = "aps.input-push-channel is not a channel id"
}
