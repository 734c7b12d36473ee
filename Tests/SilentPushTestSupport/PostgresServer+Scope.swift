import Foundation
import SilentPushCore
import SilentPushStore
import Testing

extension PostgresServer {
    /// The server of the suite under way (`@Suite(.postgres)`), nil outside one.
    @TaskLocal public static var current: PostgresServer?
}

/// Runs a PostgreSQL server (`PostgresServer`) around a whole suite, stopped after its last
/// test: its tests each make a database of their own on it (`StoreEngineKind.newLocation`).
public struct PostgresSuiteTrait: SuiteTrait, TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard PostgresServer.current == nil else { return try await function() }
        try await PostgresServer.with { server in
            try await PostgresServer.$current.withValue(server) { try await function() }
        }
    }
}

extension Trait where Self == PostgresSuiteTrait {
    /// A PostgreSQL server for the suite's tests.
    public static var postgres: PostgresSuiteTrait { PostgresSuiteTrait() }
}

/// The engines a store test runs against: `@Test(arguments: StoreEngineKind.allCases)`.
public enum StoreEngineKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    public var testDescription: String { rawValue }

    /// Where a new, empty store of this engine is: a SQLite file in a new temporary directory
    /// (`memory`: in memory), or a new database on the suite's PostgreSQL server.
    package func newLocation(memory: Bool = false) async throws -> PushStore.Location {
        switch self {
        case .sqlite:
            return memory
                ? .memory
                : .file(Scratch.directory.appendingPathComponent("silentpush-store-\(UUID().uuidString)/pushes.sqlite").path)
        case .postgres:
            let server = try #require(PostgresServer.current, "a PostgreSQL store test's suite needs the .postgres trait")
            return .postgres(try PostgresURL(server.url(database: try await server.newDatabase())))
        }
    }

    /// A new, empty store of this engine, open.
    package func newStore(memory: Bool = false) async throws -> PushStore {
        try await PushStore.open(newLocation(memory: memory))
    }
}
