/// A raw HTTP/2 frame, for tests that speak the wire format directly (malformed input,
/// stream limits) where a well-behaved client library would refuse to.
public struct H2Frame: Equatable, Sendable, CustomStringConvertible {
    /// Frame types of RFC 9113 §6.
    public enum Kind: UInt8, Sendable {
        case data = 0, headers = 1, priority = 2, rstStream = 3, settings = 4, pushPromise = 5
        case ping = 6, goAway = 7, windowUpdate = 8, continuation = 9
    }

    /// Frame flags used by the builders.
    public enum Flag {
        public static let endStream: UInt8 = 0x1
        public static let ack: UInt8 = 0x1
        public static let endHeaders: UInt8 = 0x4
    }

    /// The type byte (unknown types kept as they came).
    public var type: UInt8
    /// The flags byte.
    public var flags: UInt8
    /// The stream identifier.
    public var streamID: UInt32
    /// The payload.
    public var payload: [UInt8]

    /// A frame.
    public init(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8] = []) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    /// A frame of a known type.
    public init(_ kind: Kind, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8] = []) {
        self.init(type: kind.rawValue, flags: flags, streamID: streamID, payload: payload)
    }

    /// The known type, if it is one.
    public var kind: Kind? { Kind(rawValue: type) }

    /// The wire bytes: 9-byte header then payload.
    public var bytes: [UInt8] {
        let length = payload.count
        return [
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            type, flags,
        ] + Self.be32(streamID & 0x7fff_ffff) + payload
    }

    /// RST_STREAM or GOAWAY error code.
    public var errorCode: UInt32? {
        switch kind {
        case .rstStream where payload.count >= 4: return Self.readBE32(payload, at: 0)
        case .goAway where payload.count >= 8: return Self.readBE32(payload, at: 4)
        default: return nil
        }
    }

    /// GOAWAY's last stream id.
    public var lastStreamID: UInt32? {
        kind == .goAway && payload.count >= 8 ? Self.readBE32(payload, at: 0) & 0x7fff_ffff : nil
    }

    /// GOAWAY's debug data, as text.
    public var debugData: String? {
        kind == .goAway && payload.count >= 8 ? String(decoding: payload[8...], as: UTF8.self) : nil
    }

    public var description: String {
        let name = kind.map { "\($0)" } ?? "type\(type)"
        var text = "\(name)(stream \(streamID), flags 0x\(String(flags, radix: 16)), \(payload.count) bytes"
        if let errorCode { text += ", error \(errorCode)" }
        if let debugData { text += ", debug \(debugData)" }
        return text + ")"
    }

    // MARK: Builders

    /// The client connection preface.
    public static let clientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// SETTINGS with the given (id, value) pairs.
    public static func settings(_ entries: [(UInt16, UInt32)] = []) -> H2Frame {
        H2Frame(.settings, streamID: 0, payload: entries.flatMap { [UInt8($0.0 >> 8), UInt8($0.0 & 0xff)] + be32($0.1) })
    }

    /// SETTINGS ACK.
    public static let settingsAck = H2Frame(.settings, flags: Flag.ack, streamID: 0)

    /// HEADERS with every field as an HPACK literal without indexing (no Huffman), so a
    /// test needs no encoder state.
    public static func headers(streamID: UInt32, _ fields: [(String, String)], endStream: Bool) -> H2Frame {
        var block: [UInt8] = []
        for (name, value) in fields {
            block.append(0x00)
            block += hpackLength(name.utf8.count) + Array(name.utf8)
            block += hpackLength(value.utf8.count) + Array(value.utf8)
        }
        return H2Frame(.headers, flags: Flag.endHeaders | (endStream ? Flag.endStream : 0), streamID: streamID, payload: block)
    }

    /// The pseudo-headers and fields of a POST to `path`.
    public static func post(
        streamID: UInt32, path: String, authority: String = "localhost", extra: [(String, String)] = [], endStream: Bool
    ) -> H2Frame {
        headers(
            streamID: streamID, [(":method", "POST"), (":scheme", "https"), (":authority", authority), (":path", path)] + extra, endStream: endStream)
    }

    /// DATA.
    public static func data(streamID: UInt32, _ bytes: [UInt8], endStream: Bool) -> H2Frame {
        H2Frame(.data, flags: endStream ? Flag.endStream : 0, streamID: streamID, payload: bytes)
    }

    /// Parses every whole frame at the start of `bytes`; returns them and the bytes used.
    public static func parse(_ bytes: [UInt8]) -> (frames: [H2Frame], consumed: Int) {
        var frames: [H2Frame] = []
        var offset = 0
        while bytes.count - offset >= 9 {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard bytes.count - offset >= 9 + length else { break }
            frames.append(
                H2Frame(
                    type: bytes[offset + 3], flags: bytes[offset + 4],
                    streamID: readBE32(bytes, at: offset + 5) & 0x7fff_ffff,
                    payload: Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return (frames, offset)
    }

    private static func hpackLength(_ length: Int) -> [UInt8] {
        // 7-bit prefix integer (RFC 7541 §5.1), Huffman bit clear.
        if length < 127 { return [UInt8(length)] }
        var rest = length - 127
        var out: [UInt8] = [127]
        while rest >= 128 {
            out.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        out.append(UInt8(rest))
        return out
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    static func readBE32<C: Collection<UInt8>>(_ bytes: C, at offset: Int) -> UInt32 where C.Index == Int {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
