import Foundation
import SilentPushReceiver
import Testing

/// Live Activity ids sort in the order their activities began, so a list of activities that
/// began at one device instant (a manual clock) is in that order, not the ids' random one.
@Suite struct ActivityIDTests {
    @Test func idsSortInTheOrderTheyWereMadeAndAreVersion7UUIDs() throws {
        let ids = (0..<5_000).map { _ in ActivityID.next() }
        #expect(ids.sorted() == ids)
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(10) {
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString == id)
            #expect(id[id.index(id.startIndex, offsetBy: 14)] == "7", "version 7: \(id)")
            #expect("89AB".contains(id[id.index(id.startIndex, offsetBy: 19)]), "RFC 9562 variant: \(id)")
        }
    }
}
