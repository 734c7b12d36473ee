/// Which APNs the receiver plays: the sandbox (development) or production.
public enum APNsEnvironment: String, Sendable, CaseIterable {
    /// The development environment (`api.sandbox.push.apple.com`).
    case sandbox
    /// The production environment (`api.push.apple.com`).
    case production
}
