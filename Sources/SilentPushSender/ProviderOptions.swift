import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushTransport

/// Where a provider connects and how it authenticates: the options `pushsend send`,
/// `pushsend broadcast` and `pushsend channel` share. Resolved into a target, TLS material
/// and a provider token (or a client certificate), or one line that says what to fix.
package struct ProviderOptions: ParsableArguments, Sendable {
    /// The ports `--port` takes.
    static let portRange = 1...65535

    @Option(
        help: ArgumentHelp(
            "The receiver: http://HOST:PORT (h2c) or https://HOST:PORT (TLS, ALPN h2); default make run's receiver, https://localhost:2197 (2195, its channels listener, for pushsend channel).",
            valueName: "url"))
    package var url: String?

    @Flag(
        help:
            "Apple's development host: api.sandbox.push.apple.com for pushes and broadcasts, api-manage-broadcast.sandbox.push.apple.com for channels."
    )
    package var sandbox = false

    @Flag(help: "Apple's production host: api.push.apple.com for pushes and broadcasts, api-manage-broadcast.push.apple.com for channels.")
    package var production = false

    @Option(
        parsing: .unconditional,
        help: "The port for --sandbox/--production: 443 (default) or 2197 for pushes; 2195 or 2196 (the defaults) for channels.",
        transform: { try PushSendOptions.wholeNumber($0, expected: WholeNumberProblem.describe(Self.portRange)) })
    package var port: Int?

    @Option(help: ArgumentHelp("Trust this CA (PEM) for https (default for local receivers: the development CA, certs/ca.pem).", valueName: "pem"))
    package var cacert: String?

    @Flag(help: "Do not verify the server's certificate.")
    package var insecure = false

    @Option(help: ArgumentHelp("The provider-token key (.p8). Also APNS_KEY (default for local receivers: the development key).", valueName: "p8"))
    package var key: String?

    @Option(name: .customLong("key-id"), help: "The key's id. Also APNS_KEY_ID.")
    package var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your team id. Also APNS_TEAM_ID.")
    package var teamID: String?

    @Option(help: ArgumentHelp("Authenticate with this client certificate (PEM) instead of a token.", valueName: "pem"))
    package var cert: String?

    @Option(name: .customLong("cert-key"), help: ArgumentHelp("The client certificate's private key (PEM).", valueName: "pem"))
    package var certKey: String?

    /// `APNS_KEY`, `APNS_KEY_ID`, `APNS_TEAM_ID` are read from here.
    package var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Where the development CA and key are: next to the install, in the checkout or in the
    /// working directory (nil when none has them).
    package var certificatesDirectory: String? = Platform.developmentMaterial()?.certificates
    /// Where `certificatesDirectory` was looked for, for the message when it is nil.
    package var certificatesSearched: @Sendable () -> String = { Platform.developmentMaterialSearched }

    /// For `parse(_:)`.
    package init() {}

    /// The flags; the rest is not parsed.
    private enum CodingKeys: String, CodingKey {
        case url, sandbox, production, port, cacert, insecure, key, keyID, teamID, cert, certKey
    }

    /// The local receiver, not Apple: `--url`, or neither `--sandbox` nor `--production`.
    package var isLocal: Bool { url != nil || (!sandbox && !production) }

    /// The target: `--url`, else Apple's `sandbox` or `production` host, else the local
    /// receiver at `development`.
    package func resolveTarget(development: String, sandbox sandboxTarget: APNsTarget, production productionTarget: APNsTarget) throws -> APNsTarget {
        let chosen = [url != nil, sandbox, production].filter { $0 }.count
        guard chosen <= 1 else { throw PushSendError.conflictingOptions("give one of --url, --sandbox or --production") }
        if let port, !Self.portRange.contains(port) { throw PushSendError.outOfRange(option: "--port", value: port, range: Self.portRange) }
        if sandbox { return sandboxTarget }
        if production { return productionTarget }
        if port != nil { throw PushSendError.conflictingOptions("--port goes with --sandbox or --production; put the port in --url") }
        let text = url ?? development
        guard let target = APNsTarget(url: text) else {
            throw PushSendError.invalidValue(
                option: "--url", value: "'\(URLUserInfo.masked(text))'", expected: "http://HOST:PORT or https://HOST:PORT")
        }
        return target
    }

    /// The TLS material for `target` and how to authenticate: a client certificate, or a
    /// provider token (the dev key for a local receiver when none is given). A receiver on
    /// this machine has a certificate from the development CA (make run's): the default
    /// target always does, another loopback URL when the CA is at hand.
    /// `identity` is `clientIdentity()`'s if the caller read it (for the topic); nil: read
    /// here. Either way the files are read once.
    package func credentials(
        for target: APNsTarget, local: Bool, identity: TLSClientIdentity?
    ) throws -> (TLSClientConfiguration, PushSendConfiguration.Authentication) {
        // h2c has no certificate to check: a CA given for it would go unused, unnoticed.
        if cacert != nil, target.scheme != "https" {
            throw PushSendError.conflictingOptions("--cacert needs TLS: give an https:// --url (the receiver's TLS port), not \(target.scheme)://")
        }
        // One says which certificates to trust, the other to trust any: both is a mistake.
        if cacert != nil, insecure { throw PushSendError.conflictingOptions("give --cacert or --insecure, not both") }
        var tls = TLSClientConfiguration(caFile: cacert, insecure: insecure)
        let developmentCA = certificatesDirectory.map { $0 + "/ca.pem" }
        if cacert == nil, !insecure, !sandbox, !production {
            if url == nil {
                guard let developmentCA else {
                    throw PushSendError.missingDevelopmentMaterial(what: "CA", searched: certificatesSearched(), fix: "--cacert, or --insecure")
                }
                tls.caFile = developmentCA
            } else if let developmentCA, target.scheme == "https", target.isLoopback, FileManager.default.isReadableFile(atPath: developmentCA) {
                tls.caFile = developmentCA
            }
        }
        if cert != nil || certKey != nil {
            guard cert != nil else { throw PushSendError.conflictingOptions("--cert-key needs --cert") }
            let identity = try identity ?? clientIdentity()
            guard key == nil else { throw PushSendError.conflictingOptions("give --key or --cert, not both") }
            // h2c has no TLS handshake to present a certificate in: it would go unsent.
            guard target.scheme == "https" else {
                throw PushSendError.conflictingOptions("--cert needs TLS: give an https:// --url (the receiver's TLS port), not \(target.scheme)://")
            }
            tls.clientIdentity = identity
            return (tls, .certificate)
        }
        return (tls, .token(try signer(local: local)))
    }

    /// The most characters a key or team id may have: Apple's have 10.
    static let idLengthLimit = 64

    /// The provider-token signer: the flags', the environment's, or (locally) the dev key.
    func signer(local: Bool) throws -> ProviderTokenSigner {
        let developmentKey = certificatesDirectory.map { $0 + "/AuthKey_\(PushSendOptions.developmentKeyID).p8" }
        // A variable set to nothing (`APNS_KEY_ID=` in a CI file) is not given.
        let environment = environment.filter { !$0.value.isEmpty }
        if local, key == nil, environment["APNS_KEY"] == nil, developmentKey == nil {
            throw PushSendError.missingDevelopmentMaterial(
                what: "provider key", searched: certificatesSearched(), fix: "--key, --key-id and --team-id, or --cert")
        }
        // The dev key's id and team go only with the dev key: a key of the user's (flag or
        // variable) needs its own, or its token is one no server accepts.
        let developmentKeyUsed = local && key == nil && environment["APNS_KEY"] == nil
        let keyFile = key ?? environment["APNS_KEY"] ?? (local ? developmentKey : nil)
        // The flag or variable the key came from, for advice on a key that cannot be used.
        let keySource = key == nil && environment["APNS_KEY"] != nil ? "APNS_KEY" : "--key"
        let keyID = self.keyID ?? environment["APNS_KEY_ID"] ?? (developmentKeyUsed ? PushSendOptions.developmentKeyID : nil)
        let teamID = self.teamID ?? environment["APNS_TEAM_ID"] ?? (developmentKeyUsed ? PushSendOptions.developmentTeamID : nil)
        guard let keyFile else { throw PushSendError.missingOption(need: "--key AuthKey.p8 (or APNS_KEY), or --cert, to push to Apple") }
        // A key's contents where its path belongs (APNS_KEY="$(cat key.p8)") are never echoed.
        guard FileManager.default.isReadableFile(atPath: keyFile) || !PEMContents.found(in: keyFile) else {
            throw PushSendError.unusableKey(
                problem: "\(keySource) holds the key's contents; give the path of its .p8 file (the contents are not shown)", source: keySource)
        }
        guard let keyID, !keyID.isEmpty else { throw PushSendError.missingOption(need: "--key-id (or APNS_KEY_ID): the id of \(keyFile)") }
        guard let teamID, !teamID.isEmpty else { throw PushSendError.missingOption(need: "--team-id (or APNS_TEAM_ID): your team's id") }
        // Each goes into every token: one a server can only refuse is said here, not as a
        // 403 (a line end read from a file), or a header block too large to send.
        for (value, source) in [(keyID, self.keyID == nil ? "APNS_KEY_ID" : "--key-id"), (teamID, self.teamID == nil ? "APNS_TEAM_ID" : "--team-id")]
        {
            guard value.utf8.count <= Self.idLengthLimit,
                value.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
            else {
                throw PushSendError.invalidValue(
                    option: source, value: "'\(TerminalLine.escaped(String(value.prefix(24))))\(value.count > 24 ? "…" : "")'",
                    expected:
                        "an id as Apple shows it (10 letters and digits; at most \(Self.idLengthLimit) visible characters, no space or line end)")
            }
        }
        let key: ES256Key
        do {
            key = try ES256Key.load(file: keyFile)
        } catch {
            throw PushSendError.unusableKey(problem: "\(error)", source: keySource)
        }
        guard key.canSign else {
            throw PushSendError.unusableKey(
                problem: "key file '\(keyFile)' is a public key; pushsend signs with the .p8 private key", source: keySource)
        }
        return ProviderTokenSigner(key: key, keyID: keyID, teamID: teamID)
    }
}

