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

    /// Refuses an --admin that is not `http(s)://HOST:PORT[/path]`, before any request: a
    /// URL with no scheme or host would be reported as a receiver not running.
    func validate() throws {
        guard let url = URL(string: admin), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
            url.query == nil, url.fragment == nil
        else {
            throw ValidationError("--admin '\(admin)' is not a URL like http://127.0.0.1:2199 (the receiver's --admin-port)")
        }
    }

    /// The token given, or the environment's.
    var token: String? {
        adminToken ?? ProcessInfo.processInfo.environment["SILENTPUSH_ADMIN_TOKEN"]
    }
}
