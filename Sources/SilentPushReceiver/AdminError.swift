import Foundation
import Hummingbird
import NIOCore
import Prometheus
import SilentPushCore
import SilentPushStore

/// A request the admin API refuses, with its status and a message that says what to fix.
struct AdminError: Error {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}
