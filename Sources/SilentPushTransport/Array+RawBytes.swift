extension Array where Element == UInt8 {
    /// Appends raw bytes with one copy. `append(contentsOf:)` given an
    /// `UnsafeRawBufferPointer` walks it byte by byte as a generic sequence; typed as
    /// `UInt8` it takes the contiguous (memcpy) path.
    @inlinable
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
}
