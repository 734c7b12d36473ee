import CNghttp2
import SilentPushCore

/// One server-side HTTP/2 connection on nghttp2: bytes in, requests out; responses in,
/// bytes out. It owns no socket and never blocks, so tests drive it in memory and the
/// NIO handler drives it on an event loop. Not thread-safe: one owner, one thread.
package final class H2ServerSession {
    /// Facts of the connection, passed on with each request.
    package let connection: H2ConnectionInfo
    /// Where requests go. Held weakly: the owner holds the session.
    package weak var delegate: (any H2ServerSessionDelegate)?

    private let session: OpaquePointer
    private let settings: H2Settings
    /// Streams with a request in progress, owned through an intrusive list (nghttp2 frees
    /// its streams without callbacks when the session goes); each is also nghttp2's stream
    /// user data, so lookups need no Swift dictionary. (The fields read in every callback
    /// skip the exclusivity checks, as `Stream`'s do.)
    @exclusivity(unchecked) private var openStreams = 0
    @exclusivity(unchecked) private var openList: Stream?
    /// Closed streams kept for reuse with their buffers' capacity.
    @exclusivity(unchecked) private var spareStreams: [Stream] = []
    @exclusivity(unchecked) private var lifecycle = Lifecycle.starting
    private var lastLibraryError: String?
    /// The caller's time during `receive(_:at:)`: when streams open (for request deadlines).
    @exclusivity(unchecked) private var receivingAt: UInt64 = 0
    /// Streams refused past MAX_CONCURRENT_STREAMS since a request last completed.
    @exclusivity(unchecked) private var refusedPastLimit = 0
    /// SETTINGS frames (not acknowledgements) the client has sent: its preface ends with one.
    @exclusivity(unchecked) private var settingsReceived = 0

    /// A session that has queued its SETTINGS and waits for the client preface.
    package init(settings: H2Settings = H2Settings(), connection: H2ConnectionInfo = .unknown) {
        self.settings = settings
        self.connection = connection

        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            H2ServerSession.with(user) { $0.onBeginHeaders(frame!) }
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            H2ServerSession.with(user) {
                $0.onHeader(
                    frame!, name: UnsafeRawBufferPointer(start: name, count: nameLength),
                    value: UnsafeRawBufferPointer(start: value, count: valueLength))
            }
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            H2ServerSession.with(user) { $0.onData(streamID: streamID, UnsafeRawBufferPointer(start: data, count: length)) }
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            H2ServerSession.with(user) { $0.onFrameReceived(frame!) }
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, user in
            H2ServerSession.with(user) { $0.onStreamClose(streamID) }
        }
        nghttp2_session_callbacks_set_before_frame_send_callback(callbacks) { _, frame, user in
            H2ServerSession.with(user) { $0.beforeFrameSend(frame!) }
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            H2ServerSession.with(user) { $0.onFrameSent(frame!) }
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, user in
            let text = message.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) }
            H2ServerSession.with(user) { $0.lastLibraryError = text }
            return 0
        }

        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // No priority tree of closed streams: APNs clients do not use priorities.
        nghttp2_option_set_no_closed_streams(option, 1)
        // Answers carry a fresh apns-id each time: indexing them would only churn the HPACK
        // table (a search and an eviction per answer), so responses are sent as literals.
        nghttp2_option_set_max_deflate_dynamic_table_size(option, 0)
        var made: OpaquePointer?
        nghttp2_session_server_new2(&made, callbacks, nil, option)
        // Only an allocation failure leaves it nil, which Swift would not survive either.
        session = made!
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())

        // nghttp2 1.52 ends the whole connection (GOAWAY PROTOCOL_ERROR) when a client opens a
        // stream past an acknowledged MAX_CONCURRENT_STREAMS; RFC 9113 §5.1.2 makes that a
        // stream error, and APNs clients expect REFUSED_STREAM. So nghttp2 is given no limit,
        // the SETTINGS frame is patched to the real one as it leaves (`patchSettings`), and
        // `onBeginHeaders` refuses streams past it.
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(Int32.max)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit {
        nghttp2_session_del(session)
        // Unlinked one by one: releasing a long chain at once would recurse.
        while let stream = openList {
            openList = stream.next
            stream.next = nil
        }
    }

    /// Streams open (requests not yet fully answered).
    package var openStreamCount: Int { openStreams }

    /// True once the connection has nothing more to read or write: close it after
    /// writing what `drainOutput` gave.
    package var isFinished: Bool {
        switch lifecycle {
        case .terminating: false
        case .closed: true
        case .starting, .open: nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
        }
    }

    /// Feeds bytes from the peer. Requests complete inside this call reach the delegate.
    /// `now` (any monotonic nanoseconds) stamps the streams they open, for
    /// `resetIncompleteRequests(openedAtOrBefore:)`.
    package func receive(_ bytes: UnsafeRawBufferPointer, at now: UInt64 = 0) {
        guard lifecycle.isLive, let base = bytes.baseAddress else { return }
        receivingAt = now
        let result = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 { fail(libraryError: Int32(result)) }
    }

    /// Hands every byte ready for the peer to `sink`, in order, stopping once at least
    /// `limit` bytes were given (the caller resumes when its socket can take more).
    /// Returns the number of bytes given.
    @discardableResult
    package func drainOutput(limit: Int = .max, _ sink: (UnsafeRawBufferPointer) -> Void) -> Int {
        var total = 0
        while total < limit, lifecycle.isLive {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                fail(libraryError: Int32(count))
                break
            }
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(start: data, count: count)
            if case .starting = lifecycle, count >= 9, chunk[3] == 0x4, chunk[4] & 0x1 == 0 {
                lifecycle = .open
                patchSettings(chunk).withUnsafeBytes { sink($0) }
            } else {
                sink(chunk)
            }
            total += count
        }
        if case .terminating(let goAway) = lifecycle {
            goAway.withUnsafeBytes { sink($0) }
            total += goAway.count
            lifecycle = .closed
        }
        return total
    }

    /// Resets (RST_STREAM CANCEL) every stream whose request has not fully arrived although
    /// it opened at or before `cutoff` (the clock of `receive(_:at:)`): a body that never
    /// ends, or a client that never finishes a body already answered. Returns how many.
    package func resetIncompleteRequests(openedAtOrBefore cutoff: UInt64) -> Int {
        var reset = 0
        var next = openList
        while let stream = next {
            next = stream.next
            guard stream.openedAt <= cutoff, stream.phase.timedOut() else { continue }
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_CANCEL.rawValue)
            reset += 1
        }
        return reset
    }

    /// Resets (RST_STREAM CANCEL) every stream whose answer was given but has not all gone
    /// out because the client's flow-control window (the stream's or the connection's) has
    /// been shut for `limit`, as seen by these calls at `now` (the caller's clock, as
    /// `receive(_:at:)`'s): a client that keeps its window shut would otherwise hold each
    /// answer, and its stream, for as long as it keeps the connection. Returns how many.
    package func resetStalledAnswers(at now: UInt64, after limit: UInt64) -> Int {
        var reset = 0
        var next = openList
        let connectionShut = nghttp2_session_get_remote_window_size(session) <= 0
        while let stream = next {
            next = stream.next
            let shut = connectionShut || nghttp2_session_get_stream_remote_window_size(session, stream.id) <= 0
            guard stream.phase.answerStalled(windowShut: shut, now: now, limit: limit) else { continue }
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_CANCEL.rawValue)
            reset += 1
        }
        return reset
    }

    /// Whether the client's preface (the magic, then a SETTINGS frame) has yet to arrive:
    /// until it does, the connection is still being set up.
    package var awaitsClientPreface: Bool { settingsReceived == 0 }

    /// Requests that arrived whole and wait for their answer: work on this side, so the
    /// connection is not idle while there are any.
    package var requestsAwaitingAnswer: Int {
        var count = 0
        var next = openList
        while let stream = next {
            if stream.phase.awaitsAnswer { count += 1 }
            next = stream.next
        }
        return count
    }

    /// Answers `streamID`. Ignored when the stream is gone or already answered.
    package func respond(streamID: Int32, response: H2Response) {
        guard let stream = stream(streamID) else { return }
        let body = stream.phase.isHeadRequest ? [] : response.body
        guard stream.phase.respond(body: body) else { return }
        let headers = response.headers
        let status = max(100, min(999, response.status))
        let result: Int32 = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { statusField in
            // ":status" then its three digits, on the stack.
            statusField.baseAddress!.initialize(from: Self.statusName.utf8Start, count: 7)
            statusField[7] = UInt8(48 + status / 100)
            statusField[8] = UInt8(48 + status / 10 % 10)
            statusField[9] = UInt8(48 + status % 10)
            return headers.storage.withUnsafeBufferPointer { storage in
                withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: headers.count + 1) { nva in
                    let base = UnsafeMutablePointer(mutating: storage.baseAddress ?? UnsafePointer(statusField.baseAddress!))
                    nva[0] = nghttp2_nv(
                        name: statusField.baseAddress!, value: statusField.baseAddress! + 7,
                        namelen: 7, valuelen: 3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                    for (index, entry) in headers.entries.enumerated() {
                        nva[index + 1] = nghttp2_nv(
                            name: base + Int(entry.nameStart), value: base + Int(entry.valueStart),
                            namelen: Int(entry.nameLength), valuelen: Int(entry.valueLength),
                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                    }
                    if body.isEmpty {
                        return nghttp2_submit_response(session, streamID, nva.baseAddress, nva.count, nil)
                    }
                    var provider = nghttp2_data_provider(
                        source: nghttp2_data_source(ptr: Unmanaged.passUnretained(stream).toOpaque()),
                        read_callback: { _, _, buffer, length, flags, source, _ in
                            let stream = Unmanaged<Stream>.fromOpaque(source!.pointee.ptr).takeUnretainedValue()
                            // No answer being sent (the stream was reset meanwhile): nghttp2 resets it.
                            guard let chunk = stream.phase.sendAnswer(into: buffer!, length: length) else {
                                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
                            }
                            if chunk.last { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
                            return chunk.count
                        })
                    return nghttp2_submit_response(session, streamID, nva.baseAddress, nva.count, &provider)
                }
            }
        }
        if result != 0 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
    }

    /// Graceful shutdown: GOAWAY with `{"reason":…}` naming the last stream taken (or
    /// `lastStreamID`); streams already open run to completion, then `isFinished` turns true.
    package func shutdown(reason: H2GoAwayReason = .apns(.shutdown), lastStreamID: Int32? = nil, detail: String? = nil) {
        guard lifecycle.isLive else { return }
        var data = H2GoAway.debugData(reason: reason, detail: detail)
        nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session),
            NGHTTP2_NO_ERROR.rawValue, &data, data.count)
    }

    /// Whether frames are queued for the peer.
    package var hasOutput: Bool {
        switch lifecycle {
        case .terminating: true
        case .closed: false
        case .starting, .open: nghttp2_session_want_write(session) != 0
        }
    }

    /// Ends the connection now: a GOAWAY with `{"reason":…}`, then nothing more.
    package func terminate(reason: H2GoAwayReason, errorCode: H2GoAwayReason.ErrorCode = .noError, detail: String? = nil) {
        guard lifecycle.isLive else { return }
        lifecycle = .terminating(
            goAway: H2GoAway.frame(
                lastStreamID: nghttp2_session_get_last_proc_stream_id(session), errorCode: errorCode.code,
                debugData: H2GoAway.debugData(reason: reason, detail: detail)))
    }

    // MARK: - nghttp2 callbacks

    private static let statusName: StaticString = ":status"

    /// Closed streams kept for reuse.
    static let spareStreamLimit = 64

    /// How much of a refused body is read and dropped before the stream is reset.
    static let discardLimit = 1 << 20

    /// Streams refused past the limit, with no request completing between them, before the
    /// connection is ended with ENHANCE_YOUR_CALM. A client that opened streams before our
    /// SETTINGS arrived is refused fewer than the limit once.
    package static func refusedPastLimitTolerance(_ limit: UInt32) -> Int { max(100, 2 * Int(limit)) }

    /// Runs `body` with the session behind nghttp2's user data. The session owns the
    /// nghttp2 session, so it outlives every callback: no retain/release per call (there
    /// are a dozen calls per request).
    private static func with<R>(_ user: UnsafeMutableRawPointer?, _ body: (H2ServerSession) -> R) -> R {
        Unmanaged<H2ServerSession>.fromOpaque(user!)._withUnsafeGuaranteedRef(body)
    }

    private func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        if openStreams >= Int(settings.maxConcurrentStreams) {
            // No Stream is kept, so the rest of its header block is ignored.
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), header.stream_id, NGHTTP2_REFUSED_STREAM.rawValue)
            refusedPastLimit += 1
            if refusedPastLimit > Self.refusedPastLimitTolerance(settings.maxConcurrentStreams) {
                // A client that keeps opening streams it was refused is flooding, not racing SETTINGS.
                terminate(
                    errorCode: .enhanceYourCalm,
                    detail: "too many streams past SETTINGS_MAX_CONCURRENT_STREAMS \(settings.maxConcurrentStreams)")
            }
            return 0
        }
        // A spare Stream's phase is `receiving` again, with its last request's buffers.
        let stream = spareStreams.popLast() ?? Stream()
        stream.id = header.stream_id
        stream.openedAt = receivingAt
        stream.next = openList
        openList?.previous = stream
        openList = stream
        nghttp2_session_set_stream_user_data(session, header.stream_id, Unmanaged.passUnretained(stream).toOpaque())
        openStreams += 1
        return 0
    }

    private func onStreamClose(_ streamID: Int32) -> Int32 {
        guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return 0 }
        nghttp2_session_set_stream_user_data(session, streamID, nil)
        let stream = Unmanaged<Stream>.fromOpaque(pointer).takeUnretainedValue()
        if let previous = stream.previous { previous.next = stream.next } else { openList = stream.next }
        stream.next?.previous = stream.previous
        stream.next = nil
        stream.previous = nil
        openStreams -= 1
        if spareStreams.count < Self.spareStreamLimit {
            stream.recycle()
            spareStreams.append(stream)
        }
        return 0
    }

    /// The Stream of an open request, if `streamID` is one.
    private func stream(_ streamID: Int32) -> Stream? {
        guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<Stream>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The first SETTINGS frame with MAX_CONCURRENT_STREAMS set to the configured value.
    private func patchSettings(_ frame: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = Array(frame)
        var offset = 9
        let limit = settings.maxConcurrentStreams
        while offset + 6 <= bytes.count {
            if bytes[offset] == 0, bytes[offset + 1] == UInt8(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                bytes[offset + 2] = UInt8(truncatingIfNeeded: limit >> 24)
                bytes[offset + 3] = UInt8(truncatingIfNeeded: limit >> 16)
                bytes[offset + 4] = UInt8(truncatingIfNeeded: limit >> 8)
                bytes[offset + 5] = UInt8(truncatingIfNeeded: limit)
            }
            offset += 6
        }
        return bytes
    }

    private func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard let pointer = nghttp2_session_get_stream_user_data(session, frame.pointee.hd.stream_id) else { return 0 }
        // The open-stream list owns the Stream for as long as nghttp2 knows it.
        let inTrailers = frame.pointee.headers.cat != NGHTTP2_HCAT_REQUEST
        let limit = Int(settings.maxHeaderListSize)
        Unmanaged<Stream>.fromOpaque(pointer)._withUnsafeGuaranteedRef {
            _ = $0.phase.headerField(name: name, value: value, inTrailers: inTrailers, limit: limit)
        }
        return 0
    }

    private func onData(streamID: Int32, _ data: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = stream(streamID) else { return 0 }
        switch stream.phase.data(data, limit: settings.maxBodySize, discardLimit: Self.discardLimit) {
        case .appended:
            break
        case .refuse(let problem, let request):
            refuse(request, streamID: streamID, problem: problem)
        case .drop:
            break
        case .dropAndStop:
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue)
        }
        return 0
    }

    private func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        let type = header.type
        if type == UInt8(NGHTTP2_SETTINGS.rawValue), header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
            settingsReceived &+= 1
            return 0
        }
        guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue), let stream = stream(header.stream_id) else {
            return 0
        }
        let verdict = stream.phase.frameEnded(
            endStream: header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, headerListLimit: Int(settings.maxHeaderListSize))
        switch verdict {
        case .none:
            break
        case .deliver(let request):
            refusedPastLimit = 0
            delegate?.session(self, didReceive: self.request(request, streamID: header.stream_id))
        case .refuse(let problem, let request):
            refuse(request, streamID: header.stream_id, problem: problem)
        }
        return 0
    }

    private func beforeFrameSend(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
        let goAway = frame.pointee.goaway
        let data = goAway.opaque_data.map { Array(UnsafeRawBufferPointer(start: $0, count: goAway.opaque_data_len)) } ?? []
        if APNsErrorBody(parsing: data) != nil { return 0 }  // ours, already in APNs' form
        let debug = String(decoding: data, as: UTF8.self)
        // nghttp2 ended the connection with a plain-text reason: send APNs' JSON form instead.
        var errorCode = goAway.error_code
        var detail = debug.isEmpty ? lastLibraryError : debug
        if errorCode == NGHTTP2_INTERNAL_ERROR.rawValue, debug.isEmpty, lastLibraryError == nil {
            // With nothing failed, this is nghttp2's rate limit on streams the client resets
            // (CVE-2023-44487, "rapid reset"): abuse, not our fault.
            errorCode = NGHTTP2_ENHANCE_YOUR_CALM.rawValue
            detail = "too many streams reset by the client"
        }
        lifecycle = .terminating(
            goAway: H2GoAway.frame(
                lastStreamID: goAway.last_stream_id, errorCode: errorCode,
                debugData: H2GoAway.debugData(reason: .errorCode(H2GoAwayReason.ErrorCode(code: errorCode)), detail: detail)))
        return NGHTTP2_ERR_CANCEL.rawValue
    }

    private func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let stream = stream(header.stream_id) else { return 0 }
        stream.phase.answerSent()
        return 0
    }

    /// Hands a refused request (its phase already `refused`) to the delegate to answer.
    private func refuse(_ request: H2StreamPhase.Request, streamID: Int32, problem: H2RequestProblem) {
        delegate?.session(self, didRefuse: self.request(request, streamID: streamID), problem: problem)
    }

    private func request(_ request: H2StreamPhase.Request, streamID: Int32) -> H2Request {
        H2Request(
            streamID: streamID, method: request.method ?? "", path: request.path ?? "",
            scheme: request.scheme, authority: request.authority, headers: request.headers,
            body: request.body, connection: connection)
    }

    private func fail(libraryError code: Int32) {
        guard lifecycle.isLive else { return }
        let detail = String(cString: nghttp2_strerror(code))
        let errorCode: H2GoAwayReason.ErrorCode
        switch code {
        case NGHTTP2_ERR_FLOODED.rawValue: errorCode = .enhanceYourCalm
        case NGHTTP2_ERR_NOMEM.rawValue, NGHTTP2_ERR_CALLBACK_FAILURE.rawValue: errorCode = .internalServerError
        default: errorCode = .protocolError
        }
        terminate(errorCode: errorCode, detail: detail)
    }

    /// Ends the connection with `errorCode`, its name as the reason.
    private func terminate(errorCode: H2GoAwayReason.ErrorCode, detail: String) {
        terminate(reason: .errorCode(errorCode), errorCode: errorCode, detail: detail)
    }
}

