import Foundation
import Synchronization
import SilentPushCore
import SilentPushTransport

/// Signs provider tokens (ES256, JOSE r‖s) with a `.p8` key and reuses each for 50 minutes
/// across every request and connection of a run: APNs refuses a provider that changes its
/// token too often (TooManyProviderTokenUpdates), so a token is never signed per request.
package final class ProviderTokenSigner: Sendable {
    package let keyID: String
    package let teamID: String
    private let key: ES256Key
    private let now: @Sendable () -> Int64
    private let cached = Mutex<(token: String, issuedAt: Int64)?>(nil)
    private let signatures = Atomic<Int>(0)

    /// How long a token is reused: under APNs' one hour, with room for clock skew.
    package static let reuse: Int64 = 50 * 60

    /// A signer for `key`; `now` gives seconds since the epoch (tests move it).
    package init(key: ES256Key, keyID: String, teamID: String, now: @escaping @Sendable () -> Int64 = ProviderTokenSigner.systemSeconds) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.now = now
    }

    /// Seconds since the epoch on the system clock.
    package static let systemSeconds: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// The current token: the cached one while it is under 50 minutes old, else a new one.
    package func token() throws -> String {
        try cached.withLock { cached in
            let now = now()
            if let cached, now - cached.issuedAt < Self.reuse, now >= cached.issuedAt { return cached.token }
            let input = ProviderToken.signingInput(keyID: keyID, teamID: teamID, issuedAt: now)
            let token = ProviderToken.jwt(signingInput: input, signature: try key.sign(input))
            signatures.add(1, ordering: .relaxed)
            cached = (token, now)
            return token
        }
    }

    /// Tokens signed so far.
    package var signatureCount: Int { signatures.load(ordering: .relaxed) }
}
