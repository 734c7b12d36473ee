import COpenSSL
import Foundation
import SilentPushCore

/// An EC P-256 key for provider tokens (ES256): a `.p8` private key (PKCS#8 PEM, as Apple
/// issues them) or a public key PEM. Verification accepts raw r‖s (JOSE) and DER
/// signatures; signing makes raw r‖s. Immutable, so shared across threads.
package final class ES256Key: @unchecked Sendable {
    private let key: OpaquePointer
    /// Whether this key can sign (it was loaded from a private key).
    package let canSign: Bool

    private init(key: OpaquePointer, canSign: Bool) {
        self.key = key
        self.canSign = canSign
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Loads a PEM file, read once (a pipe too); throws naming the file when it is missing,
    /// larger than any key file (`FileBytes.pemLimit`), not PEM, or not P-256.
    package static func load(file path: String) throws -> ES256Key {
        let pem: [UInt8]
        do throws(FileBytes.Failure) {
            pem = try FileBytes.read(path, limit: FileBytes.pemLimit)
        } catch {
            switch error {
            case .unreadable: throw ES256KeyError.unreadable(path: path)
            case .tooLarge(let limit): throw ES256KeyError.inFile(path: path, problem: .tooLarge(limit: limit))
            }
        }
        do {
            return try ES256Key(pem: pem)
        } catch let error as ES256KeyError {
            throw ES256KeyError.inFile(path: path, problem: error)
        }
    }

    /// A key from PEM text: `BEGIN PRIVATE KEY` (PKCS#8), `BEGIN EC PRIVATE KEY` or `BEGIN PUBLIC KEY`.
    package convenience init(pem: [UInt8]) throws {
        let loaded: (OpaquePointer, Bool)? = pem.withUnsafeBytes { bytes in
            func read(_ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
                guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
                defer { BIO_free(bio) }
                return body(bio)
            }
            // No passphrase is asked for: OpenSSL would prompt on the terminal, or read stdin.
            if let key = read({ PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }) { return (key, true) }
            if let key = read({ PEM_read_bio_PUBKEY($0, nil, { _, _, _, _ in 0 }, nil) }) { return (key, false) }
            return nil
        }
        _ = OpenSSLError.drain()
        guard let (key, canSign) = loaded else {
            throw PEMContents.isEncrypted(pem) ? ES256KeyError.encrypted : ES256KeyError.notPEM
        }
        var group = [CChar](repeating: 0, count: 64)
        var length = 0
        let isP256 =
            EVP_PKEY_get_base_id(key) == EVP_PKEY_EC
            && EVP_PKEY_get_utf8_string_param(key, "group", &group, group.count, &length) == 1
            && String(decoding: group.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        guard isP256 else {
            EVP_PKEY_free(key)
            throw ES256KeyError.notP256
        }
        self.init(key: key, canSign: canSign)
    }

    /// Whether `signature` (64-byte r‖s or DER) signs `message` with SHA-256.
    package func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        let der = signature.count == 64 ? Self.derSignature(raw: signature) : signature
        guard let der, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = EVP_DigestVerify(context, der, der.count, message, message.count)
        ERR_clear_error()
        return result == 1
    }

    /// Signs `message` (SHA-256); returns raw r‖s, 64 bytes, as JWS wants.
    package func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard canSign else { throw ES256KeyError.publicKeyCannotSign }
        guard let context = EVP_MD_CTX_new() else { throw ES256KeyError.outOfMemory }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else { throw ES256KeyError.signingFailed(OpenSSLError.drain()) }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw ES256KeyError.signingFailed(OpenSSLError.drain())
        }
        guard let raw = Self.rawSignature(der: Array(der.prefix(length))) else {
            throw ES256KeyError.malformedSignature
        }
        return raw
    }

    /// Signs as `openssl dgst -sha256 -sign` does: a DER signature.
    package func signDER(_ message: [UInt8]) throws -> [UInt8] {
        guard let der = Self.derSignature(raw: try sign(message)) else {
            throw ES256KeyError.cannotEncodeSignature
        }
        return der
    }

    static func derSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        return OpenSSLDER.encode(signature, with: i2d_ECDSA_SIG)
    }

    static func rawSignature(der: [UInt8]) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        return ok ? raw : nil
    }
}
