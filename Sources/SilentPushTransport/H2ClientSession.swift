import CNghttp2

/// One client-side HTTP/2 connection on nghttp2: requests in, bytes out; bytes in,
/// responses out. nghttp2 holds requests past the server's MAX_CONCURRENT_STREAMS until a
/// stream frees up, so callers may submit as many as they like. Not thread-safe.
package final class H2ClientSession {
    /// Called once per request, with its response or the reason there is none.
    package typealias Completion = (Result<H2Response, H2ClientError>) -> Void

    private let session: OpaquePointer
    /// Waiting for the server's SETTINGS (with the requests held), open (with the streams
    /// sent), going away (the server's GOAWAY received), or closed.
    private var state = State.awaitingSettings([])

    /// The GOAWAY received, if any.
    package var goAway: H2GoAwayInfo? { state.goAway }

    /// A session that has queued the client preface and its SETTINGS.
    package init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            H2ClientSession.from(user).onHeader(
                frame!, name: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength))
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            H2ClientSession.from(user).state.stream(streamID)?.response.appendBody(UnsafeRawBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            H2ClientSession.from(user).onFrameReceived(frame!)
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            H2ClientSession.from(user).onStreamClose(streamID, errorCode: errorCode)
        }
        var made: OpaquePointer?
        nghttp2_session_client_new(&made, callbacks, nil)
        // Only an allocation failure leaves it nil, which Swift would not survive either.
        session = made!
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// Requests submitted and not yet completed.
    package var pendingCount: Int {
        switch state {
        case .awaitingSettings(let held): held.count
        case .open(let streams), .goingAway(let streams, _): streams.count
        case .closed: 0
        }
    }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (2^32-1 until it says).
    package var remoteMaxConcurrentStreams: UInt32 {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
    }

    /// True once nothing more will be read or written.
    package var isFinished: Bool {
        if case .closed = state { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Queues `request`; `completion` runs from inside `receive` (or `close`).
    /// `request.scheme` and `request.authority` are sent as the pseudo-headers.
    package func submit(_ request: H2Request, completion: @escaping Completion) {
        let stream = Stream(completion: completion, request: request)
        switch state.submit(stream) {
        case .held: break
        case .start: start(stream)
        case .closed: completion(.failure(.notProcessed(reason: goAway?.debugData)))
        }
    }

    /// How often a request refused with REFUSED_STREAM (never processed) is sent again.
    static let refusedRetries = 5

    private func start(_ stream: Stream) {
        let request = stream.request
        stream.requestOffset = 0
        var fields = H2HeaderList()
        fields.append(name: ":method", value: request.method)
        fields.append(name: ":scheme", value: request.scheme ?? "https")
        fields.append(name: ":authority", value: request.authority ?? "localhost")
        fields.append(name: ":path", value: request.path)
        request.headers.forEachRaw { fields.append(name: $0, value: $1) }

        let streamID: Int32 = fields.storage.withUnsafeBufferPointer { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count) { nva in
                let base = UnsafeMutablePointer(mutating: storage.baseAddress!)
                for (index, entry) in fields.entries.enumerated() {
                    nva[index] = nghttp2_nv(
                        name: base + Int(entry.nameStart), value: base + Int(entry.valueStart),
                        namelen: Int(entry.nameLength), valuelen: Int(entry.valueLength),
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                if request.body.isEmpty {
                    return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, nil, nil)
                }
                var provider = nghttp2_data_provider(
                    source: nghttp2_data_source(ptr: Unmanaged.passUnretained(stream).toOpaque()),
                    read_callback: { _, _, buffer, length, flags, source, _ in
                        let stream = Unmanaged<Stream>.fromOpaque(source!.pointee.ptr).takeUnretainedValue()
                        let count = min(length, stream.request.body.count - stream.requestOffset)
                        stream.request.body.withUnsafeBytes {
                            UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress! + stream.requestOffset, byteCount: count)
                        }
                        stream.requestOffset += count
                        if stream.requestOffset == stream.request.body.count {
                            flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                        }
                        return count
                    })
                return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, &provider, nil)
            }
        }
        if streamID < 0 {
            stream.completion(.failure(.submitFailed(String(cString: nghttp2_strerror(streamID)))))
            return
        }
        state.sent(stream, streamID: streamID)
    }

    /// Feeds bytes from the server.
    package func receive(_ bytes: UnsafeRawBufferPointer) {
        guard state.isLive, let base = bytes.baseAddress else { return }
        let result = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 { close(reason: String(cString: nghttp2_strerror(Int32(result)))) }
    }

    /// Hands every byte ready for the server to `sink`, stopping once `limit` bytes were given.
    @discardableResult
    package func drainOutput(limit: Int = .max, _ sink: (UnsafeRawBufferPointer) -> Void) -> Int {
        var total = 0
        while total < limit, state.isLive {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                close(reason: String(cString: nghttp2_strerror(Int32(count))))
                break
            }
            if count == 0 { break }
            sink(UnsafeRawBufferPointer(start: data, count: count))
            total += count
        }
        return total
    }

    /// Fails every open request: the connection is gone. Those the server cannot have
    /// processed (held, or past its GOAWAY's last stream) say so.
    package func close(reason: String?) {
        guard let (open, goAway) = state.close() else { return }
        let reason = reason ?? goAway?.debugData
        for (streamID, stream) in open {
            if let streamID, goAway.map({ streamID <= $0.lastStreamID }) ?? true {
                stream.completion(.failure(.connectionClosed(reason: reason)))
            } else {
                stream.completion(.failure(.notProcessed(reason: reason)))
            }
        }
    }

    // MARK: - nghttp2 callbacks

    private static func from(_ user: UnsafeMutableRawPointer?) -> H2ClientSession {
        Unmanaged<H2ClientSession>.fromOpaque(user!).takeUnretainedValue()
    }

    private func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard frame.pointee.headers.cat == NGHTTP2_HCAT_RESPONSE, let stream = state.stream(frame.pointee.hd.stream_id) else { return 0 }
        if name.elementsEqual(":status".utf8) {
            // Three digits (nghttp2 checks a response's too); anything else reads as 0.
            stream.response = .arriving(
                status: value.count == 3 && value.allSatisfy({ (0x30...0x39).contains($0) }) ? value.reduce(0) { $0 * 10 + Int($1) - 48 } : 0,
                headers: H2HeaderList(), body: [])
        } else if name.first != UInt8(ascii: ":") {
            stream.response.appendHeader(name: name, value: value)
        }
        return 0
    }

    private func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if frame.pointee.hd.type == UInt8(NGHTTP2_SETTINGS.rawValue) {
            for stream in state.settingsReceived() { start(stream) }
        }
        guard frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
        let frame = frame.pointee.goaway
        let goAway = H2GoAwayInfo(
            lastStreamID: frame.last_stream_id, errorCode: frame.error_code,
            debugData: frame.opaque_data.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: frame.opaque_data_len), as: UTF8.self) }
                ?? "")
        state.goAwayReceived(goAway)
        return 0
    }

    private func onStreamClose(_ streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let stream = state.streamClosed(streamID) else { return 0 }
        switch stream.response {
        case .awaitingHeaders where errorCode == NGHTTP2_REFUSED_STREAM.rawValue && state.goAway != nil:
            // Past the server's GOAWAY: never processed, and this connection takes no more.
            stream.completion(.failure(.notProcessed(reason: state.goAway?.debugData)))
        case .awaitingHeaders where errorCode == NGHTTP2_REFUSED_STREAM.rawValue && stream.attempts < Self.refusedRetries && state.isLive:
            // Never processed: sent again, from its first byte.
            stream.attempts += 1
            start(stream)
        case .arriving(let status, let headers, let body) where errorCode == NGHTTP2_NO_ERROR.rawValue:
            // A response already complete counts even if a RST_STREAM(NO_ERROR) follows it.
            stream.completion(.success(H2Response(status: status, headers: headers, body: body)))
        case .awaitingHeaders, .arriving:
            stream.completion(.failure(.streamReset(errorCode: errorCode)))
        }
        return 0
    }
}

