import SilentPushTransport
import Testing

/// A request stream's phases, with no session: every event from every phase.
@Suite struct H2StreamPhaseTests {
    typealias Request = H2StreamPhase.Request
    typealias Answer = H2StreamPhase.Answer

    static let request = Request(method: "POST", path: "/3/device/a", headers: H2HeaderList(name: "apns-topic", value: "t"), body: [1])
    static let answer = Answer(body: [7, 8, 9])
    static let refused = H2StreamPhase.refused(.unanswered(Request(), discarded: 0))
    static let every: [H2StreamPhase] = [
        .opened, .headersTooLarge(request), .awaitingAnswer(request), .answered(request, answer), refused,
        .refused(.answering(request, answer, discarded: 3)), .refused(.answerSent(request, discarded: 3)), .reset,
    ]

    /// Offers a field `size` bytes long as the limit counts it (name + value + 32).
    static func field(
        _ phase: inout H2StreamPhase, name: String = "x-field", size: Int, inTrailers: Bool = false, limit: Int = 1000
    ) -> Bool {
        let value = [UInt8](repeating: UInt8(ascii: "v"), count: max(0, size - 32 - name.utf8.count))
        return Array(name.utf8).withUnsafeBytes { name in
            value.withUnsafeBytes { phase.headerField(name: name, value: $0, inTrailers: inTrailers, limit: limit) }
        }
    }

    static func data(_ phase: inout H2StreamPhase, count: Int, limit: Int = 100, discardLimit: Int = 1) -> H2StreamPhase.DataVerdict {
        [UInt8](repeating: 0, count: count).withUnsafeBytes { phase.data($0, limit: limit, discardLimit: discardLimit) }
    }

    @Test func aRequestArrivesIsDeliveredAndAnsweredOnce() {
        var phase = H2StreamPhase.opened
        let r1 = Self.field(&phase, size: 100)
        #expect(r1)
        let r2 = Self.data(&phase, count: 10)
        #expect(r2 == .appended)
        let r3 = phase.frameEnded(endStream: false, headerListLimit: 1000)
        #expect(r3 == .none)
        let r4 = phase.frameEnded(endStream: true, headerListLimit: 1000)
        guard case .deliver(let delivered) = r4 else {
            Issue.record("\(r4)")
            return
        }
        #expect(delivered.body.count == 10 && delivered.headers.count == 1)
        #expect(phase.awaitsAnswer)
        let r5 = phase.timedOut()  // arrived whole: work on this side, not a slow client
        #expect(!r5)
        let r6 = phase.respond(body: [])
        #expect(r6)
        #expect(phase == .answered(delivered, Answer(body: [])))
        let r7 = phase.respond(body: [])
        #expect(!r7)
        #expect(!phase.awaitsAnswer)
    }

    @Test func anOversizedHeaderBlockIsRefusedWhenItEnds() {
        var phase = H2StreamPhase.opened
        let kept = Self.field(&phase, name: ":path", size: 100)
        #expect(kept)
        let r8 = Self.field(&phase, size: 901)
        #expect(!r8)
        let r9 = Self.field(&phase, size: 40)
        #expect(!r9)
        let r10 = phase.frameEnded(endStream: true, headerListLimit: 1000)
        // The refusal hands out what came before the limit.
        let before = Request(path: String(repeating: "v", count: 63), headerListSize: 1001)
        #expect(r10 == .refuse(.headerListTooLarge(limit: 1000), before))
        #expect(phase == .refused(.unanswered(before, discarded: 0)))
        let r11 = phase.respond(body: [])
        #expect(r11)
        let r12 = phase.respond(body: [])
        #expect(!r12)
    }

    @Test func aBodyPastItsCapIsRefusedAndTheRestDropped() {
        var phase = H2StreamPhase.opened
        _ = Self.data(&phase, count: 50, limit: 100, discardLimit: 100)
        let r13 = Self.data(&phase, count: 60, limit: 100, discardLimit: 100) == .refuse(.bodyTooLarge(limit: 100), Request())
        #expect(r13)
        let r14 = phase.frameEnded(endStream: true, headerListLimit: 1000)  // never delivered
        #expect(r14 == .none)
        let r15 = phase.respond(body: [])
        #expect(r15)
        let r16 = Self.data(&phase, count: 80, limit: 100, discardLimit: 100)
        #expect(r16 == .drop)
        phase.answerSent()
        // Past the discard limit after the answer went out, the client is told to stop.
        let r17 = Self.data(&phase, count: 80, limit: 100, discardLimit: 100)
        #expect(r17 == .dropAndStop)
    }

