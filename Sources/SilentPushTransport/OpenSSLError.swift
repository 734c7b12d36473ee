import COpenSSL

/// OpenSSL's thread-local error queue, read as text.
enum OpenSSLError {
    /// Empties the queue and returns its messages joined, oldest first.
    static func drain() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.joined(separator: "; ")
    }
}
