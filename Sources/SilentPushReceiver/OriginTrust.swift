import NIOSSL
import SilentPushTransport

/// The authorities a receiver trusts at the https origins of its fetch handlers and background
/// transfers: the system's roots, and the CAs given (`--origin-ca`), as an app trusts a
/// development CA its test devices have installed.
package struct OriginTrust: Sendable {
    /// What the HTTP clients verify an origin's certificate with.
    package let configuration: TLSConfiguration
    /// The context made for the CAs given; nil for the system's roots alone.
    private let ownContext: NIOSSLContext?

    /// The same trust, for the origin probe's handshake (`HTTPClient.executeFailingFast`). The
    /// system's roots are loaded at the first https request, not at start: a receiver whose
    /// origins are all http never parses them (about 1 MB of certificates).
    package var context: NIOSSLContext? { ownContext ?? OriginProbe.defaultContext }

    /// The system's roots alone.
    package static let system = OriginTrust(configuration: .makeClientConfiguration(), context: nil)

    private init(configuration: TLSConfiguration, context: NIOSSLContext?) {
        self.configuration = configuration
        ownContext = context
    }

    /// The system's roots and the certificates of each PEM file of `paths`, each read once
    /// within `FileBytes.pemLimit`; throws `CertificateFileError` naming a file that cannot be
    /// read or holds no certificate.
    package init(certificateAuthorities paths: [String]) throws {
        guard !paths.isEmpty else {
            self = .system
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = try paths.map { path in
            let pem: [UInt8]
            do throws(FileBytes.Failure) {
                pem = try FileBytes.read(path, limit: FileBytes.pemLimit)
            } catch {
                switch error {
                case .unreadable(let reason): throw CertificateFileError(path: path, problem: reason)
                case .tooLarge(let limit): throw CertificateFileError(path: path, problem: "over \(limit) bytes, more than any CA file holds")
                }
            }
            let certificates = try? NIOSSLCertificate.fromPEMBytes(pem)
            guard let certificates, !certificates.isEmpty else { throw CertificateFileError(path: path, problem: nil) }
            return .certificates(certificates)
        }
        self.init(configuration: configuration, context: try NIOSSLContext(configuration: configuration))
    }

    /// A CA file for the origins (`--origin-ca`) that cannot be read or holds no PEM
    /// certificate.
    package struct CertificateFileError: Error, CustomStringConvertible {
        package let path: String
        /// Why the file was not read (the system's words, or its limit); nil when it was read
        /// and holds no certificate.
        package let problem: String?

        package var description: String {
            "cannot read a PEM certificate from '\(path)'" + (problem.map { ": \($0)" } ?? "") + " (check --origin-ca)"
        }
    }
}
