/// Why ActivityKit cannot use a Live Activity payload that APNs accepted. The raw value is
/// the text the push's fate carries.
///
/// Apple states what each event needs ("Starting and updating Live Activities with
/// ActivityKit push notifications") but not what happens without it; that the device
/// drops the push, rather than APNs refusing it, is *assumed*.
public enum LiveActivityPayloadProblem: String, Error, Sendable, CaseIterable {
    case noAps = "no aps dictionary"
    case missingEvent = "no aps.event"
    case unknownEvent = "aps.event is not start, update or end"
    case missingTimestamp = "no aps.timestamp"
    case badTimestamp = "aps.timestamp is not a number of seconds since 1970 (milliseconds?)"
    case missingContentState = "no aps.content-state"
    case badContentState = "aps.content-state is not a dictionary"
    case missingAttributesType = "a start without aps.attributes-type"
    case missingAttributes = "a start without an aps.attributes dictionary"
    case missingAlert = "a start without aps.alert"
    case bothInputs = "a start with both input-push-token and input-push-channel (an activity has one push type)"
    case badStaleDate = "aps.stale-date is not a number of seconds since 1970"
    case badDismissalDate = "aps.dismissal-date is not a number of seconds since 1970"
    case badRelevanceScore = "aps.relevance-score is not a number"
    case badInputPushChannel = "aps.input-push-channel is not a channel id"
}
