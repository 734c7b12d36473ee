/// Makes `apns-id`s as APNs does when the provider sends none: upper-case UUIDs (version 4
/// layout).
///
/// The first half is random per generator, so ids differ across processes. The second
/// half carries the push's id in the store (`10` variant bits, then the id's low 62 bits):
/// ids are unique because push ids are, and the store finds such a push by its id alone,
/// with no index entry to keep up on every push.
/// Cheap: no system call and no lock, since the receiver makes one for most requests.
public struct APNsIDGenerator: Sendable {
    private let high: UInt64

    /// A generator keyed from the system's random source.
    public init() {
        var random = SystemRandomNumberGenerator()
        self.init(key: random.next())
    }

    /// A generator with a fixed key, for reproducible tests.
    public init(key: UInt64) {
        high = (Self.mix(key) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
    }

    /// The apns-id of the push the store knows as `pushID`, e.g.
    /// `4F3A9C1E-7B2D-4E8F-8000-00000000002A` for push 42.
    public func apnsID(pushID: UInt64) -> String {
        Self.format(high, (pushID & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)  // RFC 4122 variant
    }

    /// The `apns-unique-id` APNs answers in the development environment for the push the store
    /// knows as `pushID`, sent with `apnsID`: a lower-case UUID whose second half carries the
    /// push's id, as a generated apns-id does, and whose first half follows from the apns-id,
    /// so the store can check a unique id it is asked for with nothing stored beside the push.
    public static func uniqueID(apnsID: String, pushID: UInt64) -> String {
        withUniqueID(apnsID: apnsID, pushID: pushID) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of `uniqueID(apnsID:pushID:)`, made on the stack: an
    /// answer's header takes them as they are, with no String made for each push.
    package static func withUniqueID<Result>(apnsID: String, pushID: UInt64, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in apnsID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let high = (mix(hash) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (pushID & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 40 bytes: room for 36
        return withUnsafeMutableBytes(of: &text) { text in
            let count = write(high, low, pairs: lowerHexPairs, to: text.baseAddress!)
            return body(UnsafeRawBufferPointer(rebasing: text[..<count]))
        }
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Each byte's two upper-case (lower-case) hex digits, as one UInt16 in memory order.
    private static let hexPairs = pairs("0123456789ABCDEF")
    private static let lowerHexPairs = pairs("0123456789abcdef")

    private static func pairs(_ alphabet: String) -> [UInt16] {
        let digits = Array(alphabet.utf8)
        return (0..<256).map { byte in UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xF]) << 8 }
    }

    private static func format(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in write(high, low, pairs: hexPairs, to: UnsafeMutableRawPointer(out.baseAddress!)) }
    }

    /// Writes the UUID's 36 characters at `out`; returns 36.
    private static func write(_ high: UInt64, _ low: UInt64, pairs table: [UInt16], to out: UnsafeMutableRawPointer) -> Int {
        table.withUnsafeBufferPointer { pairs in
            var position = 0
            // Byte index → dash before it: 8-4-4-4-12 digits.
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
                    position += 1
                }
                let word = index < 8 ? high : low
                let byte = Int((word >> UInt64(56 - (index % 8) * 8)) & 0xFF)
                out.storeBytes(of: pairs[byte], toByteOffset: position, as: UInt16.self)
                position += 2
            }
            return position
        }
    }
}
