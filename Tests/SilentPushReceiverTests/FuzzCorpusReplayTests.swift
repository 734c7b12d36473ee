import Foundation
import SilentPushFuzzTargets
import Testing

/// Every input in the fuzzers' corpus and every input that once crashed a target
/// (`Fuzz/regressions`) runs again through its target: a trap here fails the run.
@Suite struct FuzzCorpusReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ target: FuzzTarget, in folder: String) -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyCorpusInputAndPastCrashRunsCleanly(target: FuzzTarget) throws {
        let corpus = Self.inputs(target, in: "corpus")
        #expect(!corpus.isEmpty, "Fuzz/corpus/\(target.rawValue) has no seeds")
        for url in corpus + Self.inputs(target, in: "regressions") {
            let bytes = try Data(contentsOf: url)
            bytes.withUnsafeBytes { target.run($0) }
        }
    }
}