extension H2ServerSession {
    /// Where the connection stands.
    enum Lifecycle {
        /// Our SETTINGS frame has not gone out yet: it is patched as it does (`patchSettings`).
        case starting
        /// Reading and writing.
        case open
        /// A final GOAWAY, written by hand after the connection was given up, waits to be
        /// sent; nothing else is.
        case terminating(goAway: [UInt8])
        /// Nothing more is read or written.
        case closed

        /// Frames are still read and written.
        var isLive: Bool {
            switch self {
            case .starting, .open: true
            case .terminating, .closed: false
            }
        }
    }

    /// One open stream: where its request stands (`H2StreamPhase`, which holds the request and
    /// its answer) and its place in the session's list.
    ///
    /// Touched only on the connection's event loop, from nghttp2's callbacks one at a time,
    /// never with two accesses open at once, so the hot fields skip the dynamic exclusivity
    /// checks that would otherwise run on every header and frame.
    final class Stream {
        @exclusivity(unchecked) var next: Stream?
        unowned(unsafe) var previous: Stream?
        @exclusivity(unchecked) var id: Int32 = 0
        /// When its HEADERS arrived, on the clock of `receive(_:at:)`.
        @exclusivity(unchecked) var openedAt: UInt64 = 0
        @exclusivity(unchecked) var phase: H2StreamPhase

        init() {
            var request = H2StreamPhase.Request()
            request.headers.reserve(bytes: 512, fields: 12)
            phase = .receiving(request)
        }

        /// Ready for another request; its buffers keep their capacity unless a request still
        /// handed out shares them.
        func recycle() {
            id = 0
            openedAt = 0
            phase.recycle()
        }
    }
}
