import Foundation
import SilentPushCore

/// A configuration problem with TLS material: which, the file, and OpenSSL's words.
package struct TLSConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What could not be done; the raw value is the start of the message.
    package enum Problem: String, Sendable {
        case certificate = "cannot use TLS certificate"
        case privateKey = "cannot use TLS private key"
        case keyMismatch = "TLS private key does not match the certificate"
        case clientCA = "cannot read client CA"
        case alpn = "cannot set ALPN"
        case caFile = "cannot read CA file"
        case clientCertificate = "cannot use client certificate"
        case clientKey = "cannot use client certificate key"
        case clientKeyMismatch = "client key does not match the certificate"
        case encryptedKey = "cannot use private key"
        case context = "cannot create a TLS context"

        /// Whether the file concerned is a private key's.
        var isKey: Bool { self == .privateKey || self == .clientKey || self == .keyMismatch || self == .clientKeyMismatch }
    }

    package let problem: Problem
    /// The file concerned, if one is.
    package let path: String?
    /// OpenSSL's error queue, drained when the error was made.
    package let detail: String

    /// `problem`, concerning no file.
    init(_ problem: Problem) {
        self.init(problem, path: nil, contents: nil, drained: OpenSSLError.drain())
    }

    /// `problem` with `path`, whose contents were not read: the system's words, or the limit.
    init(_ problem: Problem, path: String, unread: FileBytes.Failure) {
        self.problem = problem
        self.path = path
        switch unread {
        case .unreadable(let reason): detail = reason
        case .tooLarge(let limit): detail = "over \(limit) bytes, more than any PEM file of keys and certificates holds"
        }
    }

    /// `problem` with `path`'s `contents`, as they were read for the attempt.
    init(_ problem: Problem, path: String, contents: [UInt8]) {
        self.init(problem, path: path, contents: contents, drained: OpenSSLError.drain())
    }

    private init(_ problem: Problem, path: String?, contents: [UInt8]?, drained: String) {
        // A key that failed for want of a passphrase says so, not OpenSSL's chain of errors;
        // so does a file in DER or PKCS#12 where PEM belongs.
        if problem == .privateKey || problem == .clientKey, let contents, PEMContents.isEncrypted(contents) {
            self.problem = .encryptedKey
            detail = ""
        } else if let contents, let hint = PEMContents.conversionHint(contents, kind: problem.isKey ? .key : .certificate) {
            self.problem = problem
            detail = hint
        } else {
            self.problem = problem
            detail = drained
        }
        self.path = path
    }

    /// One line, ready for a user. A path that holds a key's contents is not shown.
    package var description: String {
        var message = problem.rawValue
        if let path {
            let shown = PEMContents.found(in: path) ? " (its contents where a path belongs; not shown)" : " '\(path)'"
            switch problem {
            // The path is the key's: named as the key, before what is wrong with it.
            case .keyMismatch: message = "TLS private key" + shown + " does not match the certificate"
            case .clientKeyMismatch: message = "client key" + shown + " does not match the certificate"
            default: message += shown
            }
        }
        if problem == .encryptedKey { message += ": it is encrypted (passphrase-protected); give it unencrypted (openssl pkey -in KEY -out key.pem)" }
        if !detail.isEmpty { message += ": \(detail)" }
        return message
    }
}
