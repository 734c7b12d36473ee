import COpenSSL

/// The parts of an X.509 certificate (DER) that APNs certificate auth reads.
package struct X509CertificateInfo: Sendable {
    /// The subject's UID attribute (0.9.2342.19200300.100.1.1): the bundle id on Apple's certificates.
    package var subjectUID: String?
    private var extensions: [String: [UInt8]]

    /// Reads `der`; nil when it is not a certificate.
    package init?(der: [UInt8], extensionOIDs: [String]) {
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate else { return nil }
        defer { X509_free(certificate) }

        subjectUID = nil
        if let name = X509_get_subject_name(certificate) {
            let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
            if index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) {
                subjectUID = String(
                    decoding: UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))), as: UTF8.self)
            }
        }
        extensions = [:]
        for oid in extensionOIDs {
            guard let object = OBJ_txt2obj(oid, 1) else { continue }
            defer { ASN1_OBJECT_free(object) }
            let index = X509_get_ext_by_OBJ(certificate, object, -1)
            guard index >= 0, let item = X509_get_ext(certificate, index), let data = X509_EXTENSION_get_data(item) else { continue }
            extensions[oid] = Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))))
        }
        ERR_clear_error()
    }

    /// Reads the first certificate of PEM text; nil when it holds none.
    package init?(pem: [UInt8], extensionOIDs: [String]) {
        let der: [UInt8]? = pem.withUnsafeBufferPointer { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(clamping: bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { return nil }
            defer { X509_free(certificate) }
            let length = i2d_X509(certificate, nil)
            guard length > 0 else { return nil }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return i2d_X509(certificate, &cursor)
            }
            return written == length ? der : nil
        }
        guard let der else {
            ERR_clear_error()
            return nil
        }
        self.init(der: der, extensionOIDs: extensionOIDs)
    }

    /// The value (DER) of the extension `oid`, if the certificate has it and it was asked for.
    package func extensionValue(_ oid: String) -> [UInt8]? {
        extensions[oid]
    }
}
