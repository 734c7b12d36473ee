import SilentPushCore

extension PushStore {
    /// The `apns_key` column of push `pushID`, which indexes it by apns-id; nil when its
    /// apns-id carries its id (see `apnsKey`), which finds it without an index entry.
    static func indexedAPNsKey(_ apnsID: String, pushID: UInt64) -> Int64? {
        let key = apnsKey(apnsID)
        return key.pushID == pushID ? nil : key.value
    }

    /// An apns-id's key: the UUID's last 16 hex digits as a number, else (an id that is not
    /// a UUID) an FNV-1a hash of its bytes. Lookups compare the text too, so ids that share
    /// a key are still told apart; 8 bytes instead of 36 take a quarter of the index pages.
    ///
    /// `pushID` is the push id a UUID carries, its last 62 bits, where the ids the receiver
    /// makes carry it (`APNsIDGenerator`); the caller checks the row's apns-id.
    static func apnsKey(_ apnsID: String) -> (value: Int64, pushID: UInt64?) {
        var text = apnsID
        return text.withUTF8 { bytes in
            if bytes.count == 36, bytes[23] == UInt8(ascii: "-"), let high = hexValue(bytes, 19..<23), let rest = hexValue(bytes, 24..<36) {
                let low = high << 48 | rest
                return (Int64(bitPattern: low), low & 0x3FFF_FFFF_FFFF_FFFF)
            }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return (Int64(bitPattern: hash), nil)
        }
    }

    private static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        for index in range {
            guard let digit = HexDigit.value(bytes[index]) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
