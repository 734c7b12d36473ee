/// Text that is a PEM block's contents (a key or a certificate) rather than the path of its
/// file: what a user passes by mistake as `--key "$(cat key.p8)"`, or in an environment
/// variable meant for a path. It must never be echoed in a message: it may be a private key.
package enum PEMContents {
    /// Whether `text`, given as a file's path, holds a PEM block, any line break (which no path
    /// here has), or a long run of base64 alone: a key's body without its armour, or
    /// `base64 -w0` of the whole file (a path has a dot, a dash or an underscore, or is shorter).
    package static func found(in text: some StringProtocol) -> Bool {
        text.contains(marker) || text.contains("\n") || (text.utf8.count >= 100 && text.utf8.allSatisfy(isBase64))
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// Whether any of `arguments` holds a PEM block: checked before a parser, whose messages
    /// quote arguments, sees them (a line break alone is not one: a command may have it).
    package static func found(inAnyOf arguments: [String]) -> Bool {
        arguments.contains { $0.contains(marker) }
    }

    private static let marker = "-----BEGIN"

    /// Whether PEM text holds an encrypted private key (PKCS#8 `ENCRYPTED PRIVATE KEY`, or a
    /// traditional key's `Proc-Type: 4,ENCRYPTED`).
    package static func isEncrypted(_ pem: [UInt8]) -> Bool {
        let text = String(decoding: pem.prefix(64 * 1024), as: UTF8.self)
        return text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")
    }

    /// What a file of PEM is expected to hold, for the command that converts another form.
    package enum Kind: Sendable {
        case certificate
        case key
    }

    /// What to do with a file of key or certificate material that is not PEM but DER (a
    /// `.cer`, as Apple hands out its CAs) or PKCS#12 (a `.p12`, as Keychain exports a push
    /// certificate with its key); nil for PEM, or for bytes that are neither.
    package static func conversionHint(_ contents: [UInt8], kind: Kind) -> String? {
        guard contents.first == 0x30, !String(decoding: contents.prefix(64 * 1024), as: UTF8.self).contains(marker) else { return nil }
        let der = kind == .certificate ? "openssl x509 -inform der -in FILE -out cert.pem" : "openssl pkey -inform der -in FILE -out key.pem"
        return
            "the file is binary, DER (as a .cer) or PKCS#12 (as a .p12): convert it, \(der), or openssl pkcs12 -in FILE -nodes -out cert-and-key.pem"
    }

    /// The message for an argument that holds one, naming neither it nor its contents.
    package static let refusal =
        "an argument holds a key's or certificate's contents (-----BEGIN …); give the path of its file instead (the contents are not shown)"
}
