import SilentPushCore

/// A key that cannot be used for ES256, or a signature that could not be made.
package indirect enum ES256KeyError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file could not be read.
    case unreadable(path: String)
    /// What is wrong with the key in this file.
    case inFile(path: String, problem: ES256KeyError)
    /// Not a PEM private key (.p8) or public key.
    case notPEM
    /// A private key encrypted with a passphrase (Apple's .p8 keys are not).
    case encrypted
    /// A key, but not on the P-256 curve.
    case notP256
    /// Signing needs the private key.
    case publicKeyCannotSign
    /// More bytes than any key file holds.
    case tooLarge(limit: Int)
    case outOfMemory
    /// OpenSSL could not sign (its words).
    case signingFailed(String)
    case malformedSignature
    case cannotEncodeSignature

    /// One line for a user.
    package var description: String {
        switch self {
        case .unreadable(let path) where PEMContents.found(in: path):
            "the key's contents were given where the path of its .p8 file belongs (the contents are not shown)"
        case .unreadable(let path): "cannot read key file '\(path)'"
        case .inFile(let path, let problem) where PEMContents.found(in: path): "key file (name not shown): \(problem)"
        case .inFile(let path, let problem): "key file '\(path)': \(problem)"
        case .notPEM: "not a PEM private key (.p8) or public key"
        case .encrypted:
            "an encrypted (passphrase-protected) private key; give it unencrypted, as Apple issues .p8 keys (openssl pkcs8 -topk8 -nocrypt -in KEY -out key.p8)"
        case .notP256: "not an EC P-256 key (ES256 needs one)"
        case .publicKeyCannotSign: "a public key cannot sign"
        case .tooLarge(let limit): "over \(limit) bytes, more than any key file holds"
        case .outOfMemory: "out of memory"
        case .signingFailed(let why): "signing failed: \(why)"
        case .malformedSignature: "signing gave a malformed signature"
        case .cannotEncodeSignature: "cannot encode the signature"
        }
    }
}
