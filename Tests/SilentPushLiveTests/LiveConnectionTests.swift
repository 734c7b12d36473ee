import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// Connection-level behaviour over real sockets: hand-built frames, and our own client.
@Suite(.serialized) struct LiveConnectionTests {
    static let handshake = H2Frame.clientPreface + H2Frame.settings().bytes + H2Frame.settingsAck.bytes

    func withReceiver(_ configure: (inout ReceiverConfiguration) -> Void = { _ in }, _ body: (Receiver) async throws -> Void) async throws {
        try await Receiver.withTesting(configure, body)
    }

    @Test func aBadPrefaceEndsOnlyThatConnection() async throws {
        try await withReceiver { receiver in
            let bad = try await RawH2Connection.connect(port: receiver.h2cPort!)
            let good = try await RawH2Connection.connect(port: receiver.h2cPort!)
            try await bad.send(Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
            #expect(try await bad.waitForClose())
            let goAway = try #require(bad.frames.first { $0.kind == .goAway })
            #expect(goAway.errorCode == 1)
            #expect(goAway.debugData?.hasPrefix(#"{"reason":"ProtocolError""#) == true)

            try await good.send(Self.handshake + H2Frame.post(streamID: 1, path: "/3/device/aa", endStream: true).bytes)
            let frames = try await good.waitForFrames { $0.contains { $0.kind == .headers && $0.streamID == 1 } }
            #expect(frames.contains { $0.kind == .headers && $0.streamID == 1 })
            #expect(!good.isClosed)
            await good.close()
        }
    }

    @Test func aMalformedFrameGetsGoAwayWithJSONReason() async throws {
        try await withReceiver { receiver in
            let connection = try await RawH2Connection.connect(port: receiver.h2cPort!)
            try await connection.send(Self.handshake + H2Frame(.settings, streamID: 0, payload: [0, 3, 0]).bytes)
            #expect(try await connection.waitForClose())
            let goAway = try #require(connection.frames.first { $0.kind == .goAway })
            #expect(goAway.errorCode == 0x6)  // FRAME_SIZE_ERROR
            #expect(goAway.debugData?.hasPrefix(#"{"reason":"FrameSizeError""#) == true)
        }
    }

    @Test func streamsPastMaxConcurrentStreamsAreRefusedAndTheConnectionLivesOn() async throws {
        try await withReceiver({ $0.settings.maxConcurrentStreams = 2 }) { receiver in
            let connection = try await RawH2Connection.connect(port: receiver.h2cPort!)
            try await connection.send(Self.handshake)
            try await connection.waitForFrames { $0.contains { $0.kind == .settings && $0.flags == 1 } }
            try await connection.send((0..<3).map { H2Frame.post(streamID: UInt32(1 + 2 * $0), path: "/3/device/aa", endStream: false) })
            let refused = try await connection.waitForFrames { $0.contains { $0.kind == .rstStream } }
            let reset = try #require(refused.first { $0.kind == .rstStream })
            #expect(reset.streamID == 5)
            #expect(reset.errorCode == 7)
            try await connection.send([H2Frame.data(streamID: 1, [1], endStream: true), H2Frame.data(streamID: 3, [1], endStream: true)])
            try await connection.waitForFrames { Set($0.filter { $0.kind == .headers }.map(\.streamID)) == [1, 3] }
            // Answered streams are closed, so a new one fits again.
            try await connection.send([H2Frame.post(streamID: 7, path: "/3/device/aa", endStream: true)])
            let frames = try await connection.waitForFrames { frames in
                Set(frames.filter { $0.kind == .headers }.map(\.streamID)) == [1, 3, 7]
            }
            #expect(Set(frames.filter { $0.kind == .headers }.map(\.streamID)) == [1, 3, 7])
            #expect(!frames.contains { $0.kind == .goAway })
            #expect(!connection.isClosed)
            await connection.close()
        }
    }

    @Test func anIdleConnectionGetsGoAwayIdleTimeout() async throws {
        try await withReceiver({ $0.idleTimeout = .milliseconds(300) }) { receiver in
            let connection = try await RawH2Connection.connect(port: receiver.h2cPort!)
            try await connection.send(Self.handshake)
            #expect(try await connection.waitForClose(timeout: .seconds(5)))
            let goAway = try #require(connection.frames.first { $0.kind == .goAway })
            #expect(goAway.debugData == #"{"reason":"IdleTimeout"}"#)
            #expect(goAway.errorCode == 0)
        }
    }

    @Test func ourClientOverTLSAndH2C() async throws {
        try await withReceiver { receiver in
            let request = H2Request(
                method: "POST", path: SamplePush.path, headers: SamplePush.headerList(jwt: try DevProviderToken.make()),
                body: SamplePush.payload)
            let tls = try await H2ClientConnection.connect(
                host: "localhost", port: receiver.tlsPort!, tls: .client(TLSClientConfiguration(caFile: DevCertificates.ca)))
            #expect(tls.tls?.alpn == "h2")
            #expect(try await tls.send(request).status == 200)
            #expect(try await tls.remoteMaxConcurrentStreams() == 1000)
            await tls.close()

            let insecure = try await H2ClientConnection.connect(
                host: "127.0.0.1", port: receiver.tlsPort!, tls: .client(TLSClientConfiguration(insecure: true)), serverName: "example.com")
            #expect(try await insecure.send(request).status == 200)
            await insecure.close()

            let h2c = try await H2ClientConnection.connect(host: "127.0.0.1", port: receiver.h2cPort!, tls: nil)
            let response = try await h2c.send(H2Request(method: "GET", path: "/nope"))
            #expect(response.status == 404)
            #expect(response.body == Array(#"{"reason":"BadPath"}"#.utf8))
            await h2c.close()
        }
    }

    @Test func ourClientRefusesAWrongHostOrAnUntrustedCA() async throws {
        try await withReceiver { receiver in
            await #expect(throws: H2ConnectError.self) {
                _ = try await H2ClientConnection.connect(
                    host: "127.0.0.1", port: receiver.tlsPort!, tls: .client(TLSClientConfiguration(caFile: DevCertificates.ca)),
                    serverName: "example.com")
            }
            await #expect {
                _ = try await H2ClientConnection.connect(
                    host: "localhost", port: receiver.tlsPort!, tls: .client(TLSClientConfiguration(caFile: DevCertificates.otherCA)))
            } throws: {
                $0 as? H2ConnectError
                    == .untrustedServer(host: "localhost", port: receiver.tlsPort!, reason: "unable to get local issuer certificate")
            }
            await #expect {
                _ = try await H2ClientConnection.connect(host: "127.0.0.1", port: 1, tls: nil)
            } throws: { "\($0)".hasPrefix("cannot connect to 127.0.0.1:1") }
        }
    }

    /// A peer that accepts and never speaks: the TLS handshake, or an h2c request, fails once
    /// the server has sent nothing for the answer timeout, instead of waiting for ever.
    @Test func ourClientGivesUpOnAServerThatNeverSpeaks() async throws {
        let silent = try LoopbackPort.Silent()
        await #expect {
            _ = try await H2ClientConnection.connect(
                host: "127.0.0.1", port: silent.port, tls: .client(TLSClientConfiguration(insecure: true)), answerTimeout: .seconds(1))
        } throws: { "\($0)".hasSuffix("the server sent nothing for 1 s") }
        let h2c = try await H2ClientConnection.connect(host: "127.0.0.1", port: silent.port, tls: nil, answerTimeout: .seconds(1))
        await #expect {
            _ = try await h2c.send(H2Request(method: "GET", path: "/"))
        } throws: { "\($0)" == "the connection closed before the server took it: the server sent nothing for 1 s" }  // held for its SETTINGS
        await h2c.close()
        // A silence under a second is said in milliseconds, not as "0 s".
        await #expect {
            _ = try await H2ClientConnection.connect(
                host: "127.0.0.1", port: silent.port, tls: .client(TLSClientConfiguration(insecure: true)), answerTimeout: .milliseconds(300))
        } throws: { "\($0)".hasSuffix("the server sent nothing for 300 ms") }
    }

    @Test func ourClientKeepsWithinTheServersStreamLimit() async throws {
        try await withReceiver({ $0.settings.maxConcurrentStreams = 10 }) { receiver in
            let connection = try await H2ClientConnection.connect(host: "127.0.0.1", port: receiver.h2cPort!, tls: nil)
            let headers = SamplePush.headerList(jwt: try DevProviderToken.make())
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<500 {
                    group.addTask {
                        try await connection.send(H2Request(method: "POST", path: SamplePush.path, headers: headers, body: SamplePush.payload)).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 500)
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(try await connection.remoteMaxConcurrentStreams() == 10)
            await connection.close()
        }
    }
}
