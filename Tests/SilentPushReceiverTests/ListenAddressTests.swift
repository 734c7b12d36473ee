import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:2197", "127.0.0.1", 2197), ("localhost:0", "localhost", 0),
        ("[::1]:2198", "::1", 2198), ("0.0.0.0:65535", "0.0.0.0", 65535),
    ])
    func parses(text: String, host: String, port: Int) throws {
        let address = try #require(ListenAddress(parsing: text))
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == text)
    }

    @Test(arguments: [
        "", "2197", ":2197", "localhost", "localhost:", "host:-1", "host:65536", "::1:2197", "[::1]2197", "[::1]", "host:12ab", "host:+80", "host:-0",
        "host:000000080", "host: 80",
    ])
    func rejects(text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }
}

@Suite struct ReceiverStartTests {
    @Test func readyFileNamesTheBoundPorts() async throws {
        var configuration = ReceiverConfiguration.testing()
        let path = Scratch.directory.appendingPathComponent("ready-\(UUID().uuidString).json").path
        configuration.readyFile = path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await Receiver(configuration).whileRunning { receiver in
            let data = try #require(FileManager.default.contents(atPath: path))
            let ports = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
            #expect(ports == ["tls": receiver.tlsPort!, "h2c": receiver.h2cPort!, "admin": receiver.adminPort!])
            #expect(Set([receiver.tlsPort!, receiver.h2cPort!, receiver.adminPort!]).count == 3)
            #expect(!ports.values.contains(0))
        }
    }

    @Test func aReadyFileLeftFromBeforeIsReplaced() async throws {
        var configuration = ReceiverConfiguration.testing()
        let path = Scratch.directory.appendingPathComponent("ready-\(UUID().uuidString).json").path
        try Data("{\"tls\":1}".utf8).write(to: URL(fileURLWithPath: path))
        configuration.readyFile = path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await Receiver(configuration).whileRunning { receiver in
            #expect(FileManager.default.contents(atPath: path) == Data(receiver.readyJSON.utf8))
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        }
    }

    @Test func aReadyFilePathThatIsADirectoryIsRefusedAndTheDirectoryKept() async throws {
        let directory = Scratch.directory.appendingPathComponent("ready-\(UUID().uuidString)")
        let kept = directory.appendingPathComponent("sub/data.txt")
        try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: kept)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ReceiverConfiguration.testing()
        configuration.readyFile = directory.path
        await #expect {
            try await Receiver(configuration).whileRunning { _ in }
        } throws: { error in
            guard case ReceiverStartError.readyFile = error else { return false }
            return "\(error)".contains("check --ready-file")
        }
        #expect(FileManager.default.contents(atPath: kept.path) == Data("precious".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.path + ".tmp"))
    }

    @Test func aListenerThatIsOffIsLeftOutOfTheReadyJSON() async throws {
        var configuration = ReceiverConfiguration.testing()
        configuration.listen = nil
        configuration.admin = nil
        try await Receiver(configuration).whileRunning { receiver in
            #expect(receiver.readyJSON == #"{"h2c":\#(receiver.h2cPort!)}"#)
            #expect(receiver.tlsPort == nil)
        }
    }

    @Test func noListenerAtAllIsAnError() async throws {
        var configuration = ReceiverConfiguration.testing()
        configuration.listen = nil
        configuration.listenH2C = nil
        await #expect { _ = try await Receiver(configuration) } throws: { "\($0)".contains("no listener") }
    }
}