extension ProviderOptions {
    /// The bundle id of `identity`'s certificate (its subject UID, else the first topic of
    /// Apple's topic extension); nil without one, or for PEM that holds no certificate
    /// (the TLS set-up says what is wrong with it).
    func certificateTopic(of identity: TLSClientIdentity?) throws(PushSendError) -> String? {
        guard let identity,
            let info = X509CertificateInfo(pem: identity.certificateChain, extensionOIDs: [ClientCertificateIdentity.topicExtensionOID])
        else { return nil }
        let cert = identity.certificatePath
        let named = ClientCertificateIdentity(
            subjectUID: info.subjectUID, topicExtension: info.extensionValue(ClientCertificateIdentity.topicExtensionOID),
            development: false, production: false)
        guard let topic = named.topics.first else {
            throw PushSendError.missingOption(
                need: "--topic: the certificate of --cert '\(cert)' names no topic (no subject UID, no topic extension)")
        }
        guard APNsRequestValidator.isTopicShape(topic) else {
            throw PushSendError.missingOption(need: "--topic: the bundle id of --cert '\(cert)' is not one a topic can be")
        }
        return topic
    }

    /// `--cert` and `--cert-key`, each read once (either may be a pipe, `<(…)`), once both
    /// are PEM this tool can read (and `--cert` holds the key when `--cert-key` is not
    /// given); nil without `--cert`. A file that cannot be read, or is not PEM, is said as such.
    package func clientIdentity() throws(PushSendError) -> TLSClientIdentity? {
        guard let cert else { return nil }
        var certificate: [UInt8] = []
        var key: [UInt8] = []
        for (flag, path, kind) in [("--cert", cert, PEMContents.Kind.certificate), ("--cert-key", certKey, .key)] {
            guard let path else { continue }
            let contents = try PushSendError.read("\(flag) file", path, limit: FileBytes.pemLimit)
            if let hint = PEMContents.conversionHint(contents, kind: kind) {
                throw PushSendError.invalidValue(option: flag, value: "'\(path)'", expected: "PEM (\(hint))")
            }
            // Without --cert-key the key comes from the certificate's own file.
            if flag == "--cert", certKey == nil, !String(decoding: contents, as: UTF8.self).contains("PRIVATE KEY-----") {
                throw PushSendError.conflictingOptions("--cert '\(cert)' holds no private key: give --cert-key PEM, or a PEM with both")
            }
            if flag == "--cert" { certificate = contents } else { key = contents }
        }
        return TLSClientIdentity(
            certificateChain: certificate, certificatePath: cert, privateKey: certKey == nil ? certificate : key, privateKeyPath: certKey ?? cert)
    }
}
