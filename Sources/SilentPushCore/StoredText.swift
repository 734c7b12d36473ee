/// Writes a stored reason's text (`WaitReason.stored`): a rule's name, then `:` and a
/// decimal number (or nothing, for nil) per field, into one string allocated once.
///
/// Every push still waiting stores its reason, so the writer formats one per push: once
/// into a buffer, with none of string interpolation's intermediate strings.
struct StoredText {
    /// The longest text: the longest name, then four fields of `:` and up to 20 characters.
    private static let capacity = 128
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    private var count = 0

    /// `name`, then the fields `body` writes.
    static func make(_ name: StaticString, _ body: (inout StoredText) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var text = StoredText(buffer: buffer)
            name.withUTF8Buffer { text.append($0) }
            body(&text)
            return text.count
        }
    }

    private init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// `:` and `value` in decimal; `:` alone for nil.
    mutating func field(_ value: Int64?) {
        precondition(count + 21 <= buffer.count, "a stored reason has at most four fields")
        buffer[count] = UInt8(ascii: ":")
        count += 1
        guard let value else { return }
        // Digits from the least significant, into the end of a 20-byte scratch, then copied.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let written = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var position = scratch.count
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                position -= 1
                scratch[position] = UInt8(ascii: "-")
            }
            let length = scratch.count - position
            UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[count..<count + length])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: scratch[position...]))
            return length
        }
        count += written
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= buffer.count, "a stored reason's name is short")
        UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[count..<count + bytes.count])
            .copyMemory(from: UnsafeRawBufferPointer(bytes))
        count += bytes.count
    }
}
