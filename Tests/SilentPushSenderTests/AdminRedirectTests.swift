import NIOCore
import Testing

@testable import SilentPushSender

/// pushsend follows no redirect from an admin API: the line names where it points, to give as
/// `--admin`.
@Suite struct AdminRedirectTests {
    @Test func aRedirectIsNamedNotFollowed() {
        // A relative Location is said whole, the user and password masked.
        let moved = AdminExporter.Failure.refused(
            status: 301, body: ByteBuffer(string: "<html>moved</html>"), location: "/v2/pushes?limit=1",
            asked: "http://u:secret@admin.example/v1/pushes")
        #expect(
            moved.description
                == "the admin API answered 301: it redirects to http://***@admin.example/v2/pushes?limit=1, and pushsend follows no redirect: give --admin the receiver's own address"
        )
        // Another refusal keeps its problem document's detail.
        let missing = AdminExporter.Failure.refused(status: 404, body: ByteBuffer(string: #"{"detail":"no such path"}"#), location: "/x")
        #expect(missing.description == "the admin API answered 404: no such path")
    }
}
