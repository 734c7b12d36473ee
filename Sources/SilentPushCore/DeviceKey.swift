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

    /// The four words of 64 lower-case hex digits; nil for any other bytes.
    @inlinable static func digits(of bytes: UnsafeBufferPointer<UInt8>) -> Storage? {
        guard bytes.count == 64 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for index in 0..<4 {
            var word: UInt64 = 0
            for offset in index * 16..<index * 16 + 16 {
                let byte = bytes[offset]
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
                default: return nil
                }
                word = word << 4 | UInt64(value)
            }
            switch index {
            case 0: words.0 = word
            case 1: words.1 = word
            case 2: words.2 = word
            default: words.3 = word
            }
        }
        return .digits(words.0, words.1, words.2, words.3)
    }
}
