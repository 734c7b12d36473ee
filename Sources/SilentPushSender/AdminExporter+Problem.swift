import NIOHTTP1
import NIOSSL
import SilentPushNetworking

extension AdminExporter {
    /// Why the admin API could not be read, in words that say what to check: a failure to
    /// connect, a TLS handshake with a listener that speaks plain HTTP (or none), or something
    /// that answered in another protocol (an APNs or channel listener's HTTP/2).
    package static func problem(_ error: any Error) -> String {
        if let reason = ConnectionFailure.reason(error) { return reason }
        if error is NIOSSLError || error is BoringSSLError {
            return "the TLS handshake failed (the admin API speaks plain HTTP: use http://)"
        }
        if error is HTTPParserError {
            return "what answered does not speak HTTP/1.1 (an APNs or channel port? the admin API is the receiver's --admin-port)"
        }
        return "\(error)"
    }
}
