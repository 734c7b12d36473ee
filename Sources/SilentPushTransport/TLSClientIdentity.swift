/// A client certificate's chain and its private key, as PEM read once, with the paths they
/// came from for messages. Read once because a file may be a pipe (`--cert <(op read …)`),
/// which gives its bytes to the first reader only, and so that every connection presents
/// the same certificate.
package struct TLSClientIdentity: Sendable, Equatable, CustomStringConvertible {
    /// The certificate, then any intermediates, as PEM.
    package var certificateChain: [UInt8]
    /// Where `certificateChain` was read from.
    package var certificatePath: String
    /// The certificate's private key as PEM (other PEM blocks beside it are passed over).
    package var privateKey: [UInt8]
    /// Where `privateKey` was read from (the certificate's own file when it holds both).
    package var privateKeyPath: String

    /// Material already read.
    package init(certificateChain: [UInt8], certificatePath: String, privateKey: [UInt8], privateKeyPath: String) {
        self.certificateChain = certificateChain
        self.certificatePath = certificatePath
        self.privateKey = privateKey
        self.privateKeyPath = privateKeyPath
    }

    /// Reads `certificateFile` and `privateKeyFile` (nil: the certificate's file holds the
    /// key too), each once and within `FileBytes.pemLimit`.
    package init(certificateFile: String, privateKeyFile: String? = nil) throws(FileBytes.Failure) {
        let certificate = try FileBytes.read(certificateFile, limit: FileBytes.pemLimit)
        let key = try privateKeyFile.map { path throws(FileBytes.Failure) in try FileBytes.read(path, limit: FileBytes.pemLimit) } ?? certificate
        self.init(certificateChain: certificate, certificatePath: certificateFile, privateKey: key, privateKeyPath: privateKeyFile ?? certificateFile)
    }

    /// The paths only: the key's bytes are never shown.
    package var description: String { "client certificate '\(certificatePath)', key '\(privateKeyPath)'" }
}
