import CNghttp2
import COpenSSL
import Foundation
import SilentPushCore

/// An OpenSSL `SSL_CTX`, configured for HTTP/2 (TLS 1.2+, no compression, no
/// renegotiation, ALPN `h2`). Immutable once made, so one is shared by every connection.
package final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Whether connections made from this context are the server side.
    package let isServer: Bool
    let verifiesPeer: Bool

    private init(context: OpaquePointer, isServer: Bool, verifiesPeer: Bool) {
        self.context = context
        self.isServer = isServer
        self.verifiesPeer = verifiesPeer
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A server context; throws naming the file that is missing or wrong. Each file is read
    /// once, within `FileBytes.pemLimit` (a pipe gives its bytes to the first reader only).
    package static func server(_ configuration: TLSServerConfiguration) throws -> TLSContext {
        let chain = try readPEM(configuration.certificateChainFile, .certificate)
        let key = try readPEM(configuration.privateKeyFile, .privateKey)
        let clientCAs = try configuration.clientCAFile.map { path in (path: path, pem: try readPEM(path, .clientCA)) }
        let context = try makeContext(method: TLS_server_method())
        let tls = TLSContext(context: context, isServer: true, verifiesPeer: clientCAs != nil)
        SSL_CTX_set_options(context, copenssl_op_cipher_server_preference())
        // TLS 1.2 with only AEAD suites and ephemeral keys: RFC 9113 §9.2.2 lists the rest as
        // ones an HTTP/2 peer may refuse (TLS 1.3's suites are all of this kind).
        guard SSL_CTX_set_cipher_list(context, "ECDHE+AESGCM:ECDHE+CHACHA20") == 1 else { throw TLSConfigurationError(.context) }
        guard useCertificateChain(chain, in: context) else {
            throw TLSConfigurationError(.certificate, path: configuration.certificateChainFile, contents: chain)
        }
        guard usePrivateKey(key, in: context) else {
            throw TLSConfigurationError(.privateKey, path: configuration.privateKeyFile, contents: key)
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSConfigurationError(.keyMismatch, path: configuration.privateKeyFile, contents: key)
        }
        SSL_CTX_set_alpn_select_cb(
            context,
            { _, out, outLength, offered, offeredLength, _ in
                // nghttp2 picks h2 from the client's list. A list without h2 (only http/1.1)
                // is refused with `no_application_protocol` (RFC 7301 §3.2): the client would
                // speak a protocol this server does not. A client that offers no ALPN at all
                // is not asked here, and may speak h2 directly.
                let selected = out!.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 1) { out in
                    nghttp2_select_next_protocol(out, outLength, offered, offeredLength)
                }
                return selected == 1 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL
            }, nil)
        if let clientCAs {
            // Trusted, and named in the server's certificate request, from the one reading.
            guard trust(clientCAs.pem, in: context, namedToClients: true) else {
                throw TLSConfigurationError(.clientCA, path: clientCAs.path, contents: clientCAs.pem)
            }
            // Every certificate in the file is trusted as it is, an intermediate too: a chain
            // need not end at a self-signed root (Apple's push certificates come from its WWDR
            // intermediate, which a user may give alone).
            X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(context), UInt(X509_V_FLAG_PARTIAL_CHAIN))
            // Requested, not required: as at APNs, a client with a certificate authenticates
            // with it and one without uses provider tokens; a certificate sent must verify.
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            let sessionContext = Array("silentpushd".utf8)
            SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        }
        return tls
    }

    /// When this context's own certificate (the first of `--tls-cert`'s chain) is valid, in
    /// seconds since the epoch; nil when it has none or its dates cannot be read.
    package var certificateValidity: ClosedRange<Int64>? {
        guard let certificate = SSL_CTX_get0_certificate(context), let epoch = ASN1_TIME_set(nil, 0) else { return nil }
        defer { ASN1_TIME_free(epoch) }
        func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
            var days: Int32 = 0
            var seconds: Int32 = 0
            guard let time, ASN1_TIME_diff(&days, &seconds, epoch, time) == 1 else { return nil }
            return Int64(days) * 86_400 + Int64(seconds)
        }
        defer { ERR_clear_error() }
        guard let notBefore = seconds(X509_get0_notBefore(certificate)), let notAfter = seconds(X509_get0_notAfter(certificate)),
            notBefore <= notAfter
        else { return nil }
        return notBefore...notAfter
    }

    /// A client context that offers ALPN `h2`. Its CA file is read once, within
    /// `FileBytes.pemLimit`.
    package static func client(_ configuration: TLSClientConfiguration) throws -> TLSContext {
        let authorities = try configuration.insecure ? nil : configuration.caFile.map { path in (path: path, pem: try readPEM(path, .caFile)) }
        let context = try makeContext(method: TLS_client_method())
        let tls = TLSContext(context: context, isServer: false, verifiesPeer: !configuration.insecure)
        let protocols: [UInt8] = [2] + Array("h2".utf8)
        guard SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count)) == 0 else {
            throw TLSConfigurationError(.alpn)
        }
        if configuration.insecure {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        } else {
            if let authorities {
                guard trust(authorities.pem, in: context, namedToClients: false) else {
                    throw TLSConfigurationError(.caFile, path: authorities.path, contents: authorities.pem)
                }
            } else {
                SSL_CTX_set_default_verify_paths(context)
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        }
        if let identity = configuration.clientIdentity {
            guard useCertificateChain(identity.certificateChain, in: context) else {
                throw TLSConfigurationError(.clientCertificate, path: identity.certificatePath, contents: identity.certificateChain)
            }
            guard usePrivateKey(identity.privateKey, in: context) else {
                throw TLSConfigurationError(.clientKey, path: identity.privateKeyPath, contents: identity.privateKey)
            }
            guard SSL_CTX_check_private_key(context) == 1 else {
                throw TLSConfigurationError(.clientKeyMismatch, path: identity.privateKeyPath, contents: identity.privateKey)
            }
        }
        return tls
    }

    /// `path`'s bytes, read once within `FileBytes.pemLimit`; one that cannot be read is
    /// `problem`, with the system's words or the limit.
    private static func readPEM(_ path: String, _ problem: TLSConfigurationError.Problem) throws(TLSConfigurationError) -> [UInt8] {
        do throws(FileBytes.Failure) {
            return try FileBytes.read(path, limit: FileBytes.pemLimit)
        } catch {
            throw TLSConfigurationError(problem, path: path, unread: error)
        }
    }

    /// What `SSL_CTX_load_verify_locations` does with a CA file, from PEM already read: every
    /// certificate in it is trusted. With `namedToClients`, each is also named in the server's
    /// certificate request (what `SSL_load_client_CA_file` gives). False when it holds none.
    private static func trust(_ pem: [UInt8], in context: OpaquePointer, namedToClients: Bool) -> Bool {
        ERR_clear_error()
        guard let store = SSL_CTX_get_cert_store(context) else { return false }
        return withMemoryBIO(pem) { bio in
            var trusted = 0
            while let certificate = PEM_read_bio_X509_AUX(bio, nil, { _, _, _, _ in 0 }, nil) {
                // The store and the name list keep their own references and copies.
                defer { X509_free(certificate) }
                guard X509_STORE_add_cert(store, certificate) == 1 else { return false }
                if namedToClients, SSL_CTX_add_client_CA(context, certificate) != 1 { return false }
                trusted += 1
            }
            guard trusted > 0, copenssl_error_is_pem_end(ERR_peek_last_error()) != 0 else { return false }
            ERR_clear_error()
            return true
        }
    }

    /// What `SSL_CTX_use_certificate_chain_file` does, from PEM already read: the first
    /// certificate is the context's own, the ones after it its chain.
    private static func useCertificateChain(_ pem: [UInt8], in context: OpaquePointer) -> Bool {
        // As OpenSSL's own: an error left from before is not this one's.
        ERR_clear_error()
        return withMemoryBIO(pem) { bio in
            guard let certificate = PEM_read_bio_X509_AUX(bio, nil, { _, _, _, _ in 0 }, nil) else { return false }
            defer { X509_free(certificate) }
            guard SSL_CTX_use_certificate(context, certificate) == 1, copenssl_ctx_clear_chain_certs(context) == 1 else { return false }
            while let next = PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil) {
                // The context owns `next` once added.
                guard copenssl_ctx_add0_chain_cert(context, next) == 1 else {
                    X509_free(next)
                    return false
                }
            }
            // Reading stops at the end of the PEM ("no start line"); any other error is one.
            guard copenssl_error_is_pem_end(ERR_peek_last_error()) != 0 else { return false }
            ERR_clear_error()
            return true
        }
    }

    /// What `SSL_CTX_use_PrivateKey_file` does, from PEM already read: the first private
    /// key in it (a certificate's blocks before it are passed over). An encrypted one fails.
    private static func usePrivateKey(_ pem: [UInt8], in context: OpaquePointer) -> Bool {
        ERR_clear_error()
        return withMemoryBIO(pem) { bio in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else { return false }
            defer { EVP_PKEY_free(key) }
            return SSL_CTX_use_PrivateKey(context, key) == 1
        }
    }

    /// `body` over a read-only memory BIO of `bytes`; false when none can be made.
    private static func withMemoryBIO(_ bytes: [UInt8], _ body: (OpaquePointer) -> Bool) -> Bool {
        bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(clamping: buffer.count)) else { return false }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    private static func makeContext(method: OpaquePointer?) throws -> OpaquePointer {
        guard let context = SSL_CTX_new(method) else { throw TLSConfigurationError(.context) }
        // An encrypted key fails to load: OpenSSL would otherwise prompt on the terminal for a
        // passphrase, or read one from stdin.
        SSL_CTX_set_default_passwd_cb(context) { _, _, _, _ in 0 }
        // HTTP/2 requires TLS 1.2 or later, without compression or renegotiation (RFC 9113 §9.2).
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        SSL_CTX_set_options(context, copenssl_op_no_compression() | copenssl_op_no_renegotiation())
        return context
    }
}
