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

    /// Every byte that is not a lower-case hex digit, in every place, leaves the token text;
    /// `g` to `o` have the low bits of `7` to `f` and the bit of a letter.
    @Test func everyOtherByteInAnyPlaceIsNotADigit() {
        let digits = Set("0123456789abcdef".utf8)
        for byte in UInt8.min...UInt8.max where !digits.contains(byte) {
            for place in [0, 7, 8, 31, 63] {
                var bytes = Array(Self.token.utf8)
                bytes[place] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                guard case .text = DeviceKey(text).storage else {
                    Issue.record("byte \(byte) at \(place) was taken for a digit")
                    continue
                }
            }
        }
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
            bytes[place] = Array("0123456789abcdef".utf8)[1 + place % 15]
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(DeviceKey(text).text == text)
            #expect(DeviceKey(text) != DeviceKey(String(repeating: "0", count: 64)))
        }
        for _ in 0..<200 {
            let text = (0..<32).map { _ in String(Int.random(in: 0...255) | 0x100, radix: 16).dropFirst() }.joined()
            #expect(DeviceKey(text).text == text)
        }
    }
}
