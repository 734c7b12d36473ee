/// A device token as the receiver's tables key it: a 64-digit lower-case token (the usual
/// shape, and how the validator leaves every accepted token) as its 32 bytes, held inline;
/// any other text as it is.
///
/// The wake policy holds one app per device and topic for as long as the receiver runs; held
/// as a 64-character string, each device's token was a heap object of 112 bytes, most of an
/// idle app's memory (docs/benchmarks.md). Two keys are equal exactly when their texts are.
package struct DeviceKey: Hashable, Sendable, CustomStringConvertible {
    /// How the token is held; only `init(_:)` makes one, so equal texts have equal storage.
    @usableFromInline enum Storage: Hashable, Sendable {
        /// A 64-digit lower-case hex token, its digits 16 to a word, first digit highest.
        case digits(UInt64, UInt64, UInt64, UInt64)
        /// Any other token, as it was given.
        case text(String)
    }

    @usableFromInline let storage: Storage

    /// `token`'s key.
    @inlinable package init(_ token: String) {
        var token = token
        storage = token.withUTF8(Self.digits(of:)) ?? .text(token)
    }

    /// The token's text: what `init(_:)` was given.
    package var text: String {
        switch storage {
        case .text(let text): return text
        case .digits(let first, let second, let third, let fourth):
            return String(unsafeUninitializedCapacity: 64) { buffer in
                func put(_ word: UInt64, at start: Int) {
                    for nibble in 0..<16 {
                        let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0xF
                        buffer[start + nibble] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
                    }
                }
                put(first, at: 0)
                put(second, at: 16)
                put(third, at: 32)
                put(fourth, at: 48)
                return 64
            }
        }
    }

    package var description: String { text }

    /// The four words of 64 lower-case hex digits; nil for any other bytes. Eight bytes at a
    /// time and without a branch on each: a token's digits are random, and a branch on each
    /// would mispredict half the time.
    @inlinable static func digits(of bytes: UnsafeBufferPointer<UInt8>) -> Storage? {
        guard bytes.count == 64, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        var invalid: UInt64 = 0
        /// The eight digits at `offset` as 32 bits, the first digit highest.
        func digits(at offset: Int) -> UInt64 {
            let text = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            // Each byte's value: its low four bits, plus 9 for a letter (bit 6 set).
            let values = (text & (ones &* 0x0F)) &+ ((text >> 6) & ones) &* 9
            // A digit only if its value is under 16 and spells its byte again: `g` gives 16.
            let letters = ((values &+ ones &* 6) >> 4) & ones
            let spelled = values &+ ones &* 0x30 &+ letters &* 39
            invalid |= ((values &+ ones &* 0x70) & (ones &* 0x80)) | (spelled ^ text)
            // Each pair of digits as a byte, at bytes 0, 2, 4 and 6.
            let pairs = ((values << 4) | (values >> 8)) & 0x00FF_00FF_00FF_00FF
            return (pairs & 0xFF) << 24 | (pairs >> 16 & 0xFF) << 16 | (pairs >> 32 & 0xFF) << 8 | (pairs >> 48 & 0xFF)
        }
        let words = (
            digits(at: 0) << 32 | digits(at: 8), digits(at: 16) << 32 | digits(at: 24), digits(at: 32) << 32 | digits(at: 40),
            digits(at: 48) << 32 | digits(at: 56)
        )
        return invalid == 0 ? .digits(words.0, words.1, words.2, words.3) : nil
    }
}
