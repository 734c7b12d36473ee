import NIOCore
import NIOSSL
import SilentPushNetworking
import Testing

@testable import SilentPushReceiver

/// How a handshake that did not complete is told: a server that speaks no TLS fails every
/// connection's handshake (the probe ends the request at once); one that closed the
/// connection during it is said so.
@Suite struct OriginProbeTests {
    @Test func aHandshakeTheServerClosedIsSaidSo() {
        let closed = NIOSSLError.handshakeFailed(.sslError([.eofDuringHandshake]))
        #expect(OriginProbe.isClosedDuringHandshake(closed))
        #expect(OriginProbe.handshakeWords(closed) == "the server closed the connection during the TLS handshake")
        // A close after the handshake (an https body cut short) is not one.
        for error in [NIOSSLError.uncleanShutdown as any Error, ChannelError.eof] {
            #expect(!OriginProbe.isClosedDuringHandshake(error) && OriginProbe.handshakeWords(error) == nil, "\(error)")
        }
    }

    @Test func aReasonIsReadFromBoringSSLsWords() {
        #expect(
            OriginProbe.reasonWords(in: "Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at /x/ssl.cc:42")
                == "wrong version number")
        #expect(OriginProbe.reasonWords(in: "Error:  EOF during handshake") == nil)
        #expect(OriginProbe.handshakeWords(ChannelError.connectTimeout(.milliseconds(500))) == nil)
        #expect(!OriginProbe.isClosedDuringHandshake(NIOSSLError.handshakeFailed(.sslError([]))))
        #expect(OriginProbe.handshakeWords(NIOSSLError.handshakeFailed(.sslError([]))) == "the TLS handshake failed")
    }
}
