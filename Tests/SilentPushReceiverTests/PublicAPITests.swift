import Foundation
import SilentPushTestSupport
import Testing

/// The public surface an app team's package sees: the symbol graphs of the modules SilentPush
/// ships as products, read from this build with `swift symbolgraph-extract`. No public
/// declaration may name a Transport or Store type (their USRs start with the module), and
/// SilentPush's own test helpers stay out of the products. The modules that are not products
/// declare nothing public: what only SilentPush's own modules use is `package`.
@Suite struct PublicAPITests {
    static let products = ["SilentPushReceiver", "SilentPushTesting", "SilentPushCore"]
    static let internalModules = ["SilentPushTransport", "SilentPushStore", "SilentPushTestSupport"]
    /// The library modules no product exports: an app team's package cannot import them.
    static let unshippedModules = ["SilentPushTransport", "SilentPushStore", "SilentPushNetworking", "SilentPushSender"]
    static let ownHelpers: Set<String> = ["RawH2Connection", "H2Frame", "PeerProcess", "PeerResult", "BuiltProducts"]
    /// The benchmarks' handles: `@_spi(Benchmarks)`, so not part of the public surface.
    static let benchmarkHandles: Set<String> = ["APNsRequestDriver", "FixedResponseServer", "ProviderTokenVerifier", "StoreWriteDriver"]

    struct PublicSymbol {
        var module: String
        var path: String
        var referenced: [String]
    }

    @Test func noPublicDeclarationNamesATransportOrStoreType() async throws {
        let symbols = try await Self.publicSymbols()
        #expect(symbols.count > 200, "the symbol graphs were read (\(symbols.count) symbols)")
        #expect(symbols.contains { $0.path == "Receiver.withTesting(_:logger:_:)" })
        let prefixes = Self.internalModules.map { "s:\($0.utf8.count)\($0)" }
        let leaks = symbols.filter { symbol in symbol.referenced.contains { id in prefixes.contains { id.hasPrefix($0) } } }
        #expect(leaks.isEmpty, "public declarations naming internal types: \(leaks.map { "\($0.module): \($0.path)" })")
    }

    @Test func modulesThatAreNotProductsDeclareNothingPublic() async throws {
        let symbols = try await Self.publicSymbols(of: Self.unshippedModules)
        #expect(symbols.isEmpty, "public in a module no product exports (make it package): \(symbols.prefix(20).map { "\($0.module): \($0.path)" })")
        // The same reading finds what a product declares public, so an empty answer is not a failed read.
        let shipped = try await Self.publicSymbols(of: ["SilentPushCore"])
        #expect(shipped.count > 100, "the symbol graph was read (\(shipped.count) symbols)")
    }

    @Test func silentPushsOwnTestHelpersAreNotInAProduct() async throws {
        let symbols = try await Self.publicSymbols()
        let helpers = symbols.filter { Self.ownHelpers.contains(String($0.path.prefix { $0 != "." })) }
        #expect(helpers.isEmpty, "\(helpers.map(\.path))")
        let handles = symbols.filter { Self.benchmarkHandles.contains(String($0.path.prefix { $0 != "." })) }
        #expect(handles.isEmpty, "benchmark SPI in the public surface: \(handles.map(\.path))")
    }

    /// Every public symbol of `modules` (the products unless given), with the USRs its
    /// declaration refers to.
    static func publicSymbols(of modules: [String] = products) async throws -> [PublicSymbol] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let build = BuiltProducts.directory
        let output = Scratch.directory.appendingPathComponent("silentpush-symbols-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        // The C modules the Swift modules import: SwiftPM's generated maps in the build
        // folder, ours in Sources, the dependencies' in their checkouts.
        let maps =
            moduleMaps(under: build, depth: 2) + moduleMaps(under: root.appendingPathComponent("Sources").path, depth: 3)
            // Not SilentPush's own checkout, which the consumer-package test leaves there
            // (its scratch path is this build folder): its maps are Sources' again.
            + moduleMaps(under: root.appendingPathComponent(".build/checkouts").path, depth: 6).filter { !$0.contains("/checkouts/SilentPush/") }
        var symbols: [PublicSymbol] = []
        for module in modules {
            let result = try await PeerProcess.run(
                swift,
                [
                    "symbolgraph-extract", "-module-name", module, "-target", try await targetTriple(), "-I", build + "/Modules",
                    "-output-dir", output.path, "-minimum-access-level", "public",
                ] + maps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] })
            guard result.status == 0 else {
                Issue.record("symbolgraph-extract \(module): \(result.errorOutput)")
                continue
            }
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path) where file.hasSuffix(".symbols.json") {
            let data = try Data(contentsOf: output.appendingPathComponent(file))
            let graph = try JSONDecoder().decode(Graph.self, from: data)
            for symbol in graph.symbols {
                symbols.append(
                    PublicSymbol(
                        module: file, path: symbol.pathComponents.joined(separator: "."),
                        referenced: [symbol.identifier.precise] + (symbol.declarationFragments ?? []).compactMap(\.preciseIdentifier)))
            }
        }
        return symbols
    }

    static var swift: String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/opt/swift/usr/bin/swift"
    }

    static func targetTriple() async throws -> String {
        let info = try await PeerProcess.run(swift, ["-print-target-info"])
        struct Info: Decodable {
            struct Target: Decodable { var triple: String }
            var target: Target
        }
        return try JSONDecoder().decode(Info.self, from: Data(info.stdout)).target.triple
    }

    static func moduleMaps(under directory: String, depth: Int) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var maps: [String] = []
        while let path = enumerator.nextObject() as? String {
            if enumerator.level > depth { enumerator.skipDescendants() }
            // Plugin tools' builds (`*-tool.build`) map the same modules again.
            if path.hasSuffix("-tool.build") { enumerator.skipDescendants() }
            if path.hasSuffix("/module.modulemap") || path == "module.modulemap" { maps.append(directory + "/" + path) }
        }
        return maps
    }

    struct Graph: Decodable {
        struct Symbol: Decodable {
            struct Identifier: Decodable { var precise: String }
            struct Fragment: Decodable { var preciseIdentifier: String? }
            var identifier: Identifier
            var pathComponents: [String]
            var declarationFragments: [Fragment]?
        }
        var symbols: [Symbol]
    }
}
