import SilentPushCore
import Testing

/// Fates compare by kind and reason, not by wake; drop reasons survive their stored text.
@Suite struct PushFateTests {
    @Test func equalityLeavesTheWakeOut() {
        #expect(PushFate.delivered(by: 3) == .delivered)
        #expect(PushFate.delivered(by: 3) == .delivered(by: 4))
        #expect(PushFate.delivered(by: 3).wakeID == 3)
        #expect(PushFate.coalesced(into: nil) == .coalesced(into: 9))
        #expect(PushFate.delivered(by: 3) != .coalesced(into: 3))
        #expect(Set([PushFate.delivered(by: 1), .delivered(by: 2)]).count == 1)
    }

    @Test func reasonsArePartOfEquality() {
        #expect(PushFate.dropped(.forceQuit) != .dropped(.backgroundAppRefreshOff))
        #expect(PushFate.rejected(.badDeviceToken) != .rejected(.badTopic))
        #expect(PushFate.dropped(.forceQuit).dropReason == .forceQuit)
        #expect(PushFate.rejected(.badDeviceToken).rejection == .badDeviceToken)
        #expect(PushFate.rejected(.badDeviceToken).description == "rejected: BadDeviceToken")
    }

    @Test(
        arguments: [
            DropReason.forceQuit, .backgroundAppRefreshOff, .backgroundWithoutContentAvailable, .noContentAvailable,
        ] + APNsPushType.allCases.map(DropReason.pushTypeNeverWakes))
    func aDropReasonReadsBackFromItsText(_ reason: DropReason) {
        #expect(DropReason(description: reason.description) == reason)
    }

    @Test func unknownDropTextIsNoReason() {
        #expect(DropReason(description: "the moon was full") == nil)
        #expect(DropReason(description: "apns-push-type  does not start a background fetch") == nil)
        #expect(DropReason(description: "apns-push-type telepathy does not start a background fetch") == nil)
    }
}
