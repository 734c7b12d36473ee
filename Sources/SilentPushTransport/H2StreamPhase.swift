/// Where one request stream of an `H2ServerSession` stands, as a state machine: each event
/// is a `mutating` method whose exhaustive `switch` over the phase says what the session
/// must do, so a stream cannot be, say, answered and still delivering its body.
package enum H2StreamPhase: Equatable {
    /// HEADERS and DATA arriving. `headersTooLarge`: the header block passed the limit; the
    /// request is refused when the block ends.
    case receiving(headersTooLarge: Bool)
    /// END_STREAM arrived: the whole request went to the delegate, which has not answered.
    case awaitingAnswer
    /// Answered; the stream closes once the answer is sent.
    case answered
    /// Cut short by a limit or answered before it ended: the rest of its body is dropped.
    case refused(Refusal)
    /// Reset (RST_STREAM) for arriving too slowly: nothing more is read or answered.
    case reset

    /// What a refused stream has been through.
    package struct Refusal: Equatable {
        /// The delegate answered it.
        package var answered = false
        /// The answer's last frame was sent.
        package var answerSent = false
        /// Body bytes dropped since.
        package var discarded = 0

        package init(answered: Bool = false, answerSent: Bool = false, discarded: Int = 0) {
            self.answered = answered
            self.answerSent = answerSent
            self.discarded = discarded
        }
    }

    /// A new stream.
    package static let opened = H2StreamPhase.receiving(headersTooLarge: false)

    // MARK: - Events

    /// A header field arrived that makes the header list `size` bytes. Returns whether to
    /// keep it (only a request still within the limit keeps its fields).
    package mutating func headerField(listSize size: Int, limit: Int) -> Bool {
        switch self {
        case .receiving(headersTooLarge: false):
            guard size > limit else { return true }
            self = .receiving(headersTooLarge: true)
            return false
        case .receiving(headersTooLarge: true), .awaitingAnswer, .answered, .refused, .reset:
            return false  // trailers, or fields past the limit: counted, not kept
        }
    }

    /// What to do with a DATA chunk.
    package enum DataVerdict: Equatable {
        /// Append it to the body.
        case append
        /// Refuse the request: the body passed its cap.
        case refuse(H2RequestProblem)
        /// Drop it.
        case drop
        /// Drop it and reset the stream (NO_ERROR): the client keeps sending long after its answer.
        case dropAndStop
    }

    /// A DATA chunk of `count` bytes arrived on a body of `bodySize` bytes so far.
    package mutating func data(count: Int, bodySize: Int, limit: Int, discardLimit: Int) -> DataVerdict {
        switch self {
        case .receiving:
            guard bodySize + count > limit else { return .append }
            // Refused now, while the body is still arriving: nothing past the cap is kept.
            self = .refused(Refusal())
            return .refuse(.bodyTooLarge(limit: limit))
        case .refused(var refusal):
            // A client that keeps sending long after its answer is told to stop (RFC 9113
            // §8.1); clients such as curl 7.88 report that reset as an error, so ordinary
            // overruns are let finish.
            refusal.discarded += count
            self = .refused(refusal)
            return refusal.answerSent && refusal.discarded > discardLimit ? .dropAndStop : .drop
        case .awaitingAnswer, .answered, .reset:
            return .drop
        }
    }

    /// What to do when a HEADERS or DATA frame has been read whole.
    package enum FrameVerdict: Equatable {
        case none
        /// The request is whole: hand it to the delegate.
        case deliver
        /// Refuse the request for `problem`.
        case refuse(H2RequestProblem)
    }

    /// A HEADERS (`isHeaders`) or DATA frame ended; `endStream`: it carried END_STREAM.
    package mutating func frameEnded(isHeaders: Bool, endStream: Bool, headerListLimit: Int) -> FrameVerdict {
        switch self {
        case .receiving(headersTooLarge: true) where isHeaders:
            self = .refused(Refusal())
            return .refuse(.headerListTooLarge(limit: headerListLimit))
        case .receiving:
            guard endStream else { return .none }
            self = .awaitingAnswer
            return .deliver
        case .awaitingAnswer, .answered, .refused, .reset:
            return .none
        }
    }

    /// The delegate answers. Returns whether to send the answer (a stream answered once, or
    /// reset, takes no other).
    package mutating func respond() -> Bool {
        switch self {
        case .awaitingAnswer:
            self = .answered
            return true
        case .receiving:
            // Answered before the request ended: the rest of it is dropped.
            self = .refused(Refusal(answered: true))
            return true
        case .refused(var refusal) where !refusal.answered:
            refusal.answered = true
            self = .refused(refusal)
            return true
        case .refused, .answered, .reset:
            return false
        }
    }

    /// The answer's last frame (END_STREAM) went out.
    package mutating func answerSent() {
        switch self {
        case .refused(var refusal):
            refusal.answerSent = true
            self = .refused(refusal)
        case .receiving, .awaitingAnswer, .answered, .reset:
            break
        }
    }

    /// The request timeout passed. Returns whether to reset the stream now: only a request
    /// still arriving is (one that arrived whole is work on this side).
    package mutating func timedOut() -> Bool {
        switch self {
        case .receiving, .refused:
            self = .reset
            return true
        case .awaitingAnswer, .answered, .reset:
            return false
        }
    }

    /// The request arrived whole and waits for its answer.
    package var awaitsAnswer: Bool {
        if case .awaitingAnswer = self { return true }
        return false
    }
}
