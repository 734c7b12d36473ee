import SilentPushCore
import SilentPushTransport

// A handle for SilentPush's own benchmarks (the `Benchmarks` package), which measure parts
// a user never touches. It is SPI, not API: `import SilentPushReceiver` does not show it,
// and the public-API test does not list it.

/// ES256 verification of provider tokens, as the endpoint does it on a token it has not seen.
@_spi(Benchmarks)
public struct ProviderTokenVerifier: Sendable {
    private let key: ES256Key

    /// The key in `file` (a `.p8` private key, which can also sign).
    public init(keyFile file: String) throws {
        key = try ES256Key.load(file: file)
    }

    /// Parses `jwt` and checks its raw r‖s signature.
    public func verify(jwt: String) throws -> Bool {
        let token = try ProviderToken.parse(Substring(jwt))
        return key.verify(signature: token.signature, message: token.signingInput)
    }

    /// A DER signature of `jwt`'s signing input, for `verify(derSignature:of:)`.
    public func signDER(signingInputOf jwt: String) throws -> [UInt8] {
        try key.signDER(ProviderToken.parse(Substring(jwt)).signingInput)
    }

    /// Checks a DER signature of `jwt`'s signing input: the bare cost of ES256.
    public func verify(derSignature: [UInt8], of jwt: String) throws -> Bool {
        key.verify(signature: derSignature, message: try ProviderToken.parse(Substring(jwt)).signingInput)
    }
}
