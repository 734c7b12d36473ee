/// Anything that can hand over its header fields as raw bytes, in order.
public protocol APNsHeaderSource {
    /// Calls `body` with each field's name and value.
    func forEachHeader(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows
}
