/// Paths in this checkout, for SilentPush's own tests.
public enum Repository {
    /// The checkout's root (where `payloads/`, `docs/` and `Sources/` are), found from this
    /// source file's location.
    public static let root: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // SilentPushTestSupport/Repository.swift, Tests
        return components.joined(separator: "/")
    }()

    /// The fenced blocks of `language` (`sh`, `json`) after `heading` in the document at
    /// `path` (from the root), in order: what a walkthrough test runs as written.
    public static func blocks(_ language: String, in path: String, after heading: String) throws -> [String] {
        let document = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
        guard let section = document.range(of: heading)?.upperBound else { throw MissingHeading(path: path, heading: heading) }
        var blocks: [String] = []
        var rest = document[section...]
        while let open = rest.range(of: "```\(language)\n") {
            let body = rest[open.upperBound...]
            guard let close = body.range(of: "```") else { break }
            blocks.append(String(body[..<close.lowerBound]))
            rest = body[close.upperBound...]
        }
        return blocks
    }

    /// A document lacks the heading a test reads after.
    public struct MissingHeading: Error, CustomStringConvertible {
        public var path: String
        public var heading: String
        public var description: String { "\(path) has no '\(heading)'" }
    }
}
