import SilentPushCore
import Testing

@Suite struct APNsErrorBodyTests {
    @Test func writesWhatAPNsSends() {
        #expect(APNsErrorBody(APNsRejection(.badDeviceToken)).json == #"{"reason":"BadDeviceToken"}"#)
        #expect(
            APNsErrorBody(APNsRejection(.unregistered, timestamp: 1_700_000_000_000)).json
                == #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        #expect(
            APNsErrorBody(reason: "ProtocolError", detail: "a \"quoted\"\nline").json
                == #"{"reason":"ProtocolError","detail":"a \"quoted\"\nline"}"#)
    }

    @Test func readsWhatItWritesAndIgnoresTheRest() throws {
        let body = APNsErrorBody(reason: "Unregistered", timestamp: 42, detail: "gone")
        #expect(APNsErrorBody(parsing: body.bytes) == body)
        let extra = Array(#"{"other":[1,{"a":null}],"reason":"TooManyRequests"}"#.utf8)
        #expect(APNsErrorBody(parsing: extra) == APNsErrorBody(reason: "TooManyRequests"))
    }

    @Test(arguments: ["", "{}", #"{"reason":5}"#, #"["reason"]"#, #"{"reason":"A"} x"#, "not json", #"{"reason":"A""#])
    func refusesWhatIsNotAnErrorBody(_ text: String) {
        #expect(APNsErrorBody(parsing: Array(text.utf8)) == nil)
    }
}
