import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import Testing

/// `docs/silentpushd.md` names every flag the config file maps (each flag is a key there), so a
/// new flag cannot land undocumented: in the synopsis, in the flag table and in the config
/// file's list of keys.
@Suite struct ConfigFileDocsTests {
    static let document: String = (try? String(contentsOfFile: Repository.root + "/docs/silentpushd.md", encoding: .utf8)) ?? ""

    /// The first fenced block: the synopsis.
    static var synopsis: Substring {
        guard let open = document.range(of: "```\n"), let close = document[open.upperBound...].range(of: "```") else { return "" }
        return document[open.upperBound..<close.lowerBound]
    }

    /// The section on the config file, up to the next heading of its level.
    static var configSection: Substring {
        guard let start = document.range(of: "## The config file") else { return "" }
        let rest = document[start.upperBound...]
        return rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    }

    @Test(arguments: ConfigFile.flags.keys.sorted())
    func everyFlagIsInTheSynopsisTheTableAndTheKeyList(key: String) throws {
        let flag = try #require(ConfigFile.flags[key]).flag
        #expect(Self.synopsis.contains("\(flag) ") || Self.synopsis.contains("\(flag)]"), "\(flag) is not in the synopsis")
        #expect(Self.document.contains("| `\(flag)` |"), "\(flag) has no row in the flag table")
        #expect(Self.configSection.contains("`\(key)`"), "the config key \(key) is not listed")
    }

    @Test(arguments: ConfigFile.otherKeys)
    func everyKeyWithoutAFlagIsListed(key: String) {
        #expect(Self.configSection.contains("`\(key)`"), "the config key \(key) is not listed")
    }
}
