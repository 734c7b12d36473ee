/// Where the development material is: the CA, the receiver's certificate, the dev provider
/// key (`certs/`) and the sample payloads (`payloads/`). Both tools look next to their own
/// install first (`PREFIX/share/silentpush` for a binary in `PREFIX/bin`), then in the
/// checkout they were built in, then in the working directory, so an installed binary works
/// from any directory and a built one from its checkout.
package struct DevelopmentMaterial: Sendable, Equatable {
    /// The directory that holds `certs/` and `payloads/`.
    package var root: String

    package init(root: String) {
        self.root = root
    }

    /// The CA, server certificate and dev key.
    package var certificates: String { Self.join(root, "certs") }
    /// The sample payloads.
    package var payloads: String { Self.join(root, "payloads") }

    /// A file that every copy of the material has.
    package static let marker = "certs/ca.pem"

    /// The directories looked in, in order, for a binary at `executable` (its real path,
    /// nil when unknown) run in `workingDirectory`: for each of the binary's directory's
    /// ancestors up to four levels, its `share/silentpush` (an install) and itself (a
    /// checkout: SwiftPM puts binaries in `.build/<triple>/<configuration>/`); then the
    /// working directory.
    package static func candidates(executable: String?, workingDirectory: String) -> [String] {
        var found: [String] = []
        func add(_ path: String) {
            if !path.isEmpty, !found.contains(path) { found.append(path) }
        }
        if let executable, let directory = parent(of: executable) {
            var ancestor = parent(of: directory)
            var levels = 0
            while let current = ancestor, levels < 4 {
                add(join(current, "share/silentpush"))
                add(current)
                ancestor = parent(of: current)
                levels += 1
            }
        }
        add(workingDirectory)
        return found
    }

    /// The first candidate that holds the material; nil when none does.
    package static func locate(
        executable: String?, workingDirectory: String, isReadable: (String) -> Bool
    ) -> DevelopmentMaterial? {
        candidates(executable: executable, workingDirectory: workingDirectory)
            .first { isReadable(join($0, marker)) }
            .map(DevelopmentMaterial.init(root:))
    }

    /// "looked in A, B and C", for a message that says what was searched.
    package static func searched(executable: String?, workingDirectory: String) -> String {
        let places = candidates(executable: executable, workingDirectory: workingDirectory).map { join($0, "certs") }
        guard let last = places.last else { return "looked nowhere" }
        return "looked in " + (places.count == 1 ? last : places.dropLast().joined(separator: ", ") + " and " + last)
    }

    /// The directory part of an absolute path ("/" for a file at the root); nil for a
    /// relative path or the root itself.
    static func parent(of path: String) -> String? {
        guard path.hasPrefix("/"), path != "/" else { return nil }
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return nil }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
