import Foundation

/// Paths of the development material (TESTING ONLY): the CA, the receiver's and clients'
/// certificates and the provider-token key, shipped as this library's resources.
public enum DevCertificates {
    /// The directory holding them, in this library's resource bundle.
    public static let directory: String = Bundle.module.bundleURL.appendingPathComponent("certs").path

    /// The dev CA that signed the server and client certificates.
    public static var ca: String { directory + "/ca.pem" }
    /// The receiver's certificate (localhost, 127.0.0.1, ::1).
    public static var serverCertificate: String { directory + "/server.pem" }
    /// The receiver's key.
    public static var serverKey: String { directory + "/server-key.pem" }
    /// A provider client certificate for `com.example.app`.
    public static var clientCertificate: String { directory + "/client.pem" }
    /// Its key.
    public static var clientKey: String { directory + "/client-key.pem" }
    /// The client certificate marked for production only.
    public static var clientProductionCertificate: String { directory + "/client-production.pem" }
    /// A CA the receiver does not trust.
    public static var otherCA: String { directory + "/other-ca.pem" }
    /// A client certificate from `otherCA`.
    public static var otherClientCertificate: String { directory + "/other-client.pem" }
    /// Its key.
    public static var otherClientKey: String { directory + "/other-client-key.pem" }
    /// An intermediate CA under `ca`, as Apple's WWDR intermediate issues push certificates.
    package static var intermediateCA: String { directory + "/intermediate-ca.pem" }
    /// The client certificate of `clientCertificate` (its key is `clientKey`), issued by
    /// `intermediateCA`.
    package static var intermediateClientCertificate: String { directory + "/intermediate-client.pem" }
    /// The dev provider-token key: key id `DEVKEY0001`, team id `DEVTEAM001`.
    public static var authKey: String { directory + "/AuthKey_DEVKEY0001.p8" }
}

extension DevCertificates {
    /// The DER bytes of the first certificate in a PEM file.
    public static func der(ofPEM path: String) throws -> [UInt8] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----"), let end = text.range(of: "-----END CERTIFICATE-----") else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let base64 = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(base64)) else { throw CocoaError(.fileReadCorruptFile) }
        return Array(data)
    }
}
