import SilentPushCore
import Testing

@testable import SilentPushReceiver

/// What members tell each other reads back as it was sent; anything else is ignored, never
/// misread (a notice of another version, a number out of range).
struct ClusterNoticeTests {
    @Test func everyNoticeReadsBackFromItsText() {
        let notices: [ClusterNotice] = [
            .order(from: 4242, call: 1, .advance(to: DeviceInstant(millisecondsSinceEpoch: 1_795_000_000_123))),
            .order(from: 1, call: UInt64.max, .reset),
            .order(from: Int32.max, call: 7, .faults),
            .order(from: 3, call: 8, .channels),
            .order(from: 3, call: 9, .broadcast(id: 268_435_457)),
            .order(from: 3, call: 10, .broadcast(id: UInt64(Int64.max))),
            .answer(from: 12, to: 4242, call: 1, failure: nil),
            .answer(from: 12, to: 4242, call: 2, failure: "r2: the device runs on the system clock \"quoted\""),
        ]
        for notice in notices { #expect(ClusterNotice(payload: notice.payload) == notice, "\(notice.payload)") }
    }

    @Test func anythingElseIsIgnored() {
        for payload in [
            "", "{", "[]", #"{"from":1,"call":1}"#, #"{"from":1,"call":1,"order":"reboot"}"#,
            #"{"from":1,"call":1,"order":"advance"}"#, #"{"from":1,"call":1,"order":"advance","to":-5}"#,
            #"{"from":1,"call":1,"order":"advance","to":9000000000000}"#, #"{"from":99999999999,"call":1,"order":"reset"}"#,
            #"{"from":1,"to":99999999999,"call":1,"failure":null}"#, #"{"from":1,"to":2,"call":1,"failure":5}"#,
            #"{"from":1,"call":1,"order":"broadcast"}"#, #"{"from":1,"call":1,"order":"broadcast","id":0}"#,
            #"{"from":1,"call":1,"order":"broadcast","id":-3}"#, #"{"from":1,"call":1,"order":"broadcast","id":"7"}"#,
        ] {
            #expect(ClusterNotice(payload: payload) == nil, "\(payload)")
        }
    }
}
