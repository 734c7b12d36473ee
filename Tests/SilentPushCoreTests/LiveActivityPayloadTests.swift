import SilentPushCore
import Testing

/// Live Activity payloads as ActivityKit reads them, and the per-type rules the validator
/// holds `/3/device` pushes to.
@Suite struct LiveActivityPayloadTests {
    /// Apple's start example ("Starting and updating Live Activities with ActivityKit push
    /// notifications"), with `input-push-token`.
    static let start = #"""
        {"aps":{"timestamp":1234,"event":"start","content-state":{"currentHealthLevel":100,"eventDescription":"Adventure has begun!"},
        "attributes-type":"AdventureAttributes","attributes":{"currentHealthLevel":100,"eventDescription":"Adventure has begun!"},
        "alert":{"title":{"loc-key":"%@ is on an adventure!","loc-args":["Power Panda"]},"body":{"loc-key":"%@ found a sword!","loc-args":["Power Panda"]},"sound":"chime.aiff"},
        "input-push-token":1}}
        """#

    static func parse(_ text: String) -> Result<LiveActivityPayload, LiveActivityPayloadProblem> {
        LiveActivityPayload.parse(Array(text.utf8))
    }

    @Test func readsApplesStartExample() throws {
        let payload = try Self.parse(Self.start).get()
        #expect(payload.event == .start)
        #expect(payload.timestamp == DeviceInstant(secondsSinceEpoch: 1234))
        #expect(payload.contentState == #"{"currentHealthLevel":100,"eventDescription":"Adventure has begun!"}"#)
        #expect(payload.attributesType == "AdventureAttributes")
        #expect(payload.hasAlert)
        #expect(payload.inputPushToken)
        #expect(payload.inputPushChannel == nil)
    }

    @Test func readsAnUpdateAndAnEndWithTheirDates() throws {
        let update = try Self.parse(
            #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"a":1},"stale-date":1685955600,"relevance-score":75}}"#
        ).get()
        #expect(update.event == .update)
        #expect(update.staleDate == DeviceInstant(secondsSinceEpoch: 1_685_955_600))
        #expect(update.relevanceScore == 75)
        let end = try Self.parse(#"{"aps":{"timestamp":1685952000,"event":"end","dismissal-date":1663177260}}"#).get()
        #expect(end.event == .end)
        #expect(end.contentState == nil, "an end may keep the content it shows")
        #expect(end.dismissalDate == DeviceInstant(secondsSinceEpoch: 1_663_177_260))
        let channel = try Self.parse(
            #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A","attributes":{},"alert":"x","input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#
        ).get()
        #expect(channel.inputPushChannel == ChannelID(header: "dHN0LXNyY2gtY2hubA=="))
    }

    @Test(arguments: [
        (#"{"x":1}"#, LiveActivityPayloadProblem.noAps),
        (#"{"aps":[]}"#, .noAps),
        (#"{"aps":{"timestamp":1,"content-state":{}}}"#, .missingEvent),
        (#"{"aps":{"timestamp":1,"event":"pause","content-state":{}}}"#, .unknownEvent),
        (#"{"aps":{"timestamp":1,"event":1,"content-state":{}}}"#, .unknownEvent),
        (#"{"aps":{"event":"update","content-state":{}}}"#, .missingTimestamp),
        (#"{"aps":{"timestamp":"1","event":"update","content-state":{}}}"#, .badTimestamp),
        (#"{"aps":{"timestamp":1685952000000,"event":"update","content-state":{}}}"#, .badTimestamp),
        (#"{"aps":{"timestamp":-1,"event":"update","content-state":{}}}"#, .badTimestamp),
        // Past 2262-04-11, the last instant a device clock holds: later ones would read as it.
        (#"{"aps":{"timestamp":9223372037,"event":"update","content-state":{}}}"#, .badTimestamp),
        (#"{"aps":{"timestamp":1,"event":"update","content-state":{},"stale-date":9999999999}}"#, .badStaleDate),
        (#"{"aps":{"timestamp":1,"event":"update"}}"#, .missingContentState),
        (#"{"aps":{"timestamp":1,"event":"update","content-state":"x"}}"#, .badContentState),
        (#"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes":{},"alert":"x"}}"#, .missingAttributesType),
        (#"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A","alert":"x"}}"#, .missingAttributes),
        (#"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A","attributes":{}}}"#, .missingAlert),
        (
            #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A","attributes":{},"alert":"x","input-push-token":1,"input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#,
            .bothInputs
        ),
        (#"{"aps":{"timestamp":1,"event":"update","content-state":{},"stale-date":"soon"}}"#, .badStaleDate),
        (#"{"aps":{"timestamp":1,"event":"end","dismissal-date":1e20}}"#, .badDismissalDate),
        (#"{"aps":{"timestamp":1,"event":"update","content-state":{},"relevance-score":"high"}}"#, .badRelevanceScore),
        (#"{"aps":{"timestamp":1,"event":"update","content-state":{},"input-push-channel":"not*base64"}}"#, .badInputPushChannel),
    ])
    func eachProblemIsNamed(text: String, problem: LiveActivityPayloadProblem) {
        #expect(Self.parse(text) == .failure(problem))
    }

    @Test func everyProblemReadsBackFromItsFate() {
        for problem in LiveActivityPayloadProblem.allCases {
            let reason = DropReason.liveActivityPayload(problem)
            #expect(DropReason(description: reason.description) == reason)
        }
        for type in [APNsPushType.widgets, .controls] {
            #expect(DropReason(description: DropReason.noContentChanged(type).description) == .noContentChanged(type))
        }
    }

    // MARK: The validator's per-type rules

    static let token = String(repeating: "ab", count: 32)

    static func validate(
        type: APNsPushType, topic: String, priority: String? = nil, expiration: String? = nil, body: String, strict: Bool = false
    ) throws(APNsReason) -> ValidatedPush {
        try APNsRequestValidator(strict: strict).validate(
            deviceToken: Substring(token), topic: topic,
            headers: APNsHeaders(pushType: type.rawValue, priority: priority, expiration: expiration), apnsID: "A", body: Array(body.utf8))
    }

    @Test func aLiveActivityPushApnsAcceptsButActivityKitCannotUseIsDroppedWithWhy() throws {
        let topic = "com.example.app.push-type.liveactivity"
        #expect(try Self.validate(type: .liveactivity, topic: topic, body: Self.start).neverWakesReason == nil)
        let noEvent = try Self.validate(type: .liveactivity, topic: topic, body: #"{"aps":{"timestamp":1,"content-state":{}}}"#)
        #expect(noEvent.neverWakesReason == .liveActivityPayload(.missingEvent))
        #expect(throws: APNsReason.badRequestPayload) { try Self.validate(type: .liveactivity, topic: topic, body: "{nope") }
        #expect(throws: APNsReason.invalidPushType) { try Self.validate(type: .liveactivity, topic: "com.example.app", body: Self.start) }
        let low = try Self.validate(type: .liveactivity, topic: topic, priority: "1", body: Self.start)
        #expect(low.warnings.contains { $0.contains("priority 1") })
        #expect(throws: APNsReason.badPriority) {
            try Self.validate(type: .liveactivity, topic: topic, priority: "1", body: Self.start, strict: true)
        }
    }

    @Test(arguments: [APNsPushType.widgets, .controls])
    func widgetsAndControlsNeedContentChanged(_ type: APNsPushType) throws {
        let topic = "com.example.app" + type.topicSuffix!
        #expect(try Self.validate(type: type, topic: topic, body: #"{"aps":{"content-changed":true}}"#).neverWakesReason == nil)
        for body in [#"{"aps":{}}"#, #"{"aps":{"content-changed":false}}"#, #"{"aps":{"content-changed":1}}"#] {
            #expect(try Self.validate(type: type, topic: topic, body: body).neverWakesReason == .noContentChanged(type), "\(body)")
        }
    }

    @Test func pushToTalkAsksForPriority10AndExpiration0() throws {
        let topic = "com.example.app.voip-ptt"
        let body = #"{"aps":{}}"#
        #expect(try Self.validate(type: .pushtotalk, topic: topic, priority: "10", expiration: "0", body: body).warnings.isEmpty)
        let loose = try Self.validate(type: .pushtotalk, topic: topic, priority: "5", expiration: "1767225600", body: body)
        #expect(loose.warnings.count == 2)
        #expect(throws: APNsReason.badPriority) { try Self.validate(type: .pushtotalk, topic: topic, priority: "5", body: body, strict: true) }
    }

    @Test func locationTakesPriority10Or5() throws {
        let topic = "com.example.app.location-query"
        #expect(try Self.validate(type: .location, topic: topic, priority: "5", body: "{}").warnings.isEmpty)
        #expect(throws: APNsReason.badPriority) { try Self.validate(type: .location, topic: topic, priority: "1", body: "{}", strict: true) }
    }
}
