import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The layering rules of the architecture, checked on the sources themselves.
@Suite struct DependencyRuleTests {
    static func swiftFiles(under directory: String) -> [(path: String, text: String)] {
        let root = Repository.root + "/" + directory
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") }.compactMap { relative in
            let path = root + "/" + relative
            return (try? String(contentsOfFile: path, encoding: .utf8)).map { (directory + "/" + relative, $0) }
        }
    }

    static func imports(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return nil }
            return String(words[index + 1])
        }
    }

    @Test func onlyTheTransportImportsTheCModules() {
        let files =
            Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Tests") + Self.swiftFiles(under: "Fuzz")
            + Self.swiftFiles(under: "Benchmarks")
        #expect(files.count > 20)
        #expect(files.contains { $0.path.hasPrefix("Fuzz/") } && files.contains { $0.path.hasPrefix("Benchmarks/") })
        // The scan does see C imports where they belong.
        #expect(files.contains { $0.path.hasPrefix("Sources/SilentPushTransport/") && Self.imports($0.text).contains("CNghttp2") })
        for file in files where !file.path.hasPrefix("Sources/SilentPushTransport/") {
            let cModules = Self.imports(file.text).filter { $0 == "CNghttp2" || $0 == "COpenSSL" }
            #expect(cModules.isEmpty, "\(file.path) imports \(cModules)")
        }
    }

    @Test func nothingIsReExported() {
        for file in Self.swiftFiles(under: "Sources") {
            #expect(!file.text.contains("@_exported"), "\(file.path) re-exports a module")
        }
    }

    @Test func theCoreImportsNoCModuleAndNoNIO() {
        let core = Self.swiftFiles(under: "Sources/SilentPushCore")
        #expect(!core.isEmpty)
        for file in core {
            let imports = Self.imports(file.text)
            #expect(imports.allSatisfy { $0 == "Synchronization" }, "\(file.path) imports \(imports)")
        }
    }

    /// PostgreSQL is reached in the PostgreSQL engine's files alone: the reads, retention and
    /// the writer's queue above the engines know neither.
    @Test func onlyThePostgreSQLEngineImportsPostgresNIO() {
        let importers = Self.swiftFiles(under: "Sources/SilentPushStore").filter { file in
            Self.imports(file.text).contains { $0 == "PostgresNIO" || $0 == "NIOCore" || $0 == "NIOSSL" || $0 == "SilentPushNetworking" }
        }.map { URL(fileURLWithPath: $0.path).lastPathComponent }.sorted()
        #expect(
            importers == [
                "PostgresBatchWatch.swift", "PostgresConnection+UnlessClosed.swift", "PostgresEngine+BatchWatch.swift",
                "PostgresEngine+Cluster.swift",
                "PostgresEngine+Notices.swift", "PostgresEngine.swift", "StoreStatement+Postgres.swift", "StoreValue+Postgres.swift",
            ])
    }

    /// Each library module imports only the modules below it (its row in docs/architecture.md).
    @Test(arguments: [
        (
            "SilentPushStore",
            [
                "SilentPushCore", "SilentPushNetworking", "GRDB", "GRDBSQLite", "PostgresNIO", "NIOCore", "NIOSSL", "Logging", "Foundation",
                "Synchronization", "Glibc", "Darwin", "Dispatch",
            ]
        ),
        ("SilentPushNetworking", ["NIOCore", "NIOPosix", "Foundation", "Glibc", "Darwin"]),
        (
            "SilentPushTransport",
            [
                "SilentPushCore", "SilentPushNetworking", "CNghttp2", "COpenSSL", "NIOCore", "NIOPosix", "NIOConcurrencyHelpers", "Logging",
                "ServiceLifecycle", "Foundation", "Synchronization", "Glibc", "Darwin",
            ]
        ),
        (
            "SilentPushDaemon",
            [
                "SilentPushReceiver", "SilentPushTransport", "SilentPushCore", "ArgumentParser", "Logging", "NIOPosix", "ServiceLifecycle",
                "Foundation",
            ]
        ),
        // The executable stays thin: its `@main` calls the command its module holds.
        ("silentpushd", ["SilentPushDaemon"]),
    ])
    func aModuleImportsOnlyWhatIsBelowIt(module: String, allowed: [String]) {
        let files = Self.swiftFiles(under: "Sources/\(module)")
        #expect(!files.isEmpty)
        for file in files {
            let extra = Self.imports(file.text).filter { !allowed.contains($0) }
            #expect(extra.isEmpty, "\(file.path) imports \(extra)")
        }
    }

    /// What differs between Linux and macOS (procfs, the open-file limit, the binary's own
    /// path) is asked in one file, `Platform.swift`, which has a branch for each.
    @Test func operatingSystemCallsLiveInThePlatformFile() {
        for file in Self.swiftFiles(under: "Sources") where !file.path.hasSuffix("SilentPushTransport/Platform.swift") {
            for call in ["\"/proc/", "getrlimit(", "setrlimit(", "readlink(", "dlsym("] {
                #expect(!file.text.contains(call), "\(file.path) calls \(call) (ask Platform instead)")
            }
        }
    }

    /// Long-lived work runs in `Service`s' child tasks: no dispatch queue anywhere, and no
    /// unstructured task on the receiver's side (the store, the transport, the receiver).
    @Test func noDispatchQueueAndNoUnstructuredTaskOnTheReceiverSide() {
        for file in Self.swiftFiles(under: "Sources") {
            #expect(!file.text.contains("DispatchQueue"), "\(file.path) uses a DispatchQueue")
        }
        let receiverSide = ["SilentPushStore", "SilentPushTransport", "SilentPushReceiver"].flatMap { Self.swiftFiles(under: "Sources/\($0)") }
        #expect(receiverSide.count > 20)
        for file in receiverSide {
            let code = file.text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            // `Task {`, `Task(priority:)`, `Task.detached`; a task group's `addTask {` is structured.
            let unstructured = code.range(of: #"(?<![A-Za-z])Task( \{|\(|\.detached)"#, options: .regularExpression)
            #expect(unstructured == nil, "\(file.path) starts an unstructured task")
        }
    }
}