    @Test func onlyARequestStillArrivingTimesOut() {
        for start in Self.every {
            var phase = start
            let reset = phase.timedOut()
            switch start {
            case .receiving, .headersTooLarge, .refused:
                #expect(reset && phase == .reset, "\(start)")
            case .awaitingAnswer, .answered, .reset:
                #expect(!reset && phase == start, "\(start)")
            }
        }
    }

    @Test func aResetStreamTakesNothingMore() {
        var phase = H2StreamPhase.reset
        let r18 = Self.field(&phase, size: 40)
        #expect(!r18)
        let r19 = Self.data(&phase, count: 1)
        #expect(r19 == .drop)
        let r20 = phase.frameEnded(endStream: true, headerListLimit: 1000)
        #expect(r20 == .none)
        let r21 = phase.respond(body: [])
        #expect(!r21)
        #expect(phase == .reset)
    }

    @Test func anAnswerBeforeTheRequestEndsDropsTheRest() {
        var phase = H2StreamPhase.opened
        let r22 = phase.respond(body: [])
        #expect(r22)
        let r23 = Self.data(&phase, count: 1)
        #expect(r23 == .drop)
        let r24 = phase.frameEnded(endStream: true, headerListLimit: 1000)
        #expect(r24 == .none)
    }

    // MARK: - Every event from every phase

