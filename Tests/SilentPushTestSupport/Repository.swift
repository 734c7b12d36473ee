/// Paths in this checkout, for SilentPush's own tests.
public enum Repository {
    /// The checkout's root (where `payloads/`, `docs/` and `Sources/` are), found from this
    /// source file's location.
    public static let root: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // SilentPushTestSupport/Repository.swift, Tests
        return components.joined(separator: "/")
    }()
}
