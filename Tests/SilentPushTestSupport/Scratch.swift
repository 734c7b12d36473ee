import Foundation

/// Where SilentPush's tests write their files (stores, configurations, ready files, payloads):
/// one directory of the test process's own under the system's temporary directory, removed
/// with everything in it when the process exits, so a run of the suite leaves nothing behind.
public enum Scratch {
    /// The test process's directory, made on first use.
    public static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("silentpush-tests-\(getpid())")
        try? FileManager.default.removeItem(at: url)  // a directory left by a crashed run with this pid
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Scratch.directory) }
        return url
    }()

    /// A new, empty directory of its own in `directory`, named `prefix-UUID`: its path.
    public static func newDirectory(_ prefix: String) throws -> String {
        let path = directory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
