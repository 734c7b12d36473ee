import Synchronization

/// Makes `apns-id`s as APNs does when the provider sends none: upper-case UUIDs (version 4
/// layout).
///
/// Unique within the process by construction (a counter), unpredictable across processes
/// (a random key), and cheap: no system call and no lock per id, since the receiver makes
/// one for every request that lacks one.
public final class APNsIDGenerator: Sendable {
    private let counter = Atomic<UInt64>(0)
    private let key: (UInt64, UInt64)

    /// A generator keyed from the system's random source.
    public init() {
        var random = SystemRandomNumberGenerator()
        key = (random.next(), random.next())
    }

    /// A generator with a fixed key, for reproducible tests.
    public init(key: (UInt64, UInt64)) {
        self.key = key
    }

    /// The next id, e.g. `4F3A9C1E-7B2D-4E8F-9A6B-1C2D3E4F5A6B`.
    public func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        // splitmix64 is a bijection of its input, so distinct counters give distinct high
        // halves: no two ids of one generator are equal.
        var high = Self.mix(n &+ key.0)
        var low = Self.mix(n ^ key.1)
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        return Self.format(high, low)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func format(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            hexDigits.withUnsafeBufferPointer { digits in
                for index in 0..<32 {
                    if index == 8 || index == 12 || index == 16 || index == 20 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let word = index < 16 ? high : low
                    let shift = UInt64(60 - (index % 16) * 4)
                    out[position] = digits[Int((word >> shift) & 0xF)]
                    position += 1
                }
            }
            return position
        }
    }
}
