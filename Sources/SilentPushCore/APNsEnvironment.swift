/// Which APNs the receiver plays: the sandbox (development) or production.
public enum APNsEnvironment: String, Sendable, CaseIterable {
    case sandbox
    case production
}
