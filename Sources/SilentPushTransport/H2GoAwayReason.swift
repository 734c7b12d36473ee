import SilentPushCore

/// What a GOAWAY's `{"reason":…}` debug data names: one of APNs' reasons, or the name of the
/// HTTP/2 error code the connection ends with. Typed, so no caller spells a reason as text.
package enum H2GoAwayReason: Sendable, Equatable, CustomStringConvertible {
    /// One of APNs' reasons: `Shutdown`, `IdleTimeout`, `ServiceUnavailable`, or whichever a
    /// fault rule names.
    case apns(APNsReason)
    /// The name of the RFC 9113 §7 error code the connection ends with.
    case errorCode(ErrorCode)

    /// The text sent as `reason`.
    package var description: String {
        switch self {
        case .apns(let reason): reason.rawValue
        case .errorCode(let code): code.rawValue
        }
    }

    /// RFC 9113 §7 error codes, named in the UpperCamelCase of APNs' reasons.
    package enum ErrorCode: String, Sendable, CaseIterable {
        case noError = "NoError"
        case protocolError = "ProtocolError"
        case internalServerError = "InternalServerError"
        case flowControlError = "FlowControlError"
        case settingsTimeout = "SettingsTimeout"
        case streamClosed = "StreamClosed"
        case frameSizeError = "FrameSizeError"
        case refusedStream = "RefusedStream"
        case cancel = "Cancel"
        case compressionError = "CompressionError"
        case connectError = "ConnectError"
        case enhanceYourCalm = "EnhanceYourCalm"
        case inadequateSecurity = "InadequateSecurity"
        case http11Required = "HTTP11Required"

        /// The name of `code`; a code RFC 9113 does not define is named `ProtocolError`.
        package init(code: UInt32) {
            self = Self.allCases.first { $0.code == code } ?? .protocolError
        }

        /// The code on the wire.
        package var code: UInt32 {
            switch self {
            case .noError: 0x0
            case .protocolError: 0x1
            case .internalServerError: 0x2
            case .flowControlError: 0x3
            case .settingsTimeout: 0x4
            case .streamClosed: 0x5
            case .frameSizeError: 0x6
            case .refusedStream: 0x7
            case .cancel: 0x8
            case .compressionError: 0x9
            case .connectError: 0xa
            case .enhanceYourCalm: 0xb
            case .inadequateSecurity: 0xc
            case .http11Required: 0xd
            }
        }
    }
}
