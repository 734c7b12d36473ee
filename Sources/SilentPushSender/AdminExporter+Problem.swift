import AsyncHTTPClient
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
            return "what answered does not speak HTTP/1.1 (an APNs or channel port? the admin API is at the receiver's --admin address)"
        }
        if let error = error as? HTTPClientError {
            // Its description may quote the request's headers (the admin token): never shown.
            if error == .remoteConnectionClosed {
                return "the connection was closed before an answer (an APNs or channel port? the admin API is at the receiver's --admin address)"
            }
            return "the HTTP client failed: \(error.shortDescription)"
        }
        return "\(error)"
    }
}