    @Test func pseudoHeadersAndFieldsGoWhereTheyBelong() {
        var phase = H2StreamPhase.opened
        for (name, value) in [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/a"), (":authority", "h"), ("apns-topic", "t")] {
            let kept = Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { phase.headerField(name: name, value: $0, inTrailers: false, limit: 1000) }
            }
            #expect(kept, "\(name)")
        }
        // A trailer within the limit is counted, not kept.
        let trailer = Self.field(&phase, size: 40, inTrailers: true)
        #expect(!trailer)
        let verdict = phase.frameEnded(endStream: true, headerListLimit: 1000)
        #expect(
            verdict
                == .deliver(
                    Request(
                        method: "POST", path: "/3/device/a", scheme: "https", authority: "h", headers: H2HeaderList(name: "apns-topic", value: "t"),
                        headerListSize: 261)
                ))
    }

    @Test func trailersPastTheLimitRefuseTheRequest() {
        var phase = H2StreamPhase.opened
        _ = Self.data(&phase, count: 5)
        let trailer = Self.field(&phase, size: 1001, inTrailers: true)
        #expect(!trailer)
        let verdict = phase.frameEnded(endStream: true, headerListLimit: 1000)
        #expect(verdict == .refuse(.headerListTooLarge(limit: 1000), Request(body: [0, 0, 0, 0, 0], headerListSize: 1001)))
    }

    @Test func onlyAReceivingRequestKeepsFields() {
        for start in Self.every {
            var phase = start
            let kept = Self.field(&phase, size: 40)
            if case .receiving = start {
                #expect(kept, "\(start)")
            } else {
                #expect(!kept && phase == start, "\(start)")
            }
        }
    }

    @Test func dataFromEveryPhase() {
        for start in Self.every {
            var phase = start
            let verdict = Self.data(&phase, count: 2, limit: 100, discardLimit: 4)
            switch start {
            case .receiving:
                #expect(verdict == .appended, "\(start)")
            case .refused(.unanswered(let request, let discarded)):
                #expect(verdict == .drop && phase == .refused(.unanswered(request, discarded: discarded + 2)))
            case .refused(.answering(let request, let answer, let discarded)):
                #expect(verdict == .drop && phase == .refused(.answering(request, answer, discarded: discarded + 2)))
            case .refused(.answerSent(let request, let discarded)):
                // 3 + 2 past the discard limit of 4, after the answer went out.
                #expect(verdict == .dropAndStop && phase == .refused(.answerSent(request, discarded: discarded + 2)))
            case .headersTooLarge, .awaitingAnswer, .answered, .reset:
                #expect(verdict == .drop && phase == start, "\(start)")
            }
        }
    }

    @Test func frameEndsFromEveryPhase() {
        for start in Self.every {
            var phase = start
            let verdict = phase.frameEnded(endStream: true, headerListLimit: 1000)
            switch start {
            case .receiving(let request):
                #expect(verdict == .deliver(request) && phase == .awaitingAnswer(request))
            case .headersTooLarge(let request):
                #expect(verdict == .refuse(.headerListTooLarge(limit: 1000), request))
                #expect(phase == .refused(.unanswered(request, discarded: 0)))
            case .awaitingAnswer, .answered, .refused, .reset:
                #expect(verdict == .none && phase == start, "\(start)")
            }
        }
    }

    @Test func answersFromEveryPhase() {
        let body: [UInt8] = [1, 2]
        for start in Self.every {
            var phase = start
            let sent = phase.respond(body: body)
            switch start {
            case .awaitingAnswer(let request):
                #expect(sent && phase == .answered(request, Answer(body: body)))
            case .receiving(let request), .headersTooLarge(let request):
                #expect(sent && phase == .refused(.answering(request, Answer(body: body), discarded: 0)), "\(start)")
            case .refused(.unanswered(let request, let discarded)):
                #expect(sent && phase == .refused(.answering(request, Answer(body: body), discarded: discarded)))
            case .answered, .refused(.answering), .refused(.answerSent), .reset:
                // Answered once already, or reset: a second answer is refused.
                #expect(!sent && phase == start, "\(start)")
            }
        }
    }

    @Test func anAnswersBodyGoesOutInChunks() {
        var phase = H2StreamPhase.awaitingAnswer(Self.request)
        _ = phase.respond(body: [1, 2, 3, 4, 5])
        var buffer = [UInt8](repeating: 0, count: 8)
        let first = buffer.withUnsafeMutableBytes { phase.sendAnswer(into: $0.baseAddress!, length: 3) }
        #expect(first?.count == 3 && first?.last == false)
        #expect(buffer.prefix(3) == [1, 2, 3])
        let second = buffer.withUnsafeMutableBytes { phase.sendAnswer(into: $0.baseAddress!, length: 3) }
        #expect(second?.count == 2 && second?.last == true)
        #expect(buffer.prefix(2) == [4, 5])
        phase.answerSent()
        #expect(phase == .answered(Self.request, Answer(body: [1, 2, 3, 4, 5], sent: 5)))
    }

    @Test func onlyAnAnswerBeingSentGivesBytes() {
        for start in Self.every {
            var phase = start
            var buffer = [UInt8](repeating: 0, count: 8)
            let chunk = buffer.withUnsafeMutableBytes { phase.sendAnswer(into: $0.baseAddress!, length: 8) }
            switch start {
            case .answered(let request, _):
                #expect(chunk?.count == 3 && chunk?.last == true && phase == .answered(request, Answer(body: [7, 8, 9], sent: 3)))
            case .refused(.answering(let request, _, let discarded)):
                #expect(chunk?.count == 3 && phase == .refused(.answering(request, Answer(body: [7, 8, 9], sent: 3), discarded: discarded)))
            case .receiving, .headersTooLarge, .awaitingAnswer, .refused(.unanswered), .refused(.answerSent), .reset:
                #expect(chunk == nil && phase == start, "\(start)")
            }
        }
    }

    @Test func onlyARefusedAnswerRemembersItWentOut() {
        for start in Self.every {
            var phase = start
            phase.answerSent()
            if case .refused(.answering(let request, _, let discarded)) = start {
                #expect(phase == .refused(.answerSent(request, discarded: discarded)))
            } else {
                #expect(phase == start, "\(start)")
            }
        }
    }

    @Test func aRecycledStreamReceivesAgainWithItsBuffers() {
        for start in Self.every {
            var phase = start
            phase.recycle()
            #expect(phase == .opened, "\(start)")
        }
        var request = Request(body: [])
        request.body.reserveCapacity(4096)
        var phase = H2StreamPhase.awaitingAnswer(request)
        request = Request()  // the request handed out is gone
        phase.recycle()
        guard case .receiving(let recycled) = phase else {
            Issue.record("\(phase)")
            return
        }
        #expect(recycled.body.capacity >= 4096)
    }

    @Test func onlyAnAnsweredStreamStallsItsAnswer() {
        for start in Self.every {
            var phase = start
            let first = phase.answerStalled(windowShut: true, now: 10, limit: 5)
            let later = phase.answerStalled(windowShut: true, now: 15, limit: 5)
            #expect(!first)
            if case .answered = start {
                #expect(later && phase == .reset, "\(start)")
            } else {
                #expect(!later && phase == start, "\(start)")
            }
        }
    }

    /// The stall is timed from when the window was first seen shut, and a window seen open
    /// in between starts it again.
    @Test func aWindowSeenOpenStartsTheStallAgain() {
        var phase = H2StreamPhase.answered(Self.request, Self.answer)
        var resets: [Bool] = []
        for (shut, now) in [(true, 100), (true, 104), (false, 105), (true, 106), (true, 110), (true, 111)] {
            resets.append(phase.answerStalled(windowShut: shut, now: UInt64(now), limit: 5))
        }
        #expect(resets == [false, false, false, false, false, true])
        #expect(phase == .reset)
    }
}
