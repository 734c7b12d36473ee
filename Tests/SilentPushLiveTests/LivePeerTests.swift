import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// The receiver on 127.0.0.1:0, in-process, against independent HTTP/2 peers.
@Suite(.serialized) struct LivePeerTests {
    static let payload = Repository.root + "/payloads/background.json"

    /// curl/nghttp/h2load header arguments of a valid background push.
    static func push() throws -> [String] { SamplePush.headerArguments(jwt: try DevProviderToken.make()) }

    func withReceiver(_ configure: (inout ReceiverConfiguration) -> Void = { _ in }, _ body: (Receiver) async throws -> Void) async throws {
        try await Receiver.withTesting(configure, body)
    }

    static func isUpperCaseUUID(_ text: Substring) -> Bool {
        text.count == 36 && UUID(uuidString: String(text)) != nil && text == text.uppercased()
    }

    @Test func curlOverTLSWithTheDevCA() async throws {
        try await withReceiver { receiver in
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-D", "-", "-o", "/dev/null",
                    "-d", "@\(Self.payload)", "https://localhost:\(receiver.tlsPort!)\(SamplePush.path)",
                ] + Self.push())
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.hasPrefix("HTTP/2 200"))
            let id = try #require(result.output.split(separator: "\r\n").first { $0.hasPrefix("apns-id: ") }?.dropFirst(9))
            #expect(Self.isUpperCaseUUID(id))
        }
    }

    @Test func curlOverH2CWithPriorKnowledgeEchoesTheApnsID() async throws {
        try await withReceiver { receiver in
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2-prior-knowledge", "-D", "-", "-o", "/dev/null", "-H", "apns-id: 123E4567-E89B-12D3-A456-4266554400A0",
                    "-d", "@\(Self.payload)", "http://127.0.0.1:\(receiver.h2cPort!)\(SamplePush.path)",
                ] + Self.push())
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.hasPrefix("HTTP/2 200"))
            #expect(result.output.contains("apns-id: 123E4567-E89B-12D3-A456-4266554400A0"))
        }
    }

    @Test func otherPathsAreBadPath() async throws {
        try await withReceiver { receiver in
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2-prior-knowledge", "-D", "/dev/stderr", "http://127.0.0.1:\(receiver.h2cPort!)/4/other",
                ])
            #expect(result.output == #"{"reason":"BadPath"}"#)
            #expect(result.errorOutput.hasPrefix("HTTP/2 404"))
            #expect(result.errorOutput.contains("content-type: application/json"))
        }
    }

    /// A HEAD is answered with the status and headers its GET or POST would have, and no
    /// content (RFC 9110 §9.3.2): curl and nghttp read it cleanly (a body made them reset the
    /// stream with PROTOCOL_ERROR).
    @Test func aHeadRequestIsAnsweredWithoutContent() async throws {
        try await withReceiver { receiver in
            let url = "http://127.0.0.1:\(receiver.h2cPort!)\(SamplePush.path)"
            let curl = try await PeerProcess.run("curl", ["-sS", "--http2-prior-knowledge", "-I", url])
            #expect(curl.status == 0, "\(curl.errorOutput)")
            #expect(curl.output.hasPrefix("HTTP/2 405"), "\(curl.output)")
            let nghttp = try await PeerProcess.run("nghttp", ["-v", "-H", ":method: HEAD", url])
            #expect(nghttp.status == 0, "\(nghttp.output)\(nghttp.errorOutput)")
            #expect(!nghttp.output.contains("recv DATA") && !nghttp.output.contains("PROTOCOL_ERROR"), "\(nghttp.output)")
        }
    }

    @Test func aTLSClientThatOffersNoALPNIsServedH2() async throws {
        try await withReceiver { receiver in
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "-v", "--http2-prior-knowledge", "--no-alpn", "--cacert", DevCertificates.ca, "-o", "/dev/null",
                    "-w", "%{http_version} %{http_code}", "-d", "@\(Self.payload)", "https://localhost:\(receiver.tlsPort!)\(SamplePush.path)",
                ] + Self.push())
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output == "2 200")
            #expect(!result.errorOutput.contains("ALPN: server accepted"))
        }
    }

    @Test(arguments: [true, false])
    func nghttpOverBothListeners(tls: Bool) async throws {
        try await withReceiver { receiver in
            let url = tls ? "https://localhost:\(receiver.tlsPort!)" : "http://127.0.0.1:\(receiver.h2cPort!)"
            let result = try await PeerProcess.run("nghttp", ["-v", "-d", Self.payload, url + SamplePush.path] + Self.push())
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.contains("recv (stream_id=13) :status: 200") || result.output.contains(":status: 200"))
            #expect(result.output.contains("apns-id: "))
        }
    }

    @Test func opensslSelectsH2ThroughALPN() async throws {
        try await withReceiver { receiver in
            let withALPN = try await PeerProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(receiver.tlsPort!)", "-alpn", "h2", "-CAfile", DevCertificates.ca, "-verify_return_error",
                ])
            #expect(withALPN.output.contains("ALPN protocol: h2"))
            #expect(withALPN.output.contains("Verify return code: 0 (ok)"))
            let withoutALPN = try await PeerProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(receiver.tlsPort!)", "-CAfile", DevCertificates.ca,
                ])
            #expect(withoutALPN.output.contains("No ALPN negotiated"))
            let http11Only = try await PeerProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(receiver.tlsPort!)", "-alpn", "http/1.1", "-CAfile", DevCertificates.ca,
                ])
            // Refused in the handshake (RFC 7301 §3.2), not answered with HTTP/2 frames.
            #expect(http11Only.errorOutput.contains("no application protocol"), "\(http11Only.output)\(http11Only.errorOutput)")
            #expect(http11Only.output.contains("Cipher is (NONE)"), "no session: \(http11Only.output)")
        }
    }

    /// A client CA given as a pipe (`--client-ca <(…)`) is read once: it is trusted, and named
    /// in the certificate request, which `openssl s_client` lists as the acceptable CA names.
    @Test func aClientCAFromAPipeIsTrustedAndNamedInTheCertificateRequest() async throws {
        let clientCA = try FilledPipe(contentsOf: DevCertificates.ca)
        defer { withExtendedLifetime(clientCA) {} }
        try await withReceiver({
            $0 = .testing(requireClientCertificates: true)
            $0.clientCA = clientCA.path
        }) { receiver in
            let result = try await PeerProcess.run(
                "openssl",
                [
                    "s_client", "-connect", "127.0.0.1:\(receiver.tlsPort!)", "-alpn", "h2", "-CAfile", DevCertificates.ca,
                    "-cert", DevCertificates.clientCertificate, "-key", DevCertificates.clientKey, "-verify_return_error",
                ])
            #expect(
                result.output.contains("Acceptable client certificate CA names\nO = SilentPush Dev (TESTING ONLY), CN = SilentPush Dev CA\n"),
                "\(result.output)")
            #expect(result.output.contains("ALPN protocol: h2"), "\(result.output)\(result.errorOutput)")
        }
    }

    /// TLS 1.2 offers only AEAD suites with ephemeral keys (RFC 9113 §9.2.2): a client that
    /// offers only a CBC suite is refused in the handshake; one with AES-GCM connects.
    @Test func tls12RefusesTheSuitesHTTP2Blocks() async throws {
        try await withReceiver { receiver in
            func connect(_ cipher: String) async throws -> PeerResult {
                try await PeerProcess.run(
                    "openssl",
                    [
                        "s_client", "-connect", "127.0.0.1:\(receiver.tlsPort!)", "-alpn", "h2", "-tls1_2", "-cipher", cipher,
                        "-CAfile", DevCertificates.ca,
                    ])
            }
            let cbc = try await connect("ECDHE-ECDSA-AES128-SHA")
            #expect(cbc.errorOutput.contains("handshake failure"), "\(cbc.output)\(cbc.errorOutput)")
            let gcm = try await connect("ECDHE-ECDSA-AES128-GCM-SHA256")
            #expect(gcm.output.contains("ALPN protocol: h2"), "\(gcm.output)\(gcm.errorOutput)")
        }
    }

    @Test(arguments: [true, false])
    func h2loadMultiplexes100StreamsOnOneConnection(tls: Bool) async throws {
        try await withReceiver { receiver in
            let url = tls ? "https://127.0.0.1:\(receiver.tlsPort!)" : "http://127.0.0.1:\(receiver.h2cPort!)"
            let result = try await PeerProcess.run(
                "h2load", ["-n", "2000", "-c", "1", "-m", "100", "-d", Self.payload, url + SamplePush.path] + Self.push())
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.contains("requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed, 0 errored, 0 timeout"))
            #expect(result.output.contains("status codes: 2000 2xx"))
            if tls { #expect(result.output.contains("Application protocol: h2")) }
        }
    }

    @Test func aBodyOverTheCapIsRefusedWith413() async throws {
        try await withReceiver { receiver in
            let big = Scratch.directory.appendingPathComponent("silentpush-big-\(UUID().uuidString).bin")
            try Data(repeating: 0x61, count: 200_000).write(to: big)
            defer { try? FileManager.default.removeItem(at: big) }
            let result = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2-prior-knowledge", "-w", " %{http_code}", "--data-binary", "@\(big.path)",
                    "http://127.0.0.1:\(receiver.h2cPort!)/3/device/abcdef",
                ])
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output == #"{"reason":"PayloadTooLarge"} 413"#)
        }
    }

    @Test func withAClientCACertificatesOrTokensAuthenticateOnOneEndpoint() async throws {
        try await withReceiver({ $0.clientCA = DevCertificates.ca }) { receiver in
            let url = "https://localhost:\(receiver.tlsPort!)\(SamplePush.path)"
            let good = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "--cert", DevCertificates.clientCertificate,
                    "--key", DevCertificates.clientKey, "-o", "/dev/null", "-w", "%{http_code}", "-d", "@\(Self.payload)", url,
                ] + SamplePush.headerArguments(jwt: nil))
            #expect(good.output == "200", "\(good.errorOutput)")
            let other = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "--cert", DevCertificates.otherClientCertificate,
                    "--key", DevCertificates.otherClientKey, "-o", "/dev/null", "-w", "%{http_code}", "-d", "@\(Self.payload)", url,
                ])
            #expect(other.status != 0)
            #expect(other.output != "200")
            // With no certificate the connection stands and provider tokens are the way in, as
            // on APNs's own hosts.
            let none = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-w", " %{http_code}", "-d", "@\(Self.payload)", url,
                ] + SamplePush.headerArguments(jwt: nil))
            #expect(none.output == #"{"reason":"MissingProviderToken"} 403"#, "\(none.errorOutput)")
            let token = try await PeerProcess.run(
                "curl",
                [
                    "-sS", "--http2", "--cacert", DevCertificates.ca, "-o", "/dev/null", "-w", "%{http_code}", "-d", "@\(Self.payload)", url,
                ] + SamplePush.headerArguments(jwt: try DevProviderToken.make()))
            #expect(token.output == "200", "\(token.errorOutput)")
        }
    }
}
