import NIOSSL

/// The authorities a receiver trusts at the https origins of its fetch handlers and background
/// transfers: the system's roots, and the CAs given (`--origin-ca`), as an app trusts a
/// development CA its test devices have installed.
package struct OriginTrust: Sendable {
    /// What the HTTP clients verify an origin's certificate with.
    package let configuration: TLSConfiguration
    /// The same trust, for the origin probe's handshake (`HTTPClient.executeFailingFast`).
    package let context: NIOSSLContext?

    /// The system's roots alone.
    package static let system = OriginTrust(configuration: .makeClientConfiguration(), context: OriginProbe.defaultContext)

    private init(configuration: TLSConfiguration, context: NIOSSLContext?) {
        self.configuration = configuration
        self.context = context
    }

    /// The system's roots and the certificates of each PEM file of `paths`; throws
    /// `CertificateFileError` naming a file that holds none.
    package init(certificateAuthorities paths: [String]) throws {
        guard !paths.isEmpty else {
            self = .system
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = try paths.map { path in
            let certificates = try? NIOSSLCertificate.fromPEMFile(path)
            guard let certificates, !certificates.isEmpty else { throw CertificateFileError(path: path) }
            return .certificates(certificates)
        }
        self.init(configuration: configuration, context: try NIOSSLContext(configuration: configuration))
    }

    /// A CA file for the origins (`--origin-ca`) that holds no PEM certificate.
    package struct CertificateFileError: Error, CustomStringConvertible {
        package let path: String

        package var description: String { "cannot read a PEM certificate from '\(path)' (check --origin-ca)" }
    }
}
