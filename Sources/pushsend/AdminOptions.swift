import ArgumentParser
import Foundation

/// Where a receiver's admin API is and its token: the options `pushsend expect` and
/// `pushsend export` share.
struct AdminOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The receiver's admin API.", valueName: "url"))
    var admin = "http://127.0.0.1:2199"

    @Option(
        name: .customLong("admin-token"), help: ArgumentHelp("Its --admin-token, if it has one. Also SILENTPUSH_ADMIN_TOKEN.", valueName: "token"))
    var adminToken: String?

    /// The token given, or the environment's.
    var token: String? {
        adminToken ?? ProcessInfo.processInfo.environment["SILENTPUSH_ADMIN_TOKEN"]
    }
}
