@testable import SilentPushCore
import Testing

/// A device token held as a key gives back its text, and two keys are equal exactly when
/// their texts are, whichever way each is held.
@Suite struct DeviceKeyTests {
    static let token = "00a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f"

    @Test(arguments: [
        token, String(repeating: "0", count: 64), String(repeating: "f", count: 64),
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ])
    func aLowerCaseTokenOf64DigitsIsHeldAsItsBytes(text: String) {
        let key = DeviceKey(text)
        guard case .digits = key.storage else {
            Issue.record("\(text) was held as text")
            return
        }
        #expect(key.text == text)
        #expect("\(key)" == text)
    }

    @Test(arguments: [
        token.uppercased(), token + "00", String(token.dropLast(2)), String(token.dropLast()) + "g", "", "not a token",
        String(token.dropLast()) + "é",
    ])
    func anyOtherTextIsHeldAsItIs(text: String) {
        let key = DeviceKey(text)
        guard case .text(let held) = key.storage else {
            Issue.record("\(text) was held as bytes")
            return
        }
        #expect(held == text)
        #expect(key.text == text)
    }

    @Test func keysAreEqualExactlyWhenTheirTextsAre() {
        let texts = [Self.token, Self.token.uppercased(), Self.token + "00", String(repeating: "0", count: 64), "0"]
        for left in texts {
            for right in texts {
                #expect((DeviceKey(left) == DeviceKey(right)) == (left == right), "\(left) against \(right)")
            }
        }
        var seen: Set<DeviceKey> = [DeviceKey(Self.token)]
        #expect(!seen.insert(DeviceKey(String(Self.token))).inserted)
        #expect(seen.insert(DeviceKey(Self.token.uppercased())).inserted)
    }

    @Test func eachDigitLandsInItsPlace() {
        for place in 0..<64 {
            var bytes = [UInt8](repeating: UInt8(ascii: "0"), count: 64)
            bytes[place] = UInt8(ascii: "c")
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(DeviceKey(text).text == text)
            #expect(DeviceKey(text) != DeviceKey(String(repeating: "0", count: 64)))
        }
    }
}
