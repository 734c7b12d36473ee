import SilentPushCore
import Testing

/// Why a push APNs accepted can never start a background fetch, in the one place that says it.
@Suite struct ValidatedPushTests {
    static func validate(_ type: APNsPushType, topic: String = "com.example.app", body: String) throws(APNsReason) -> ValidatedPush {
        try LiveActivityPayloadTests.validate(type: type, topic: topic, priority: type == .background ? "5" : nil, body: body)
    }

    @Test func onlyABackgroundOrAlertPushWithContentAvailableCanFetch() throws {
        #expect(try Self.validate(.background, body: #"{"aps":{"content-available":1}}"#).neverFetchesReason == nil)
        #expect(try Self.validate(.alert, body: #"{"aps":{"alert":"hi","content-available":1}}"#).neverFetchesReason == nil)
        #expect(try Self.validate(.alert, body: #"{"aps":{"alert":"hi"}}"#).neverFetchesReason == .noContentAvailable)
        #expect(try Self.validate(.voip, topic: "com.example.app.voip", body: #"{"aps":{}}"#).neverFetchesReason == .pushTypeNeverWakes(.voip))
        // What the validator found first stands: a background push without content-available.
        let bare = try Self.validate(.background, body: #"{"aps":{}}"#)
        #expect(bare.neverWakesReason != nil && bare.neverFetchesReason == bare.neverWakesReason)
    }
}
