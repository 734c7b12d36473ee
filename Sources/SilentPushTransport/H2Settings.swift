import SilentPushCore

/// The HTTP/2 limits a server announces and enforces.
package struct H2Settings: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS; a stream past it gets RST_STREAM REFUSED_STREAM.
    package var maxConcurrentStreams: UInt32
    /// SETTINGS_MAX_HEADER_LIST_SIZE, counted as HPACK does (name + value + 32 per field).
    package var maxHeaderListSize: UInt32
    /// The largest request body accepted; a larger one is refused while it streams in.
    package var maxBodySize: Int

    /// APNs' values: 1000 streams, 8000 bytes of headers; bodies up to 5120 bytes (VoIP's cap).
    package init(maxConcurrentStreams: UInt32 = 1000, maxHeaderListSize: UInt32 = 8000, maxBodySize: Int = APNsPushType.largestPayloadSize) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxHeaderListSize = maxHeaderListSize
        self.maxBodySize = maxBodySize
    }
}
