import Foundation
import SilentPushTestSupport
import SilentPushTesting
import SilentPushTransport
import Testing

/// Two TLS engines joined in memory: handshake, ALPN, client certificates, host names.
@Suite struct TLSEngineTests {
    struct Pair {
        let client: TLSEngine
        let server: TLSEngine
        var clientError: (any Error)?
        var serverError: (any Error)?
        var clientReceived: [UInt8] = []
        var serverReceived: [UInt8] = []

        init(server: TLSServerConfiguration, client: TLSClientConfiguration, serverName: String = "localhost") throws {
            self.server = try TLSEngine(context: .server(server))
            self.client = try TLSEngine(context: .client(client), serverName: serverName)
        }

        /// Runs the handshake (and any data) to quiescence.
        mutating func pump() {
            try? client.startHandshake()
            for _ in 0..<20 {
                var moved = false
                var bytes: [UInt8] = []
                client.drainCiphertext { bytes += $0 }
                if !bytes.isEmpty {
                    moved = true
                    bytes.withUnsafeBytes { server.receive($0) }
                    if serverError == nil {
                        do { _ = try server.readPlaintext { serverReceived += $0 } } catch { serverError = error }
                    }
                }
                bytes = []
                server.drainCiphertext { bytes += $0 }
                if !bytes.isEmpty {
                    moved = true
                    bytes.withUnsafeBytes { client.receive($0) }
                    if clientError == nil {
                        do { _ = try client.readPlaintext { clientReceived += $0 } } catch { clientError = error }
                    }
                }
                if !moved { return }
            }
        }
    }

    static let server = TLSServerConfiguration(
        certificateChainFile: DevCertificates.serverCertificate, privateKeyFile: DevCertificates.serverKey)

    @Test func handshakeSelectsH2AndCarriesData() throws {
        var pair = try Pair(server: Self.server, client: TLSClientConfiguration(caFile: DevCertificates.ca))
        pair.pump()
        #expect(pair.clientError == nil)
        #expect(pair.serverError == nil)
        #expect(pair.server.sessionInfo?.alpn == "h2")
        #expect(pair.client.sessionInfo?.alpn == "h2")
        #expect(["TLSv1.2", "TLSv1.3"].contains(pair.server.sessionInfo?.protocolVersion ?? ""))
        #expect(pair.server.sessionInfo?.peerCertificateDER == nil)
        try Array("ping".utf8).withUnsafeBytes { try pair.client.writePlaintext($0) }
        pair.pump()
        #expect(pair.serverReceived == Array("ping".utf8))
    }

