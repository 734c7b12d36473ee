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

    /// Each kind carries only its own data: a fate of one kind answers nil (or false) for
    /// what belongs to another.
    @Test func eachKindCarriesOnlyItsOwnData() {
        let wait = WaitReason<DeviceInstant>.lowPowerMode
        let fates: [PushFate] = [
            .pending(wait), .delivered(by: 1), .coalesced(into: 2, byAPNs: true), .expired, .dropped(.forceQuit),
            .rejected(.badTopic, cause: "why"), .injected(by: 3, .reset),
        ]
        #expect(fates.map(\.kind) == PushFate.Kind.allCases)
        #expect(fates.map(\.wakeID) == [nil, 1, 2, nil, nil, nil, nil])
        #expect(fates.map(\.waitReason) == [wait, nil, nil, nil, nil, nil, nil])
        #expect(fates.map(\.coalescedByAPNs) == [false, false, true, false, false, false, false])
        #expect(fates.map(\.dropReason) == [nil, nil, nil, nil, .forceQuit, nil, nil])
        #expect(fates.map(\.rejection) == [nil, nil, nil, nil, nil, .badTopic, nil])
        #expect(fates.map(\.rejectionCause) == [nil, nil, nil, nil, nil, "why", nil])
        #expect(fates.map(\.injection) == [nil, nil, nil, nil, nil, nil, .reset])
        #expect(fates.map(\.faultRule) == [nil, nil, nil, nil, nil, nil, 3])
        #expect(PushFate.droppedForUnknownReason.kind == .dropped && PushFate.droppedForUnknownReason.dropReason == nil)
        #expect(PushFate.rejectedForUnknownReason.kind == .rejected && PushFate.rejectedForUnknownReason.rejection == nil)
        #expect(PushFate.injectedForUnknownAction(rule: 4).faultRule == 4 && PushFate.injectedForUnknownAction(rule: 4).injection == nil)
    }

    @Test(arguments: DropReason.every)
    func aDropReasonReadsBackFromItsText(_ reason: DropReason) {
        #expect(DropReason(description: reason.description) == reason)
    }

    @Test func everyDropReasonIsListedOnceWithItsOwnText() {
        #expect(Set(DropReason.every).count == DropReason.every.count)
        #expect(Set(DropReason.every.map(\.description)).count == DropReason.every.count)
        #expect(DropReason.forWhatThePushCarried.contains(.pushTypeNeverWakes(.voip)))
        #expect(!DropReason.forWhatThePushCarried.contains(.forceQuit))
    }

    @Test func unknownDropTextIsNoReason() {
        #expect(DropReason(description: "the moon was full") == nil)
        #expect(DropReason(description: "apns-push-type  does not start a background fetch") == nil)
        #expect(DropReason(description: "apns-push-type telepathy does not start a background fetch") == nil)
    }
}
