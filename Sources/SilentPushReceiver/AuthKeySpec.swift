import SilentPushCore

/// `--auth-key KEYID:TEAMID:PATH[:sandbox|production]`: a provider-token key the receiver
/// accepts. PATH is the `.p8` private key or its public key PEM.
public struct AuthKeySpec: Sendable, Equatable, CustomStringConvertible {
    /// `kid`.
    public var keyID: String
    /// `iss` that tokens of this key must carry.
    public var teamID: String
    /// The PEM file.
    public var path: String
    /// The environment the key is limited to; nil: both.
    public var environment: APNsEnvironment?

    /// A spec.
    public init(keyID: String, teamID: String, path: String, environment: APNsEnvironment? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.path = path
        self.environment = environment
    }

    /// The dev key in `certificatesDirectory` (key id DEVKEY0001, team DEVTEAM001).
    public static func development(certificatesDirectory: String) -> AuthKeySpec {
        AuthKeySpec(keyID: "DEVKEY0001", teamID: "DEVTEAM001", path: certificatesDirectory + "/AuthKey_DEVKEY0001.p8")
    }

    /// Parses the flag's value; nil when it is not KEYID:TEAMID:PATH[:ENV].
    public init?(parsing text: String) {
        var parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
        var environment: APNsEnvironment?
        for candidate in APNsEnvironment.allCases where parts[2].hasSuffix(":" + candidate.rawValue) {
            environment = candidate
            parts[2] = String(parts[2].dropLast(candidate.rawValue.count + 1))
        }
        self.init(keyID: parts[0], teamID: parts[1], path: parts[2], environment: environment)
    }

    public var description: String {
        "\(keyID):\(teamID):\(path)" + (environment.map { ":\($0.rawValue)" } ?? "")
    }
}
