extension PushStore {
    /// The `apns_key` column of push `pushID`, which indexes it by apns-id; nil when its
    /// apns-id carries its id (`pushID(in:)`), which finds it without an index entry.
    static func indexedAPNsKey(_ apnsID: String, pushID: UInt64) -> Int64? {
        Self.pushID(in: apnsID) == pushID ? nil : apnsKey(apnsID)
    }

    /// An apns-id's key: the UUID's last 16 hex digits as a number, else (an id that is not
    /// a UUID) an FNV-1a hash of its bytes. Lookups compare the text too, so ids that share
    /// a key are still told apart; 8 bytes instead of 36 take a quarter of the index pages.
    static func apnsKey(_ apnsID: String) -> Int64 {
        let (low, hash) = parse(apnsID)
        return Int64(bitPattern: low ?? hash)
    }

    /// The push id an apns-id carries, when it is a UUID: its last 62 bits, where the ids
    /// the receiver makes carry it (`APNsIDGenerator`). The caller checks the row's apns-id.
    static func pushID(in apnsID: String) -> UInt64? {
        parse(apnsID).low.map { $0 & 0x3FFF_FFFF_FFFF_FFFF }
    }

    /// The UUID's last 64 bits, or an FNV-1a hash of what is not a UUID.
    private static func parse(_ apnsID: String) -> (low: UInt64?, hash: UInt64) {
        var text = apnsID
        return text.withUTF8 { bytes in
            if bytes.count == 36, bytes[23] == UInt8(ascii: "-"), let high = hexValue(bytes, 19..<23), let rest = hexValue(bytes, 24..<36) {
                return (high << 48 | rest, 0)
            }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return (nil, hash)
        }
    }

    private static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        for index in range {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
