import COpenSSL

/// One TLS connection through OpenSSL memory BIOs: ciphertext in, plaintext out, and the
/// other way round. It owns no socket, so tests pair two engines in memory and the NIO
/// handler pumps one on an event loop. After every call, drain the ciphertext it made.
package final class TLSEngine {
    /// How reading left the connection.
    package enum ReadState: Equatable {
        /// More ciphertext is needed.
        case open
        /// The peer sent close_notify.
        case closed
    }

    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    /// Facts of the handshake, once it is complete.
    package private(set) var sessionInfo: TLSSessionInfo?

    /// Whether the handshake is complete.
    package var isHandshakeComplete: Bool { sessionInfo != nil }

    /// A connection from `context`. A client names the server for SNI and the host-name check.
    package init(context: TLSContext, serverName: String? = nil) throws {
        guard let ssl = SSL_new(context.context),
            let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem())
        else { throw TLSError.setUp(OpenSSLError.drain()) }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        SSL_set_bio(ssl, readBIO, writeBIO)
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName {
                if Self.isIPAddress(serverName) {
                    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
                } else {
                    serverName.withCString {
                        _ = SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
                    }
                    if context.verifiesPeer { SSL_set1_host(ssl, serverName) }
                }
            }
        }
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs
    }

    /// Starts the handshake (a client's ClientHello); drain the ciphertext afterwards.
    package func startHandshake() throws {
        _ = try handshake()
    }

    /// Ciphertext from the peer.
    package func receive(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        BIO_write(readBIO, base, Int32(bytes.count))
    }

    /// The peer's TCP stream ended: reads past the buffered bytes report end of input.
    package func receiveEOF() {
        BIO_ctrl(readBIO, BIO_C_SET_BUF_MEM_EOF_RETURN, 0, nil)
    }

    /// Advances the handshake and hands any plaintext received to `sink`.
    package func readPlaintext(_ sink: (UnsafeRawBufferPointer) -> Void) throws -> ReadState {
        guard try handshake() else { return .open }
        while true {
            ERR_clear_error()
            let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                scratch.withUnsafeBytes { sink(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .open
            case SSL_ERROR_ZERO_RETURN: return .closed
            default:
                // OpenSSL numbers a received alert's reason from SSL_AD_REASON_OFFSET up.
                let code = ERR_peek_error()
                let alert = ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) >= SSL_AD_REASON_OFFSET
                let why = Self.failure()
                throw alert ? TLSError.alertReceived(why) : TLSError.read(why)
            }
        }
    }

    /// Encrypts `bytes` for the peer (after the handshake).
    package func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let chunk = min(bytes.count - offset, 16 * 1024)
            let written = SSL_write(ssl, bytes.baseAddress! + offset, Int32(chunk))
            guard written > 0 else { throw TLSError.write(Self.failure()) }
            offset += Int(written)
        }
    }

    /// Queues close_notify.
    package func shutdown() {
        ERR_clear_error()
        SSL_shutdown(ssl)
    }

    /// Bytes waiting for the peer.
    package var pendingCiphertext: Int { Int(BIO_ctrl_pending(writeBIO)) }

    /// Hands every byte of ciphertext ready for the peer to `sink`.
    package func drainCiphertext(_ sink: (UnsafeRawBufferPointer) -> Void) {
        while BIO_ctrl_pending(writeBIO) > 0 {
            let count = scratch.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            scratch.withUnsafeBytes { sink(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
        }
    }

    /// True once the handshake is done; throws when the peer or its certificate is refused.
    private func handshake() throws -> Bool {
        if sessionInfo != nil { return true }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return false
            default:
                let verification = SSL_get_verify_result(ssl)
                if verification != Int(X509_V_OK) {
                    throw TLSError.peerCertificateRejected(String(cString: X509_verify_cert_error_string(verification)))
                }
                throw TLSError.handshake(Self.failure())
            }
        }
        var alpnData: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnData, &alpnLength)
        let alpn = alpnData.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(alpnLength)), as: UTF8.self) }
        sessionInfo = TLSSessionInfo(
            protocolVersion: String(cString: SSL_get_version(ssl)), alpn: alpn, peerCertificateDER: peerCertificateDER())
        return true
    }

    private func peerCertificateDER() -> [UInt8]? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        return OpenSSLDER.encode(certificate, with: i2d_X509)
    }

    private static func failure() -> String {
        let detail = OpenSSLError.drain()
        return detail.isEmpty ? "connection closed" : detail
    }

    private static func isIPAddress(_ name: String) -> Bool {
        name.contains(":") || name.allSatisfy { $0.isNumber || $0 == "." }
    }
}
