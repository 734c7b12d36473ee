import SilentPushCore
import Testing

/// What a refused transfer's record keeps of what was asked.
@Suite struct TransferRecordTests {
    /// A control character (a NUL above all, which would end the text in the store) is kept
    /// as U+FFFD, so the record is never another request's text.
    @Test func aRefusedRequestsControlCharactersAreShownAsReplacements() {
        let record = TransferRecord(
            refused: .badSession, id: 1, deviceToken: "d", topic: "t", session: "a\u{0}b", url: "http://h/\u{7F}x\tq", fromFile: "/tmp/\u{1B}f",
            at: DeviceInstant(millisecondsSinceEpoch: 0))
        #expect(record.session == "a\u{FFFD}b")
        #expect(record.url == "http://h/\u{FFFD}x\u{FFFD}q")
        #expect(record.fromFile == "/tmp/\u{FFFD}f")
        #expect(record.reason == "refused: " + TransferRefusal.badSession.rawValue)
    }

    @Test func aRefusedRequestsTextIsCutAtItsLimit() {
        let record = TransferRecord(
            refused: .badSession, id: 1, deviceToken: "d", topic: "t", session: String(repeating: "é", count: 300), url: nil,
            at: DeviceInstant(millisecondsSinceEpoch: 0))
        #expect(record.session == String(repeating: "é", count: TransferRequest.maximumSessionLength))
        #expect(record.url == "")
    }

    /// The refusals' words (raw values, so literals) say the limits the request applies.
    @Test func theRefusalsSayTheLimitsTheyApply() {
        #expect(TransferRefusal.badSession.rawValue.contains("1 to \(TransferRequest.maximumSessionLength) bytes"))
        #expect(TransferRefusal.notHTTP.rawValue.contains("at most \(TransferRequest.maximumURLLength) bytes"))
        #expect(TransferRefusal.badFile.rawValue.contains("at most \(TransferRequest.maximumPathLength) bytes"))
        #expect(TransferRefusal.tooMany.rawValue.contains("\(TransferPolicy.Settings().maximumPerApp) by default"))
    }
}
