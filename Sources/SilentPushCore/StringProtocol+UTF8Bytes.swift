extension StringProtocol {
    /// Runs `body` over the text's UTF-8 bytes: in place when they are contiguous (a native
    /// string's, as every request's are), else over a copy. A loop over the buffer is
    /// specialized where a generic walk of `utf8` across modules is not, and byte compares
    /// skip the Unicode-aware ones of `String`.
    @inlinable package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        utf8.withContiguousStorageIfAvailable(body) ?? Array(utf8).withUnsafeBufferPointer(body)
    }
}
