import Foundation
import Synchronization

/// A new Live Activity's id: a UUID laid out as version 7 (the real time in milliseconds, then
/// a count within that millisecond, then random bits), so the ids of one receiver sort in the
/// order their activities began, also when many begin at one device instant (a manual clock).
package enum ActivityID {
    private static let last = Mutex((milliseconds: UInt64(0), count: UInt64(0)))

    /// The next id, in upper-case hex as `UUID().uuidString` writes it.
    package static func next() -> String {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        let (milliseconds, count) = last.withLock { last -> (UInt64, UInt64) in
            if now > last.milliseconds {
                last = (now, 0)
            } else if last.count < 0xFFF {
                last.count += 1
            } else {
                // 4,096 in one millisecond: borrow the next one, so the order holds.
                last = (last.milliseconds + 1, 0)
            }
            return last
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: count >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: count)
        var random = SystemRandomNumberGenerator()
        let tail = random.next() as UInt64
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: tail >> (8 * UInt64(15 - index))) }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        ).uuidString
    }
}