extension H2ClientSession {
    /// Where the session stands; each case holds only its own requests.
    enum State {
        /// Until the server's first SETTINGS: requests wait here, so none is sent past a
        /// stream limit the client does not know yet.
        case awaitingSettings([Stream])
        /// Requests go to nghttp2 as they come; these were sent and are not answered yet.
        case open([Int32: Stream])
        /// The server sent GOAWAY (this one, the latest): it answers the streams up to its
        /// last; these were sent and are not answered yet.
        case goingAway([Int32: Stream], H2GoAwayInfo)
        /// Every request failed; nothing more is read or written. The GOAWAY that came
        /// before, if one did.
        case closed(H2GoAwayInfo?)

        /// What to do with a request submitted.
        enum Submission {
            /// Held until the server's SETTINGS.
            case held
            /// Send it now.
            case start
            /// Fail it as never processed: the session is closed, or the server said GOAWAY.
            case closed
        }

        /// Frames are still read and written.
        var isLive: Bool {
            if case .closed = self { return false }
            return true
        }

        /// The GOAWAY the server sent, if it did.
        var goAway: H2GoAwayInfo? {
            switch self {
            case .goingAway(_, let goAway): goAway
            case .closed(let goAway): goAway
            case .awaitingSettings, .open: nil
            }
        }

