import SilentPushTransport
import Testing

/// A request stream's phases, with no session: every event from every phase.
@Suite struct H2StreamPhaseTests {
    static let refused = H2StreamPhase.refused(.init())
    static let every: [H2StreamPhase] = [
        .opened, .receiving(headersTooLarge: true), .awaitingAnswer, .answered, refused,
        .refused(.init(answered: true, answerSent: true)), .reset,
    ]

    @Test func aRequestArrivesIsDeliveredAndAnsweredOnce() {
        var phase = H2StreamPhase.opened
        let r1 = phase.headerField(listSize: 100, limit: 1000)
        #expect(r1)
        let r2 = phase.data(count: 10, bodySize: 0, limit: 100, discardLimit: 1)
        #expect(r2 == .append)
        let r3 = phase.frameEnded(isHeaders: false, endStream: false, headerListLimit: 1000)
        #expect(r3 == .none)
        let r4 = phase.frameEnded(isHeaders: false, endStream: true, headerListLimit: 1000)
        #expect(r4 == .deliver)
        #expect(phase.awaitsAnswer)
        let r5 = phase.timedOut()  // arrived whole: work on this side, not a slow client
        #expect(!r5)
        let r6 = phase.respond()
        #expect(r6)
        #expect(phase == .answered)
        let r7 = phase.respond()
        #expect(!r7)
        #expect(!phase.awaitsAnswer)
    }

    @Test func anOversizedHeaderBlockIsRefusedWhenItEnds() {
        var phase = H2StreamPhase.opened
        let r8 = phase.headerField(listSize: 1001, limit: 1000)
        #expect(!r8)
        let r9 = phase.headerField(listSize: 1002, limit: 1000)
        #expect(!r9)
        let r10 = phase.frameEnded(isHeaders: true, endStream: true, headerListLimit: 1000) == .refuse(.headerListTooLarge(limit: 1000))
        #expect(r10)
        #expect(phase == Self.refused)
        let r11 = phase.respond()
        #expect(r11)
        let r12 = phase.respond()
        #expect(!r12)
    }

    @Test func aBodyPastItsCapIsRefusedAndTheRestDropped() {
        var phase = H2StreamPhase.opened
        let r13 = phase.data(count: 60, bodySize: 50, limit: 100, discardLimit: 100) == .refuse(.bodyTooLarge(limit: 100))
        #expect(r13)
        let r14 = phase.frameEnded(isHeaders: false, endStream: true, headerListLimit: 1000)  // never delivered
        #expect(r14 == .none)
        let r15 = phase.respond()
        #expect(r15)
        let r16 = phase.data(count: 80, bodySize: 0, limit: 100, discardLimit: 100)
        #expect(r16 == .drop)
        phase.answerSent()
        // Past the discard limit after the answer went out, the client is told to stop.
        let r17 = phase.data(count: 80, bodySize: 0, limit: 100, discardLimit: 100)
        #expect(r17 == .dropAndStop)
    }

    @Test func onlyARequestStillArrivingTimesOut() {
        for start in Self.every {
            var phase = start
            let reset = phase.timedOut()
            switch start {
            case .receiving, .refused:
                #expect(reset && phase == .reset, "\(start)")
            case .awaitingAnswer, .answered, .reset:
                #expect(!reset && phase == start, "\(start)")
            }
        }
    }

    @Test func aResetStreamTakesNothingMore() {
        var phase = H2StreamPhase.reset
        let r18 = phase.headerField(listSize: 1, limit: 1000)
        #expect(!r18)
        let r19 = phase.data(count: 1, bodySize: 0, limit: 100, discardLimit: 1)
        #expect(r19 == .drop)
        let r20 = phase.frameEnded(isHeaders: false, endStream: true, headerListLimit: 1000)
        #expect(r20 == .none)
        let r21 = phase.respond()
        #expect(!r21)
        #expect(phase == .reset)
    }

    @Test func anAnswerBeforeTheRequestEndsDropsTheRest() {
        var phase = H2StreamPhase.opened
        let r22 = phase.respond()
        #expect(r22)
        let r23 = phase.data(count: 1, bodySize: 0, limit: 100, discardLimit: 1)
        #expect(r23 == .drop)
        let r24 = phase.frameEnded(isHeaders: false, endStream: true, headerListLimit: 1000)
        #expect(r24 == .none)
    }
}
