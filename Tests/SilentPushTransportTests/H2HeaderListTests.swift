import SilentPushTransport
import Testing

@Suite struct H2HeaderListTests {
    @Test func keepsOrderAndDuplicates() {
        var list: H2HeaderList = ["a": "1", "b": "2"]
        list.append(name: "a", value: "3")
        #expect(list.count == 3)
        #expect(list.fields.map(\.name) == ["a", "b", "a"])
        #expect(list.first("a") == "1")
        #expect(list.values("a") == ["1", "3"])
        #expect(list.count(of: "a") == 2)
        #expect(list.first("c") == nil)
        #expect(list.encodedSize == 6 + 3 * 32)
    }

    @Test func nameMatchIsExact() {
        let list: H2HeaderList = ["apns-id": "x", "apns-id-2": "y"]
        #expect(list.first("apns-i") == nil)
        #expect(list.values("apns-id") == ["x"])
    }
}
