import NIOCore
import Testing

@testable import SilentPushSender

/// pushsend follows no redirect from an admin API: the line names where it points, to give as
/// `--admin`.
@Suite struct AdminRedirectTests {
    @Test func aRedirectIsNamedNotFollowed() {
        let moved = AdminExporter.Failure.refused(
            status: 301, body: ByteBuffer(string: "<html>moved</html>"), location: "https://u:secret@admin.example/")
        #expect(moved.description == "the admin API answered 301: it redirects to https://***@admin.example/: give that as --admin")
        // Another refusal keeps its problem document's detail.
        let missing = AdminExporter.Failure.refused(status: 404, body: ByteBuffer(string: #"{"detail":"no such path"}"#), location: "/x")
        #expect(missing.description == "the admin API answered 404: no such path")
    }
}
