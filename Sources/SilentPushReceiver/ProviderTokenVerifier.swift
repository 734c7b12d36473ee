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

    /// A DER signature of `message`, for `verify(derSignature:message:)`.
    public func signDER(_ message: [UInt8]) throws -> [UInt8] {
        try key.signDER(message)
    }

    /// Checks a DER signature of `message`: the bare cost of ES256, with no parsing.
    public func verify(derSignature: [UInt8], message: [UInt8]) -> Bool {
        key.verify(signature: derSignature, message: message)
    }
}
