/// Base64url (RFC 4648 §5) without padding, as JWTs use it.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values = Base64.valueTable(alphabet)

    /// Encodes `bytes` without padding.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        Base64.encode(bytes, alphabet: alphabet, padded: false)
    }

    /// Decodes unpadded base64url (trailing `=` tolerated); nil on any other character or an
    /// impossible length.
    public static func decode<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        var count = 0
        var padding = false
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding = true
                continue
            }
            guard !padding else { return nil }
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            count += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        guard count % 4 != 1 else { return nil }
        return out
    }
}
