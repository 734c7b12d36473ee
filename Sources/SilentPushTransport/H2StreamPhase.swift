/// Where one request stream of an `H2ServerSession` stands, as a state machine: each event
/// is a `mutating` method whose exhaustive `switch` over the phase says what the session
/// must do, so a stream cannot be, say, answered and still delivering its body.
///
/// Each case carries only what is valid in it: the request exists while it arrives and
/// from then on as what was handed out (its buffers serve the stream's next request), the
/// answer's body only while it is sent, and a reset stream keeps nothing. Payloads are
/// changed in place (`switch consume self`), so an event copies no buffer and retains
/// nothing.
package enum H2StreamPhase: Equatable {
    /// HEADERS and DATA arriving.
    case receiving(Request)
    /// The header block passed the limit: its further fields are counted out, not kept, and
    /// the request is refused when the block ends.
    case headersTooLarge(Request)
    /// END_STREAM arrived: the whole request went to the delegate, which has not answered.
    case awaitingAnswer(Request)
    /// Answered; the stream closes once `Answer` is sent.
    case answered(Request, Answer)
    /// Cut short by a limit or answered before it ended: the rest of its body is dropped.
    case refused(Refusal)
    /// Reset (RST_STREAM) for arriving too slowly: nothing more is read or answered.
    case reset

    /// What has arrived of a request: pseudo-headers, the other fields (the limit counted over
    /// all of them) and the body.
    package struct Request: Equatable {
        package var method: String?
        package var path: String?
        package var scheme: String?
        package var authority: String?
        package var headers = H2HeaderList()
        package var body: [UInt8] = []
        /// The header list's size as RFC 9113 §6.5.2 counts it, trailers included.
        package var headerListSize = 0

        package init(
            method: String? = nil, path: String? = nil, scheme: String? = nil, authority: String? = nil,
            headers: H2HeaderList = H2HeaderList(), body: [UInt8] = [], headerListSize: Int = 0
        ) {
            self.method = method
            self.path = path
            self.scheme = scheme
            self.authority = authority
            self.headers = headers
            self.body = body
            self.headerListSize = headerListSize
        }

        /// Empty for the next request; buffers keep their capacity unless a request still
        /// handed out shares them.
        mutating func clear() {
            method = nil
            path = nil
            scheme = nil
            authority = nil
            headers.removeAll()
            body.removeAll(keepingCapacity: true)
            headerListSize = 0
        }
    }

    /// An answer's body while it is sent, as nghttp2 asks for it chunk by chunk.
    package struct Answer: Equatable {
        package var body: [UInt8]
        /// How much of `body` went out.
        package var sent = 0
        /// When the client's flow-control window was first seen shut with part of it unsent
        /// (the caller's clock); nil while the window is open.
        package var stalledSince: UInt64?

        package init(body: [UInt8], sent: Int = 0) {
            self.body = body
            self.sent = sent
        }
    }

    /// What a refused stream has been through; each step keeps the request handed out.
    package enum Refusal: Equatable {
        /// The delegate has not answered; `discarded` body bytes dropped since the refusal.
        case unanswered(Request, discarded: Int)
        /// Answered; the answer is being sent.
        case answering(Request, Answer, discarded: Int)
        /// The answer's last frame was sent.
        case answerSent(Request, discarded: Int)
    }

    /// A new stream.
    package static var opened: H2StreamPhase { .receiving(Request()) }

    // MARK: - Events

    /// A header field arrived; `inTrailers`: it is in a trailer block (counted against the
    /// limit, not kept). Returns whether the request kept it: only a request still within
    /// the limit keeps its fields.
    @discardableResult
    package mutating func headerField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, inTrailers: Bool, limit: Int) -> Bool {
        switch consume self {
        case .receiving(var request):
            request.headerListSize += name.count + value.count + 32
            guard request.headerListSize <= limit else {
                self = .headersTooLarge(request)
                return false
            }
            if !inTrailers { request.keep(name: name, value: value) }
            self = .receiving(request)
            return !inTrailers
        case let other:
            self = other
            return false  // trailers, or fields past the limit: counted, not kept
        }
    }

    /// What to do with a DATA chunk.
    package enum DataVerdict: Equatable {
        /// Appended to the body.
        case appended
        /// Refuse the request (body dropped): it passed its cap.
        case refuse(H2RequestProblem, Request)
        /// Drop it.
        case drop
        /// Drop it and reset the stream (NO_ERROR): the client keeps sending long after its answer.
        case dropAndStop
    }

    /// A DATA chunk arrived; `limit` caps the body.
    package mutating func data(_ chunk: UnsafeRawBufferPointer, limit: Int, discardLimit: Int) -> DataVerdict {
        switch consume self {
        case .receiving(var request):
            guard request.body.count + chunk.count > limit else {
                request.body.appendBytes(chunk)
                self = .receiving(request)
                return .appended
            }
            // Refused now, while the body is still arriving: nothing past the cap is kept.
            request.body = []
            self = .refused(.unanswered(request, discarded: 0))
            return .refuse(.bodyTooLarge(limit: limit), request)
        case .refused(.unanswered(let request, let discarded)):
            self = .refused(.unanswered(request, discarded: discarded + chunk.count))
            return .drop
        case .refused(.answering(let request, let answer, let discarded)):
            self = .refused(.answering(request, answer, discarded: discarded + chunk.count))
            return .drop
        case .refused(.answerSent(let request, let discarded)):
            // A client that keeps sending long after its answer is told to stop (RFC 9113
            // §8.1); clients such as curl 7.88 report that reset as an error, so ordinary
            // overruns are let finish.
            self = .refused(.answerSent(request, discarded: discarded + chunk.count))
            return discarded + chunk.count > discardLimit ? .dropAndStop : .drop
        case let other:
            // A header block past the limit ends before any DATA; the rest took their request whole.
            self = other
            return .drop
        }
    }

    /// What to do when a HEADERS or DATA frame has been read whole.
    package enum FrameVerdict: Equatable {
        case none
        /// The request is whole: hand it to the delegate.
        case deliver(Request)
        /// Refuse the request for `problem`.
        case refuse(H2RequestProblem, Request)
    }

    /// A HEADERS or DATA frame ended; `endStream`: it carried END_STREAM.
    package mutating func frameEnded(endStream: Bool, headerListLimit: Int) -> FrameVerdict {
        switch consume self {
        case .headersTooLarge(let request):
            self = .refused(.unanswered(request, discarded: 0))
            return .refuse(.headerListTooLarge(limit: headerListLimit), request)
        case .receiving(let request):
            guard endStream else {
                self = .receiving(request)
                return .none
            }
            self = .awaitingAnswer(request)
            return .deliver(request)
        case let other:
            self = other
            return .none
        }
    }

    /// Whether the request is a HEAD, whose answer carries no content (RFC 9110 §9.3.2): its
    /// body is not sent, whatever the delegate answers.
    package var isHeadRequest: Bool {
        switch self {
        case .receiving(let request), .headersTooLarge(let request), .awaitingAnswer(let request), .answered(let request, _),
            .refused(.unanswered(let request, _)), .refused(.answering(let request, _, _)):
            request.method == "HEAD"
        default: false
        }
    }

    /// The delegate answers with a body of `body` (empty: none). Returns whether to send the
    /// answer (a stream answered once, or reset, takes no other).
    package mutating func respond(body: [UInt8]) -> Bool {
        switch consume self {
        case .awaitingAnswer(let request):
            self = .answered(request, Answer(body: body))
            return true
        case .receiving(let request), .headersTooLarge(let request):
            // Answered before the request ended: the rest of it is dropped.
            self = .refused(.answering(request, Answer(body: body), discarded: 0))
            return true
        case .refused(.unanswered(let request, let discarded)):
            self = .refused(.answering(request, Answer(body: body), discarded: discarded))
            return true
        case let other:
            self = other
            return false
        }
    }

    /// nghttp2 asks for up to `length` more bytes of the answer's body into `buffer`.
    /// Returns how many were given and whether they are the last; nil when no answer is
    /// being sent.
    package mutating func sendAnswer(into buffer: UnsafeMutableRawPointer, length: Int) -> (count: Int, last: Bool)? {
        switch consume self {
        case .answered(let request, var answer):
            let result = answer.send(into: buffer, length: length)
            self = .answered(request, answer)
            return result
        case .refused(.answering(let request, var answer, let discarded)):
            let result = answer.send(into: buffer, length: length)
            self = .refused(.answering(request, answer, discarded: discarded))
            return result
        case let other:
            self = other
            return nil
        }
    }

    /// The answer's last frame (END_STREAM) went out.
    package mutating func answerSent() {
        switch consume self {
        case .refused(.answering(let request, _, let discarded)):
            self = .refused(.answerSent(request, discarded: discarded))
        case let other:
            // An answered request closes its stream now.
            self = other
        }
    }

    /// The request timeout passed. Returns whether to reset the stream now: only a request
    /// still arriving is (one that arrived whole is work on this side).
    package mutating func timedOut() -> Bool {
        switch self {
        case .receiving, .headersTooLarge, .refused:
            self = .reset
            return true
        case .awaitingAnswer, .answered, .reset:
            return false
        }
    }

    /// A look at an answered stream whose answer is not all sent: `windowShut` says whether
    /// the client's flow-control window (the stream's or the connection's) is shut at `now`.
    /// Returns whether to reset the stream now: once the window has been seen shut for
    /// `limit` without being seen open in between, which frees what the answer holds. Only
    /// an answered stream stalls.
    package mutating func answerStalled(windowShut: Bool, now: UInt64, limit: UInt64) -> Bool {
        guard case .answered(let request, var answer) = self else { return false }
        guard windowShut else {
            if answer.stalledSince != nil {
                answer.stalledSince = nil
                self = .answered(request, answer)
            }
            return false
        }
        guard let since = answer.stalledSince else {
            answer.stalledSince = now
            self = .answered(request, answer)
            return false
        }
        guard now &- since >= limit else { return false }
        self = .reset
        return true
    }

    /// The stream closed and is kept for another: `receiving` again, with the last
    /// request's buffers when it kept them.
    package mutating func recycle() {
        switch consume self {
        case .receiving(var request), .headersTooLarge(var request), .awaitingAnswer(var request), .answered(var request, _),
            .refused(.unanswered(var request, _)), .refused(.answering(var request, _, _)), .refused(.answerSent(var request, _)):
            request.clear()
            self = .receiving(request)
        case .reset:
            self = .opened
        }
    }

    /// The request arrived whole and waits for its answer.
    package var awaitsAnswer: Bool {
        if case .awaitingAnswer = self { return true }
        return false
    }
}

extension H2StreamPhase.Request {
    /// Keeps a field of the request's header block. nghttp2 has already refused unknown or
    /// repeated pseudo-headers, so the length and one letter tell them apart.
    fileprivate mutating func keep(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard name.first == UInt8(ascii: ":"), name.count > 1 else {
            headers.append(name: name, value: value)
            return
        }
        let text = String(decoding: value, as: UTF8.self)
        switch (name.count, name[1]) {
        case (5, UInt8(ascii: "p")): path = text
        case (7, UInt8(ascii: "m")): method = text
        case (7, UInt8(ascii: "s")): scheme = text
        case (10, UInt8(ascii: "a")): authority = text
        default: break
        }
    }
}

extension H2StreamPhase.Answer {
    /// Copies the next chunk of the body into `buffer`.
    fileprivate mutating func send(into buffer: UnsafeMutableRawPointer, length: Int) -> (count: Int, last: Bool) {
        let count = min(length, body.count - sent)
        body.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + sent, byteCount: count) }
        sent += count
        return (count, sent == body.count)
    }
}
