/// Base64 (RFC 4648 §4) with padding, as APNs writes channel ids.
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values = valueTable(alphabet)

    /// Encodes `bytes`, padded with `=` to a multiple of four characters.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        encode(bytes, alphabet: alphabet, padded: true)
    }

    /// Encodes `bytes` six bits a character in `alphabet` (64 entries), padded or not: the
    /// encoder of both this form and `Base64URL`.
    static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes, alphabet: [UInt8], padded: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(buffer >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(6 - bits) & 0x3F)]) }
        while padded, out.count % 4 != 0 { out.append(UInt8(ascii: "=")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each byte's six-bit value in `alphabet`; 0xFF for a byte outside it.
    static func valueTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }

    /// Decodes canonical padded base64; nil on a character outside the alphabet, a length
    /// that is not a multiple of four, padding anywhere but at the end, or bits left over
    /// that a canonical encoder would have written as zero.
    public static func decode<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { return nil }
                continue
            }
            guard padding == 0 else { return nil }
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Two characters carry one byte (4 bits spare), three carry two (2 spare).
        guard bits == padding * 2, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
