import SilentPushCore
import SilentPushTransport

/// The provider-token keys the receiver accepts, with their ES256 keys loaded.
package struct ProviderKeyRing: Sendable {
    private var keys: [String: (info: ProviderKey, key: ES256Key)] = [:]

    /// Loads every spec's PEM; throws naming the file and the flag to fix.
    package init(specs: [AuthKeySpec]) throws {
        for spec in specs {
            let key: ES256Key
            do {
                key = try ES256Key.load(file: spec.path)
            } catch {
                throw ReceiverStartError.authKey(spec: "\(spec)", underlying: error)
            }
            keys[spec.keyID] = (ProviderKey(keyID: spec.keyID, teamID: spec.teamID, environment: spec.environment), key)
        }
    }

    func key(_ keyID: String) -> ProviderKey? {
        keys[keyID]?.info
    }

    func verify(_ token: ProviderToken) -> Bool {
        keys[token.keyID]?.key.verify(signature: token.signature, message: token.signingInput) ?? false
    }

    /// Changes a key's standing (revoked, topics), e.g. from a test.
    mutating func update(_ keyID: String, _ change: (inout ProviderKey) -> Void) {
        guard var entry = keys[keyID] else { return }
        change(&entry.info)
        keys[keyID] = entry
    }
}
