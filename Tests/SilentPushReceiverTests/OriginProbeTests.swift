import NIOCore
import NIOSSL
import SilentPushNetworking
import Testing

@testable import SilentPushReceiver

/// How a handshake that did not complete is told, and which ends a request at once: a server
/// that speaks no TLS fails every connection's handshake; one that closed the probe's own
/// connection may only have turned a second connection away.
@Suite struct OriginProbeTests {
    @Test func aHandshakeTheServerClosedIsSaidSoAndEndsNothing() {
        for error in [
            NIOSSLError.handshakeFailed(.sslError([.eofDuringHandshake])) as any Error, ChannelError.eof, NIOSSLError.uncleanShutdown,
        ] {
            #expect(OriginProbe.isClosedDuringHandshake(error), "\(error)")
            #expect(OriginProbe.handshakeWords(error) == "the server closed the connection during the TLS handshake")
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
