extension ProviderToken {
    /// What `parse` found wrong with `jwt`, in words.
    static func malformedPart(_ jwt: Substring) -> String {
        let parts = jwt.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return "a JWT has 3 base64url parts separated by '.', this has \(parts.count)" }
        guard let header = Base64URL.decode(parts[0]) else { return "its header is not base64url" }
        guard let claims = Base64URL.decode(parts[1]) else { return "its claims are not base64url" }
        guard let signature = Base64URL.decode(parts[2]), !signature.isEmpty else { return "its signature is empty or not base64url" }
        func fields(_ bytes: [UInt8], _ names: [String]) -> [String: String]? {
            var found: [String: String] = [:]
            let read: Bool? = try? bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                try scanner.readObject { scanner, key in
                    if names.contains(key) { found[key] = try scanner.readScalarText() ?? "" }
                }
                try scanner.expectEnd()
                return true
            }
            return read == true ? found : nil
        }
        guard let head = fields(header, ["alg", "kid"]) else { return "its header is not a JSON object" }
        guard let body = fields(claims, ["iss", "iat"]) else { return "its claims are not a JSON object" }
        if head["alg"] != "ES256" { return "alg is \(head["alg"].map { "'\(TokenRefusalCause.shown($0))'" } ?? "missing"), not 'ES256'" }
        if (head["kid"] ?? "").isEmpty { return "kid is missing" }
        if (body["iss"] ?? "").isEmpty { return "iss (the team id) is missing" }
        guard let iat = body["iat"] else { return "iat is missing" }
        return "iat '\(TokenRefusalCause.shown(iat))' is not seconds since the epoch from 1970 to 9999"
    }
}
