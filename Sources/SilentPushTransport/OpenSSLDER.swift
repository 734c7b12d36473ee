/// DER encoding through OpenSSL's `i2d_*` functions, which are called twice: once for the
/// length, once to write.
enum OpenSSLDER {
    /// The DER bytes of `object`, or nil when `encode` fails.
    static func encode(
        _ object: OpaquePointer, with encode: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) -> [UInt8]? {
        let length = encode(object, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = encode(object, &cursor)
        }
        return der
    }
}
