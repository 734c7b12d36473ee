import SilentPushTransport
import Testing

/// GOAWAY reasons are typed; their text is APNs' or RFC 9113's name.
@Suite struct H2GoAwayReasonTests {
    @Test func errorCodesRoundTripAndUnknownCodesAreProtocolErrors() {
        for code in H2GoAwayReason.ErrorCode.allCases {
            #expect(H2GoAwayReason.ErrorCode(code: code.code) == code)
        }
        #expect(H2GoAwayReason.ErrorCode.allCases.map(\.code) == Array(0...0xd))
        #expect(H2GoAwayReason.ErrorCode(code: 0xb).rawValue == "EnhanceYourCalm")
        #expect(H2GoAwayReason.ErrorCode(code: 0x2).rawValue == "InternalServerError")
        #expect(H2GoAwayReason.ErrorCode(code: 0xff) == .protocolError)
    }

    @Test func theReasonsTextIsItsName() {
        #expect(H2GoAwayReason.apns(.shutdown).description == "Shutdown")
        #expect(H2GoAwayReason.errorCode(.http11Required).description == "HTTP11Required")
        #expect(String(decoding: H2GoAway.debugData(reason: .apns(.idleTimeout)), as: UTF8.self) == #"{"reason":"IdleTimeout"}"#)
    }
}