        mutating func submit(_ stream: Stream) -> Submission {
            switch consume self {
            case .awaitingSettings(var held):
                held.append(stream)
                self = .awaitingSettings(held)
                return .held
            case .open(let streams):
                self = .open(streams)
                return .start
            case .goingAway(let streams, let goAway):
                // The server takes no stream past its GOAWAY's last.
                self = .goingAway(streams, goAway)
                return .closed
            case .closed(let goAway):
                self = .closed(goAway)
                return .closed
            }
        }

        /// The server sent GOAWAY `goAway` (nghttp2 reads none before the server's SETTINGS:
        /// a server that starts with anything else ends the session).
        mutating func goAwayReceived(_ goAway: H2GoAwayInfo) {
            switch consume self {
            case .open(let streams), .goingAway(let streams, _):
                self = .goingAway(streams, goAway)
            case let other:
                self = other
            }
        }

        /// The server's SETTINGS arrived. Returns the requests held, to send now.
        mutating func settingsReceived() -> [Stream] {
            switch consume self {
            case .awaitingSettings(let held):
                self = .open([:])
                return held
            case let other:
                self = other
                return []
            }
        }

        /// `stream` went to nghttp2 as `streamID`.
        mutating func sent(_ stream: Stream, streamID: Int32) {
            switch consume self {
            case .open(var streams):
                streams[streamID] = stream
                self = .open(streams)
            case .goingAway(var streams, let goAway):
                streams[streamID] = stream
                self = .goingAway(streams, goAway)
            case let other:
                // Only a session that is open sends (a retry is sent before the stream leaves `open`).
                self = other
            }
        }

        /// The request sent as `streamID`, while it is open.
        func stream(_ streamID: Int32) -> Stream? {
            switch self {
            case .open(let streams), .goingAway(let streams, _): streams[streamID]
            case .awaitingSettings, .closed: nil
            }
        }

        /// `streamID` closed. Returns its request, if it had one.
        mutating func streamClosed(_ streamID: Int32) -> Stream? {
            switch consume self {
            case .open(var streams):
                let stream = streams.removeValue(forKey: streamID)
                self = .open(streams)
                return stream
            case .goingAway(var streams, let goAway):
                let stream = streams.removeValue(forKey: streamID)
                self = .goingAway(streams, goAway)
                return stream
            case let other:
                self = other
                return nil
            }
        }

        /// The connection is gone. Returns the requests to fail, each with its stream (sent
        /// ones by stream; nil for those held), and the GOAWAY that came before, if any; nil
        /// when it was closed already.
        mutating func close() -> (streams: [(Int32?, Stream)], goAway: H2GoAwayInfo?)? {
            switch consume self {
            case .awaitingSettings(let held):
                self = .closed(nil)
                return (held.map { (nil, $0) }, nil)
            case .open(let streams):
                self = .closed(nil)
                return (Self.ordered(streams), nil)
            case .goingAway(let streams, let goAway):
                self = .closed(goAway)
                return (Self.ordered(streams), goAway)
            case .closed(let goAway):
                self = .closed(goAway)
                return nil
            }
        }

        private static func ordered(_ streams: [Int32: Stream]) -> [(Int32?, Stream)] {
            streams.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) }
        }
    }

    /// One request and where its response stands. A class: nghttp2's data provider reads
    /// the request's body through a pointer to it.
    final class Stream {
        let completion: Completion
        let request: H2Request
        /// How much of the body nghttp2 has read (from 0 again on each attempt).
        var requestOffset = 0
        /// How often it was sent again after REFUSED_STREAM.
        var attempts = 0
        var response = Response.awaitingHeaders

        init(completion: @escaping Completion, request: H2Request) {
            self.completion = completion
            self.request = request
        }
    }

    /// A response as it arrives: nothing yet, or its status with the headers and body so far.
    enum Response {
        case awaitingHeaders
        case arriving(status: Int, headers: H2HeaderList, body: [UInt8])

        /// A header after the status; none before it (nghttp2 puts pseudo-headers first).
        mutating func appendHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            guard case .arriving(let status, var headers, let body) = self else { return }
            self = .awaitingHeaders  // so the list is not shared while it grows
            headers.append(name: name, value: value)
            self = .arriving(status: status, headers: headers, body: body)
        }

        /// Body bytes; none before the status.
        mutating func appendBody(_ bytes: UnsafeRawBufferPointer) {
            guard case .arriving(let status, let headers, var body) = self else { return }
            self = .awaitingHeaders  // so the body is not shared while it grows
            body.appendBytes(bytes)
            self = .arriving(status: status, headers: headers, body: body)
        }
    }
}
