import SilentPushCore

/// Builds GOAWAY frames whose debug data is `{"reason":"…"}`, as APNs sends them.
package enum H2GoAway {
    /// The JSON debug data for `reason`, with an optional human-readable `detail`.
    package static func debugData(reason: H2GoAwayReason, detail: String? = nil) -> [UInt8] {
        APNsErrorBody(reason: reason.description, detail: detail).bytes
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
}
