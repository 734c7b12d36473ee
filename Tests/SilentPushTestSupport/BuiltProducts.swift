import Foundation

/// Executables built beside the running test bundle (`swift build` puts them there).
public enum BuiltProducts {
    /// The build directory holding the running tests.
    public static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    /// The path of the built `name` (e.g. `silentpushd`), or nil when it was not built.
    public static func path(of name: String) -> String? {
        let path = directory + "/" + name
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
