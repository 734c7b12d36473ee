import Foundation

/// A self-signed server certificate (P-256, CN localhost) valid only between two given
/// dates, made with `openssl ca` (`openssl req` cannot date one in the past): for an expired
/// `--tls-cert`.
public struct DatedCertificate: Sendable {
    /// The certificate's PEM file.
    public var certificate: String
    /// Its private key's PEM file.
    public var key: String

    /// Makes one valid from `notBefore` to `notAfter` (`YYYYMMDDHHMMSSZ`) in a new scratch directory.
    public static func make(notBefore: String, notAfter: String) async throws -> DatedCertificate {
        let directory = try Scratch.newDirectory("dated-certificate")
        let configuration = """
            [ca]
            default_ca = dated
            [dated]
            database = \(directory)/index.txt
            new_certs_dir = \(directory)
            serial = \(directory)/serial
            default_md = sha256
            policy = anything
            [anything]
            commonName = supplied
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory + "/ca.cnf"))
        try Data().write(to: URL(fileURLWithPath: directory + "/index.txt"))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: directory + "/serial"))
        let made = DatedCertificate(certificate: directory + "/cert.pem", key: directory + "/key.pem")
        for arguments in [
            [
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", made.key, "-out",
                directory + "/request.csr", "-subj", "/CN=localhost",
            ],
            [
                "ca", "-config", directory + "/ca.cnf", "-selfsign", "-keyfile", made.key, "-in", directory + "/request.csr", "-out",
                made.certificate, "-startdate", notBefore, "-enddate", notAfter, "-batch", "-notext",
            ],
        ] {
            let result = try await PeerProcess.run("openssl", arguments)
            guard result.status == 0 else { throw DatedCertificateError(command: arguments[0], output: result.errorOutput) }
        }
        return made
    }
}

/// `openssl` failed to make a dated certificate.
public struct DatedCertificateError: Error, CustomStringConvertible {
    var command: String
    var output: String
    public var description: String { "openssl \(command) failed: \(output)" }
}
