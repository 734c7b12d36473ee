import Synchronization

/// Makes `apns-id`s as APNs does when the provider sends none: upper-case UUIDs (version 4
/// layout).
///
/// The first half is random per generator, so ids differ across processes; the second half
/// counts, so one generator's ids are unique by construction and ascend. Ascending ids are
/// appended to the store's `apns_id` index instead of landing on a random page of it (one
/// page written per push). Cheap: no system call and no lock per id, since the receiver
/// makes one for every request that lacks one.
public final class APNsIDGenerator: Sendable {
    private let counter = Atomic<UInt64>(0)
    private let high: UInt64
    private let start: UInt64

    /// A generator keyed from the system's random source.
    public convenience init() {
        var random = SystemRandomNumberGenerator()
        self.init(key: (random.next(), random.next()))
    }

    /// A generator with a fixed key, for reproducible tests.
    public init(key: (UInt64, UInt64)) {
        high = (Self.mix(key.0) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        // Counting starts at a random point of the lower 32 bits, far below overflow.
        start = Self.mix(key.1) & 0xFFFF_FFFF
    }

    /// The next id, e.g. `4F3A9C1E-7B2D-4E8F-8000-00001C2D3E4F`.
    public func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        let low = ((start &+ n) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        return Self.format(high, low)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Each byte's two upper-case hex digits, as one UInt16 in memory order.
    private static let hexPairs: [UInt16] = (0..<256).map { byte in
        let digits = Array("0123456789ABCDEF".utf8)
        return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xF]) << 8
    }

    private static func format(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            hexPairs.withUnsafeBufferPointer { pairs in
                let raw = UnsafeMutableRawPointer(out.baseAddress!)
                var position = 0
                // Byte index → dash before it: 8-4-4-4-12 digits.
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let word = index < 8 ? high : low
                    let byte = Int((word >> UInt64(56 - (index % 8) * 8)) & 0xFF)
                    raw.storeBytes(of: pairs[byte], toByteOffset: position, as: UInt16.self)
                    position += 2
                }
                return position
            }
        }
    }
}
