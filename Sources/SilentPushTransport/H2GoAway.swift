import SilentPushCore

/// Builds GOAWAY frames whose debug data is `{"reason":"…"}`, as APNs sends them.
package enum H2GoAway {
    /// The JSON debug data for `reason`, with an optional human-readable `detail`.
    package static func debugData(reason: String, detail: String? = nil) -> [UInt8] {
        APNsErrorBody(reason: reason, detail: detail).bytes
    }

    /// A whole GOAWAY frame, for when nghttp2 can no longer send one itself.
    package static func frame(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) -> [UInt8] {
        let length = 8 + debugData.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(9 + length)
        bytes += [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        bytes += [0x07, 0x00, 0, 0, 0, 0]  // type GOAWAY, no flags, stream 0
        let last = UInt32(bitPattern: lastStreamID) & 0x7fff_ffff
        bytes += [
            UInt8(truncatingIfNeeded: last >> 24), UInt8(truncatingIfNeeded: last >> 16), UInt8(truncatingIfNeeded: last >> 8),
            UInt8(truncatingIfNeeded: last),
        ]
        bytes += [
            UInt8(truncatingIfNeeded: errorCode >> 24), UInt8(truncatingIfNeeded: errorCode >> 16), UInt8(truncatingIfNeeded: errorCode >> 8),
            UInt8(truncatingIfNeeded: errorCode),
        ]
        bytes += debugData
        return bytes
    }

    /// RFC 9113 §7 error-code names, in the UpperCamelCase of APNs' reasons.
    package static func reason(forErrorCode code: UInt32) -> String {
        switch code {
        case 0x0: return "NoError"
        case 0x1: return "ProtocolError"
        case 0x2: return "InternalServerError"
        case 0x3: return "FlowControlError"
        case 0x4: return "SettingsTimeout"
        case 0x5: return "StreamClosed"
        case 0x6: return "FrameSizeError"
        case 0x7: return "RefusedStream"
        case 0x8: return "Cancel"
        case 0x9: return "CompressionError"
        case 0xa: return "ConnectError"
        case 0xb: return "EnhanceYourCalm"
        case 0xc: return "InadequateSecurity"
        case 0xd: return "HTTP11Required"
        default: return "ProtocolError"
        }
    }
}