    @Test func untrustedServerIsRefusedByTheClient() throws {
        var pair = try Pair(server: Self.server, client: TLSClientConfiguration(caFile: DevCertificates.otherCA))
        pair.pump()
        #expect(pair.client.sessionInfo == nil)
        #expect(
            pair.clientError as? TLSError == .peerCertificateRejected("unable to get local issuer certificate"),
            "\(String(describing: pair.clientError))")
    }

    @Test func hostNameMismatchIsRefusedUnlessInsecure() throws {
        var pair = try Pair(server: Self.server, client: TLSClientConfiguration(caFile: DevCertificates.ca), serverName: "example.com")
        pair.pump()
        #expect(pair.client.sessionInfo == nil)
        #expect(pair.clientError != nil)

        var insecure = try Pair(server: Self.server, client: TLSClientConfiguration(insecure: true), serverName: "example.com")
        insecure.pump()
        #expect(insecure.client.sessionInfo != nil)
    }

    @Test func ipAddressIsCheckedAgainstTheCertificate() throws {
        var pair = try Pair(server: Self.server, client: TLSClientConfiguration(caFile: DevCertificates.ca), serverName: "127.0.0.1")
        pair.pump()
        #expect(pair.client.sessionInfo != nil)
        var wrong = try Pair(server: Self.server, client: TLSClientConfiguration(caFile: DevCertificates.ca), serverName: "10.1.2.3")
        wrong.pump()
        #expect(wrong.client.sessionInfo == nil)
    }

    @Test func clientCertificatesAreVerifiedAgainstTheClientCA() throws {
        var mutual = Self.server
        mutual.clientCAFile = DevCertificates.ca

        var good = try Pair(
            server: mutual,
            client: TLSClientConfiguration(
                caFile: DevCertificates.ca,
                clientIdentity: try TLSClientIdentity(certificateFile: DevCertificates.clientCertificate, privateKeyFile: DevCertificates.clientKey)))
        good.pump()
        #expect(good.serverError == nil)
        let der = try #require(good.server.sessionInfo?.peerCertificateDER)
        #expect(der.count > 300)

        var other = try Pair(
            server: mutual,
            client: TLSClientConfiguration(
                caFile: DevCertificates.ca,
                clientIdentity: try TLSClientIdentity(
                    certificateFile: DevCertificates.otherClientCertificate, privateKeyFile: DevCertificates.otherClientKey)))
        other.pump()
        #expect(other.server.sessionInfo == nil)
        #expect(other.serverError != nil)

        // No certificate at all is allowed (the client then authenticates with tokens).
        var none = try Pair(server: mutual, client: TLSClientConfiguration(caFile: DevCertificates.ca))
        none.pump()
        #expect(none.serverError == nil)
        #expect(none.server.sessionInfo != nil && none.server.sessionInfo?.peerCertificateDER == nil)
    }

    /// A client CA file that holds only an intermediate trusts the certificates it issued,
    /// and still refuses those of another CA.
    @Test func anIntermediateAloneAsTheClientCATrustsWhatItIssued() throws {
        var mutual = Self.server
        mutual.clientCAFile = DevCertificates.intermediateCA
        var issued = try Pair(
            server: mutual,
            client: TLSClientConfiguration(
                caFile: DevCertificates.ca,
                clientIdentity: try TLSClientIdentity(
                    certificateFile: DevCertificates.intermediateClientCertificate, privateKeyFile: DevCertificates.clientKey)))
        issued.pump()
        #expect(issued.serverError == nil)
        #expect(issued.server.sessionInfo?.peerCertificateDER != nil)

        // Issued by the root, not by the intermediate given: refused.
        var root = try Pair(
            server: mutual,
            client: TLSClientConfiguration(
                caFile: DevCertificates.ca,
                clientIdentity: try TLSClientIdentity(certificateFile: DevCertificates.clientCertificate, privateKeyFile: DevCertificates.clientKey)))
        root.pump()
        #expect(root.server.sessionInfo == nil)
        #expect(root.serverError != nil)
    }

    /// A client identity read into memory as one PEM (the certificate, its intermediate, its
    /// key) presents its chain: a server that trusts only the root verifies it, and not
    /// without the intermediate. Bytes that hold no certificate or no key are refused, named
    /// by the path they came from.
    @Test func aClientIdentityInMemoryPresentsItsChainAndFindsItsKeyBesideIt() throws {
        var mutual = Self.server
        mutual.clientCAFile = DevCertificates.ca
        let leaf = try Array(Data(contentsOf: URL(fileURLWithPath: DevCertificates.intermediateClientCertificate)))
        let intermediate = try Array(Data(contentsOf: URL(fileURLWithPath: DevCertificates.intermediateCA)))
        let key = try Array(Data(contentsOf: URL(fileURLWithPath: DevCertificates.clientKey)))
        func identity(_ pem: [UInt8]) -> TLSClientIdentity {
            TLSClientIdentity(certificateChain: pem, certificatePath: "/dev/fd/63", privateKey: pem, privateKeyPath: "/dev/fd/63")
        }
        var chained = try Pair(
            server: mutual, client: TLSClientConfiguration(caFile: DevCertificates.ca, clientIdentity: identity(leaf + intermediate + key)))
        chained.pump()
        #expect(chained.serverError == nil)
        #expect(chained.server.sessionInfo?.peerCertificateDER == (try DevCertificates.der(ofPEM: DevCertificates.intermediateClientCertificate)))

        var alone = try Pair(server: mutual, client: TLSClientConfiguration(caFile: DevCertificates.ca, clientIdentity: identity(leaf + key)))
        alone.pump()
        #expect(alone.server.sessionInfo == nil)
        #expect(alone.serverError != nil)

        for (pem, message) in [(key, "cannot use client certificate '/dev/fd/63'"), (leaf, "cannot use client certificate key '/dev/fd/63'")] {
            #expect {
                _ = try TLSContext.client(TLSClientConfiguration(caFile: DevCertificates.ca, clientIdentity: identity(pem)))
            } throws: { "\($0)".hasPrefix(message) }
        }
    }

    /// Every TLS file is read once: given as pipes (`<(…)`, which give their bytes to the
    /// first reader only), the server's certificate, key and client CA and the client's CA file
    /// still make a mutual handshake. A file over `FileBytes.pemLimit` is refused unread, and
    /// one that cannot be opened says why in the system's words.
    @Test func eachTLSFileIsReadOnceFromAPipeAndWithinItsLimit() throws {
        var pipes: [FilledPipe] = []
        defer { withExtendedLifetime(pipes) {} }
        func piped(_ path: String) throws -> String {
            pipes.append(try FilledPipe(contentsOf: path))
            return pipes[pipes.count - 1].path
        }
        let server = TLSServerConfiguration(
            certificateChainFile: try piped(DevCertificates.serverCertificate), privateKeyFile: try piped(DevCertificates.serverKey),
            clientCAFile: try piped(DevCertificates.ca))
        let identity = try TLSClientIdentity(certificateFile: DevCertificates.clientCertificate, privateKeyFile: DevCertificates.clientKey)
        var pair = try Pair(server: server, client: TLSClientConfiguration(caFile: try piped(DevCertificates.ca), clientIdentity: identity))
        pair.pump()
        #expect(pair.clientError == nil && pair.serverError == nil)
        #expect(pair.server.sessionInfo?.peerCertificateDER == (try DevCertificates.der(ofPEM: DevCertificates.clientCertificate)))

        let large = Scratch.directory.appendingPathComponent("ca-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: large) }
        let ca = try Data(contentsOf: URL(fileURLWithPath: DevCertificates.ca))
        try (Data(repeating: 0x0A, count: FileBytes.pemLimit + 1 - ca.count) + ca).write(to: large)
        var overLimit = Self.server
        overLimit.clientCAFile = large.path
        #expect {
            _ = try TLSContext.server(overLimit)
        } throws: { "\($0)" == "cannot read client CA '\(large.path)': over 1048576 bytes, more than any PEM file of keys and certificates holds" }
        #expect {
            _ = try TLSContext.client(TLSClientConfiguration(caFile: "/nonexistent/ca.pem"))
        } throws: { "\($0)" == "cannot read CA file '/nonexistent/ca.pem': No such file or directory" }
    }

    @Test func missingFilesAreNamedInTheError() {
        #expect {
            _ = try TLSContext.server(
                TLSServerConfiguration(certificateChainFile: "/nonexistent/cert.pem", privateKeyFile: DevCertificates.serverKey))
        } throws: { "\($0)".contains("/nonexistent/cert.pem") }
        #expect {
            _ = try TLSContext.server(
                TLSServerConfiguration(certificateChainFile: DevCertificates.serverCertificate, privateKeyFile: DevCertificates.clientKey))
        } throws: { "\($0)".contains(DevCertificates.clientKey) }
    }

    /// A server context reads its own certificate's dates (`openssl ca` set them), to the second.
    @Test func aServerContextReadsItsCertificatesDates() async throws {
        let dated = try await DatedCertificate.make(notBefore: "20200101000000Z", notAfter: "20200102003000Z")
        let context = try TLSContext.server(TLSServerConfiguration(certificateChainFile: dated.certificate, privateKeyFile: dated.key))
        #expect(context.certificateValidity == 1_577_836_800...1_577_925_000)
        let client = try TLSContext.client(TLSClientConfiguration(insecure: true))
        #expect(client.certificateValidity == nil)
    }

    /// A client CA in DER, as Apple hands its CAs out (`.cer`), is refused with the command
    /// that converts it to PEM.
    @Test func aClientCAInDERIsToldHowToConvertIt() throws {
        let pem = try String(contentsOfFile: DevCertificates.ca, encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).cer")
        try #require(Data(base64Encoded: base64)).write(to: der)
        defer { try? FileManager.default.removeItem(at: der) }
        var configuration = Self.server
        configuration.clientCAFile = der.path
        #expect {
            _ = try TLSContext.server(configuration)
        } throws: { error in
            "\(error)".hasPrefix("cannot read client CA '\(der.path)': the file is binary")
                && "\(error)".contains("openssl x509 -inform der")
        }
    }
}
